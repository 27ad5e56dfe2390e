"""The New-run screen names every probe and every parameter whole, at every size a user meets
it: the probe selector never breaks a name over two lines ("counterfactual-retriev ▼" over
"al"), and no parameter's name runs into its value ("similarity_thresho(default)")."""

from __future__ import annotations

from pathlib import Path

import pytest
from rendered_screen import screen_lines
from steps import choose_probe, settle, shown, wait_for
from surface import cut_sentences
from surface_text import cut_text
from textual.geometry import Region
from textual.widgets import Label, Select

from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.new_run.screen import NewRunScreen

pytestmark = pytest.mark.surface

SIZES = [
    pytest.param((80, 24), id="80x24"),
    pytest.param((60, 20), id="60x20"),
    pytest.param((120, 40), id="120x40"),
]


@pytest.mark.parametrize("size", SIZES)
async def test_every_probe_and_parameter_is_named_whole(
    scripted: None, workspace: Path, size: tuple[int, int]
) -> None:
    probes = sorted(Workspace.plugins.registry().probes)
    assert "counterfactual-retrieval" in probes  # the longest name, with the longest field
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewRunScreen), "the screen")
        screen = app.screen
        forms = screen.query_one("#forms")
        for probe in probes:
            await choose_probe(pilot, probe)
            # The selector's value as its cells draw it (wherever the choices are scrolled):
            # on one row, whole.
            label = screen.query_one("#probe", Select).query_one("SelectCurrent #label")
            await settle(pilot)
            rows = [strip.text for strip in label.render_lines(Region(0, 0, *label.size))]
            assert any(probe in row for row in rows), (probe, rows)
            assert cut_sentences(app) == [], (probe, shown(app))
            # Each field's name whole, page by page down the forms.
            names = list(screen.query("#forms .field-name").results(Label))
            assert names
            checked = set()
            for top in range(0, int(forms.max_scroll_y) + forms.size.height, forms.size.height):
                forms.scroll_to(y=top, animate=False)
                await settle(pilot)
                view = forms.content_region
                # Nothing moves between the names of one page: the screen is drawn once.
                lines = screen_lines(app)
                for name in names:
                    if view.contains_region(name.region) and name.region.area:
                        assert cut_text(app, name, lines) == [], (probe, shown(app))
                        checked.add(name)
            assert checked == set(names), (probe, size)

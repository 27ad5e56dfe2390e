"""The New-run screen at 80×24 and 60×20: the field it refuses is brought into view, focused and
named in words, and a probe's description is read whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import SIZES, open_new_run, screen_lines, settle
from surface import cut_values

from diptych.tui.app import DiptychApp
from diptych.tui.screens.new_run.plan import probe_class
from diptych.tui.widgets.ticks import TickList


@pytest.mark.parametrize("size", SIZES)
async def test_no_model_chosen_brings_the_models_list_into_view_and_says_why(
    snapshot_workspace: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        # The probe with the longest description: it pushes the Models list down the most.
        screen = await open_new_run(pilot, "pst")
        await pilot.press("ctrl+s")
        await settle(pilot)
        models = screen.query_one("#models", TickList)
        lines = screen_lines(app)
        text = "\n".join(lines)
        assert app.focused is models
        # The list's rows on the screen, above the plan and the footer.
        assert models.region.height >= 1 and models.region.y < size[1] - 3, text
        assert models.region.intersection(app.screen.region).area > 0, text
        # The reason in words, in view: not a colour only.
        # (whole on one line of the 28 columns of the choices pane)
        assert any("✗ tick one or more (space)" in line for line in lines), text
        # The probe's description is read whole, its last words on the screen.
        description = probe_class("pst").description()
        assert description.endswith("in one image.") and "in one image." in text, text
        assert cut_values(app) == [], text

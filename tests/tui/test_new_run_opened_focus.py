"""New run opened on a probe with a long Models list, at 80×24 and 60×20: the field the keys go
to (the Probe) stays in view once the lists have refilled and the plan has said what to fix,
rather than the pane scrolled down to the list's refusal ("✗ Models") with the Probe above it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from steps import SIZES, choose_probe, loaded, settle, shown, wait_for
from test_new_run_in_view import in_view
from textual.widgets import Select

from diptych import hookimpl
from diptych.core import plugins
from diptych.core.capabilities import Model
from diptych.testing import ScriptedLikelihood
from diptych.tui.app import DiptychApp
from diptych.tui.screens.new_run.screen import NewRunScreen
from diptych.tui.widgets.ticks import TickList

#: Ten likelihood models beside the scripted one: pst-text's list is taller than the pane.
EXTRA = [f"likelihood-{i:02d}" for i in range(10)]


class TenLikelihoods:
    @hookimpl
    def register_models(self, register: Callable[[type[Model]], None]) -> None:
        for name in EXTRA:
            register(type(name, (ScriptedLikelihood,), {"name": name}))


@pytest.fixture
def ten_likelihoods(few_plugins: None) -> Iterator[None]:
    name = plugins.register_plugin(TenLikelihoods(), "ten-likelihoods")
    yield
    plugins.unregister_plugin(name)


@pytest.mark.parametrize("size", SIZES)
async def test_the_focused_probe_stays_in_view_after_the_lists_refill(
    snapshot_workspace: Path, ten_likelihoods: None, size: tuple[int, int]
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(3)(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewRunScreen), "the screen")
        screen = app.screen
        assert isinstance(screen, NewRunScreen)
        await wait_for(pilot, lambda: screen.refills_settled > 0 and screen.settled, "the list")
        probe = screen.query_one("#probe", Select)
        assert app.focused is probe and in_view(app, probe), shown(app)
        filled = screen.refills_settled
        await choose_probe(pilot, "pst-text")
        # The new list laid out, and the plan of the new form, which names the list to fix,
        # asked for: the pane scrolled to the list's refusal, under the Probe.
        await wait_for(
            pilot, lambda: screen.refills_settled > filled and screen.settled, "the new list"
        )
        models = screen.query_one("#models", TickList)
        offered = [str(models.get_option_at_index(i).value) for i in range(models.option_count)]
        assert set(EXTRA) <= set(offered) and len(offered) >= 11, offered
        await wait_for(pilot, lambda: "fix the field" in shown(app), "the plan's complaint")
        await settle(pilot)
        assert app.focused is probe and in_view(app, probe), shown(app)
        # With the heading that names it.
        assert shown(app).splitlines()[1].split("│")[0].strip() == "Probe", shown(app)

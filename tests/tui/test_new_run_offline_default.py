"""New run, opened on a workspace with no run yet, starts from a plan that holds where a model
answers on this machine with nothing to fetch (the bundled SmolLM2): pst-text chosen, that model
ticked, the plan's trials shown, at 80×24 and 60×20. Where no such model is installed, nothing
is ticked for the user and the Models list says to tick one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from steps import SIZES, settle, shown, wait_for
from textual.pilot import Pilot
from textual.widgets import Select, Static

from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.new_run.screen import NewRunScreen
from diptych.tui.widgets.ticks import TickList


def offline(monkeypatch: pytest.MonkeyPatch, works: bool) -> None:
    """smollm2 said to work offline here, or not, whatever this machine has installed."""
    smollm2 = Workspace.plugins.registry().models["smollm2"]
    monkeypatch.setattr(smollm2, "works_offline", classmethod(lambda cls: works))


async def opened(pilot: Pilot[Any], app: DiptychApp) -> NewRunScreen:
    """New run, opened from the Runs screen of an empty workspace."""
    await wait_for(pilot, lambda: "No runs yet" in shown(app), "the empty workspace")
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, NewRunScreen), "New run")
    screen = app.screen
    assert isinstance(screen, NewRunScreen)
    return screen


@pytest.mark.parametrize("size", SIZES)
async def test_new_run_opens_on_a_plan_the_offline_model_answers(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    offline(monkeypatch, True)
    Workspace.open(workspace).close()
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot, app)
        estimate = screen.query_one("#estimate", Static)
        await wait_for(pilot, lambda: "planned" in str(estimate.render()), "the plan",
                       lambda: shown(app))  # fmt: skip
        await settle(pilot)
        assert screen.query_one("#probe", Select).value == "pst-text"
        assert screen.selected_models() == ["smollm2"]
        assert screen.query_one("#models", TickList).selected == ["smollm2"]
        text = " ".join(shown(app).split())
        # The paper's 20 × 20 occupations, in likelihood mode, on one model.
        assert "1,720 trials planned" in text and "[x] smollm2" in text, shown(app)
        assert "fix the field" not in text and "✗ Models" not in text, shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_no_model_is_ticked_where_none_works_offline(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    offline(monkeypatch, False)
    Workspace.open(workspace).close()
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot, app)
        await wait_for(pilot, lambda: "fix the field" in shown(app), "the plan's complaint")
        assert screen.selected_models() == []
        assert "✗ tick one or more (space)" in shown(app), shown(app)

"""What a screen said belongs to the action that said it: the next action takes it back."""

from __future__ import annotations

from pathlib import Path

from steps import wait_for

from diptych.tui.app import DiptychApp
from diptych.tui.screens.runs.screen import RunsScreen
from diptych.tui.widgets.said import SaidLine


def shown(app: DiptychApp) -> str:
    lines = [line for line in app.screen.query(SaidLine) if line.display]
    return " ".join(str(line.render()) for line in lines)


async def test_next_key_takes_back_what_runs_said(workspace: Path) -> None:
    app = DiptychApp(workspace)
    async with app.run_test(size=(60, 20)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        await wait_for(pilot, lambda: screen.loads_shown > 0, "the workspace read")
        await pilot.press("u")
        # Its answer: no run to resume (which words depends on whether the list holds runs).
        await wait_for(pilot, lambda: shown(app) != "", "u's answer")
        await pilot.press("down")  # an action that says nothing of its own
        await pilot.pause()
        assert shown(app) == ""

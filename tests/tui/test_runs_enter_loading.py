"""Enter pressed on the Runs screen before it lists any run says why nothing opens, whole on the
line above the footer, at 80×24 and 60×20: while the workspace is read, that it is still being
read; once read and empty, that there is no run yet and how to start one. Once the rows are
there, Enter opens the highlighted run."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from steps import SIZES, run_ids, said, settle, shown, wait_for
from surface import cut_messages, screen_lines

from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.runs.detail import RunDetailScreen
from diptych.tui.screens.runs.screen import RunsScreen

LOADING = "the workspace is still being read: its runs are listed in a moment"
NO_RUNS = "no run yet: n starts one"


@pytest.mark.parametrize("size", SIZES)
async def test_enter_while_the_runs_load_says_so(
    pst_text_run: str, workspace: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    import diptych.tui.screens.runs.screen as runs_module

    read = threading.Event()
    load_runs = runs_module.load_runs

    def held(store_path: Path) -> Any:
        read.wait(60)
        return load_runs(store_path)

    monkeypatch.setattr(runs_module, "load_runs", held)
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: "loading the workspace" in shown(app), "the loading line")
        await pilot.press("enter")
        await wait_for(pilot, lambda: LOADING in said(app), "why nothing opens", lambda: shown(app))
        await settle(pilot)
        assert isinstance(app.screen, RunsScreen)
        assert LOADING in " ".join(" ".join(screen_lines(app)).split()), shown(app)
        assert cut_messages(app) == [], shown(app)
        read.set()
        await wait_for(pilot, lambda: run_ids(app) == [pst_text_run], "the run")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RunDetailScreen), "the run opened")


@pytest.mark.parametrize("size", SIZES)
async def test_enter_on_a_workspace_without_runs_says_how_to_start_one(
    workspace: Path, size: tuple[int, int]
) -> None:
    Workspace.open(workspace).close()
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        runs = app.screen
        assert isinstance(runs, RunsScreen)
        await wait_for(pilot, lambda: runs.loads_shown > 0, "the workspace read")
        await pilot.press("enter")
        await wait_for(pilot, lambda: NO_RUNS in said(app), "why nothing opens", lambda: shown(app))
        await settle(pilot)
        assert NO_RUNS in " ".join(" ".join(screen_lines(app)).split()), shown(app)
        assert cut_messages(app) == [], shown(app)

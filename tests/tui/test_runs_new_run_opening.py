"""Runs: ``n`` says at once that New run is opening (the last request is read and the screen
built before it draws, seconds on a slow machine), and a second ``n`` meanwhile opens no
second New run screen."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from steps import SIZES, run_ids, said, settle, shown, wait_for

from diptych.tui.app import DiptychApp
from diptych.tui.screens.new_run.screen import NewRunScreen
from diptych.tui.screens.runs.screen import RunsScreen

OPENING = "opening New run…"


@pytest.mark.parametrize("size", SIZES)
async def test_n_says_new_run_is_opening_and_opens_it_once(
    pst_text_run: str, workspace: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    import diptych.tui.screens.runs.controls as controls

    read = threading.Event()
    last_request = controls.last_request

    def held(store_path: Path) -> Any:
        read.wait(60)
        return last_request(store_path)

    monkeypatch.setattr(controls, "last_request", held)
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: run_ids(app) == [pst_text_run], "the run")
        await pilot.press("n")
        await wait_for(
            pilot, lambda: OPENING in " ".join(shown(app).split()), "the word", lambda: shown(app)
        )
        await pilot.press("n")
        read.set()
        await wait_for(pilot, lambda: isinstance(app.screen, NewRunScreen), "New run")
        await settle(pilot)
        assert [type(s) for s in app.screen_stack].count(NewRunScreen) == 1, app.screen_stack
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, RunsScreen), "back on Runs")
        assert OPENING not in said(app)[-1:] or OPENING not in shown(app)
        # Back on Runs, n opens New run again.
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewRunScreen), "New run again")

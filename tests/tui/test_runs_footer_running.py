"""Runs: the footer offers the keys the highlighted run takes, as docs/tui.md says: on a run
that runs, ``p Pause`` and ``c Stop`` (``c`` left to Help only at 60
columns)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from steps import run_ids, wait_for
from surface import screen_lines
from textual.widgets import DataTable

from diptych.tui.app import DiptychApp
from diptych.tui.jobs import RunRequest
from diptych.tui.screens.runs.screen import RunsScreen


def footer_row(app: DiptychApp) -> str:
    return screen_lines(app)[app.size.height - 1]


def status_of_highlighted(app: DiptychApp) -> str:
    screen = app.screen
    assert isinstance(screen, RunsScreen)
    run_id = screen.current_run_id()
    return "" if run_id is None else screen._status(screen.rows[run_id], app.job_for_run(run_id))


@pytest.mark.parametrize(("size", "stop_shown"), [((80, 24), True), ((60, 20), False)])
async def test_a_running_row_offers_pause_and_stop(
    held: threading.Event, workspace: Path, size: tuple[int, int], stop_shown: bool
) -> None:
    request = RunRequest(
        probe="scripted",
        probe_params=("n=20",),
        models=(("scripted-likelihood", ("max_concurrency=2",)),),
    )
    app = DiptychApp(workspace, refresh_interval=0.2)
    async with app.run_test(size=size) as pilot:
        job = app.start_run(request)
        await wait_for(pilot, lambda: job.run_id in run_ids(app), "the run in the table")
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        screen.query_one("#runs", DataTable).focus()
        await wait_for(pilot, lambda: "p Pause" in footer_row(app), "p", lambda: footer_row(app))
        row = footer_row(app)
        assert ("c Stop" in row) is stop_shown, row
        assert "Resume" not in row, row
        held.set()

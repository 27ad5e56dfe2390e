"""Runs: ``c`` stops a running run, and says so: the footer and Help call it "Stop" (nothing is
cancelled: its trials so far are kept and ``u`` resumes it), the status reads "stopping" until
the run is stored as ``interrupted``."""

from __future__ import annotations

import threading
from pathlib import Path

from steps import SIZE, cell, run_ids, shown, wait_for
from textual.widgets import DataTable

from diptych.tui.app import DiptychApp
from diptych.tui.jobs import RunRequest
from diptych.tui.screens.help import help_sections
from diptych.tui.screens.runs.screen import RunsScreen


def test_help_calls_c_stop() -> None:
    (keys,) = [b for title, b in help_sections(DiptychApp) if title == "Runs screen"]
    said = {b.key: b.description for b in keys}
    assert said["c"] == "Stop"
    assert "Cancel" not in said.values()


async def test_c_stops_the_run_and_says_stop(held: threading.Event, workspace: Path) -> None:
    request = RunRequest(
        probe="scripted",
        probe_params=("n=20",),
        models=(("scripted-likelihood", ("max_concurrency=2",)),),
    )
    app = DiptychApp(workspace, refresh_interval=0.2)
    async with app.run_test(size=SIZE) as pilot:
        job = app.start_run(request)
        await wait_for(pilot, lambda: job.run_id in run_ids(app), "the run in the table")
        run_id = job.run_id
        assert run_id is not None
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        screen.query_one("#runs", DataTable).focus()
        await wait_for(pilot, lambda: screen.footer_labels().get("stop") == "Stop", "the key")
        assert "cancel" not in screen.footer_labels()
        await pilot.press("c")
        # The word the status column shows until the run has stored its status.
        await wait_for(pilot, lambda: job.stop_reason == "stop", "the stop", lambda: shown(app))
        assert screen._status(screen.rows[run_id], job) in {"stopping", "ended"}, job.state
        held.set()
        await wait_for(pilot, lambda: cell(app, run_id, "status") == "interrupted", "stopped")

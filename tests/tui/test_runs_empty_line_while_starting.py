"""The Runs screen of an empty workspace, back from New run's ctrl+s: the run being started is
known (the line above the footer shows it, "starting …" then its bar), so the screen does not
say "No runs yet: press n to start one." beside it, from the first frame the screen is back
to the read of the store that finds the run. With no run going, it says it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from steps import choose_probe, shown, wait_for
from textual.widgets import Static

import diptych.tui.screens.runs.screen as runs_screen
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.new_run.screen import NewRunScreen
from diptych.tui.screens.runs.screen import RunsScreen
from diptych.tui.widgets.ticks import TickList

NO_RUNS = "No runs yet: press n to start one."


async def test_no_empty_line_beside_a_run_being_started(
    workspace: Path, held: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    Workspace.open(workspace).close()
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            await wait_for(pilot, lambda: NO_RUNS in shown(app), "the empty workspace")
            runs = app.screen
            assert isinstance(runs, RunsScreen)
            # Every read of the store from here on lands before the new run is recorded in it,
            # as the first one after ctrl+s can: the run known only as a job.
            monkeypatch.setattr(runs_screen, "load_runs", lambda store_path: [])
            await pilot.press("n")
            await wait_for(pilot, lambda: isinstance(app.screen, NewRunScreen), "New run")
            new_run = app.screen
            await wait_for(pilot, lambda: bool(new_run.query("#probe SelectOverlay")), "Probe")
            await choose_probe(pilot, "scripted")
            new_run.query_one("#models", TickList).select("scripted-likelihood")
            await wait_for(pilot, lambda: "trials planned" in shown(app), "the plan")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: app.screen is runs, "the Runs screen")
            await pilot.pause()  # the first refresh after the screen returns
            (job,) = app.jobs.values()
            assert job.state != "ended"
            assert not runs.has_class("-no-rows")
            assert NO_RUNS not in shown(app), shown(app)
            loads = runs.loads_shown
            runs.action_reload()
            await wait_for(pilot, lambda: runs.loads_shown > loads, "the store read again")
            await pilot.pause()
            assert NO_RUNS not in shown(app), shown(app)
            assert runs.query_one("#empty", Static).display is False
        finally:
            held.set()
            jobs = list(app.jobs.values())
            await wait_for(pilot, lambda: all(j.state == "ended" for j in jobs), "the run's end")
        # The run over (and, read this way, still not in the store): the line says it again.
        await wait_for(
            pilot, lambda: NO_RUNS in shown(app), "the empty line back", lambda: shown(app)
        )

"""Runs: a run started from New run (n, fill, ctrl+s) is followed on the Runs screen, and the
footer offers the keys of a running run, as docs/tui.md says: ``p Pause`` and ``c Stop`` (``c``
left to Help only at 60 columns), never the ``u Resume`` of the run highlighted before New run
was opened (the footer was not drawn again while New run stood over the Runs screen)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from steps import loaded, open_new_run, settle, shown, wait_for
from surface import screen_lines
from textual.pilot import Pilot
from textual.widgets import DataTable

from diptych.tui.app import DiptychApp
from diptych.tui.screens.runs.screen import RunsScreen
from diptych.tui.widgets.ticks import TickList


def footer_row(app: DiptychApp) -> str:
    return screen_lines(app)[app.size.height - 1]


@pytest.mark.parametrize(("size", "stop_shown"), [((80, 24), True), ((60, 20), False)])
async def test_a_run_started_from_new_run_offers_pause_not_resume(
    snapshot_workspace: Path,
    held: threading.Event,
    size: tuple[int, int],
    stop_shown: bool,
) -> None:
    # The workspace first: its runs are made before the scripted model is held.
    app = DiptychApp(snapshot_workspace, refresh_interval=0.2)
    async with app.run_test(size=size) as pilot:
        try:
            await _started_from_new_run(app, pilot, stop_shown)
        finally:
            # The run ends before the app does: its end, said after the app's screens were
            # gone, found none to say it on.
            held.set()
            jobs = list(app.jobs.values())
            await wait_for(pilot, lambda: all(j.state == "ended" for j in jobs), "the run's end")


async def _started_from_new_run(app: DiptychApp, pilot: Pilot[Any], stop_shown: bool) -> None:
    await loaded(3)(pilot)
    runs = app.screen
    assert isinstance(runs, RunsScreen)
    table = runs.query_one("#runs", DataTable)
    # The run stopped at its budget is highlighted: its footer offers u Resume.
    over = next(r for r in runs.rows.values() if r.run.status == "over-budget")
    table.move_cursor(row=table.get_row_index(over.run.id))
    await wait_for(pilot, lambda: "u Resume" in footer_row(app), "u", lambda: footer_row(app))

    new_run = await open_new_run(pilot, "scripted")
    new_run.query_one("#models", TickList).select("scripted-likelihood")
    await wait_for(pilot, lambda: "trials planned" in shown(app), "the plan", lambda: shown(app))
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: app.screen is runs, "the Runs screen")
    (job,) = app.jobs.values()
    await wait_for(
        pilot,
        lambda: job.run_id is not None and runs.current_run_id() == job.run_id,
        "the new run highlighted",
    )
    await wait_for(pilot, lambda: runs.loads_shown > 4, "the rows read again")
    await settle(pilot)
    row = footer_row(app)
    assert "p Pause" in row, row
    assert ("c Stop" in row) is stop_shown, row
    assert "Resume" not in row, row

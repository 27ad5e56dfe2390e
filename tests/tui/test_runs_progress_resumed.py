"""A run resumed here is counted alike by the jobs bar and the highlighted run's line on the
Runs screen: the trials stored before it was resumed are done from the first moment (not
"planning…" beside "8/12"), the trials stored but not yet told by the job are counted by both,
and the rate and time left are of the trials this job finished, read at one moment."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from rich.text import Text
from steps import run_ids, wait_for
from textual.widgets import Static

from diptych.core.engine import run_probe
from diptych.core.store import open_store
from diptych.tui.app import DiptychApp
from diptych.tui.jobs import JobState, RunRequest
from diptych.tui.widgets.jobs_panel import JobsPanel

#: ``8/12``, then the rate and time left where there are.
FIGURE = re.compile(r"\d[\d,]*/\d[\d,]*(?: · \d+\.\d/s)?(?: · ETA \d+:\d\d)?")


def _figure(widget: Static) -> str:
    shown = widget.render()
    plain = shown.plain if isinstance(shown, Text) else str(shown)
    match = FIGURE.search(plain)
    return match.group(0) if match else plain


@pytest.fixture
def stopped_run(scripted: None, workspace: Path) -> str:
    """Made before any event loop runs (the engine's run_probe starts its own)."""
    with open_store(workspace) as store:
        # A budget of eight calls at a dollar each: stopped with eight of twelve trials done.
        run = run_probe(store, "scripted", [("scripted-likelihood", ["price_per_call=1"])],
                        probe_params=["n=12"], max_cost=8.0)  # fmt: skip
        assert store.status_counts(run.id)["done"] == 8
        return run.id


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_a_resumed_run_reads_the_same_in_the_bar_and_its_line(
    stopped_run: str, workspace: Path, size: tuple[int, int]
) -> None:
    run_id = stopped_run
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: run_id in run_ids(app), "the run in the table")
        panel = app.screen.query_one(JobsPanel)
        selected = app.screen.query_one("#selected", Static)
        # Resumed, still planning: what was stored is done in both.
        job = JobState(id=7, request=RunRequest(resume=run_id), run_id=run_id)
        app.jobs[job.id] = job
        app._jobs_changed()
        await wait_for(pilot, lambda: _figure(panel) == "8/12", "8/12 in the bar",
                       lambda: f"{_figure(panel)!r} beside {_figure(selected)!r}")  # fmt: skip
        assert _figure(selected) == "8/12"
        # Started with five stored, it has told one trial in 10 s; the store holds three
        # more. Both count eight, at three trials in 10 s: 0.3/s, four left in 0:13.
        job.state, job.total, job.cached, job.to_run = "running", 12, 5, 7
        job.finished, job.started_at = {"done": 1}, time.monotonic() - 10.0
        app._jobs_changed()
        await wait_for(pilot, lambda: _figure(panel).startswith("8/12 · 0.3/s · ETA 0:1"),
                       "the rate in the bar", lambda: _figure(panel))  # fmt: skip
        assert _figure(selected) == _figure(panel)
        app.jobs.pop(job.id)

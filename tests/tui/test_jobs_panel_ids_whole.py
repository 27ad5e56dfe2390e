"""The running runs at the foot of the Runs screen name each run by its whole id: it is what a
user types to pause, resume or show it; the progress bar gives up the room instead."""

from __future__ import annotations

from typing import Any

import pytest
from surface import screen_lines
from textual.app import App, ComposeResult

from diptych.tui.jobs import JobState, RunRequest
from diptych.tui.widgets.jobs_panel import JobsPanel

RUN_ID = "pst-text-e13e1234"


def resumed(state: str = "running") -> JobState:
    job = JobState(1, RunRequest(resume=RUN_ID))
    job.run_id, job.total, job.finished, job.state = RUN_ID, 1_680, {"done": 280}, state
    return job


class Foot(App[None]):
    def __init__(self, jobs: list[JobState]) -> None:
        super().__init__()
        self.jobs = jobs

    def compose(self) -> ComposeResult:
        yield JobsPanel()

    def on_mount(self) -> None:
        self.call_after_refresh(self.query_one(JobsPanel).show_jobs, self.jobs)


@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
@pytest.mark.parametrize("state", ["running", "pausing"])
async def test_running_run_id_whole(size: tuple[int, int], state: str) -> None:
    app = Foot([resumed(state)])
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        # Progress comes again and again: drawn again once the panel has its width.
        app.query_one(JobsPanel).show_jobs(app.jobs)
        await pilot.pause()
        lines: list[Any] = [line for line in screen_lines(app) if "280/1,680" in line]
        assert len(lines) == 1, screen_lines(app)
        line = lines[0]
        assert f" {RUN_ID} " in line, line
        assert "━" in line
        if state == "pausing":
            assert line.rstrip().endswith("· pausing…"), line

"""A run executing here reads the trials stored, as they are stored: a batched call stores
its trials together, and the progress counts all of them at once, at a rate of the trials
stored since the job started, not "173/1,720 · 0.0/s" while a slow local model's next
batch is minutes away."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from steps import SIZE, run_ids, wait_for
from textual.widgets import Static

from diptych.core.store import open_store
from diptych.testing import ScriptedImageGenerator
from diptych.tui.app import DiptychApp
from diptych.tui.jobs import JobState, RunRequest
from diptych.tui.messages import JobProgress
from diptych.tui.progress import run_progress
from diptych.tui.widgets.jobs_panel import JobsPanel
from diptych.tui.workers import JobReporter


def test_the_count_follows_the_store_and_the_rate_its_trials() -> None:
    # The newcomer's buy: 172 trials stored before, one told by the job in 50 s, 64 stored.
    job = JobState(id=1, request=RunRequest(resume="r"), total=1720, cached=172)
    job.finished, job.started_at = {"done": 1}, 100.0
    told = run_progress(None, 0, job, now=150.0)
    assert told.text().startswith("173/1,720 · 0.0/s")
    stored = run_progress({"done": 236, "refused": 0, "failed": 0}, 1720, job, now=150.0)
    assert stored.done == 236 and stored.rate == pytest.approx(64 / 50)
    assert stored.text().startswith("236/1,720 · 1.3/s · ETA ")
    # A store read before the job told its last trials never takes them back.
    job.finished = {"done": 70, "failed": 2}
    behind = run_progress({"done": 200, "refused": 0, "failed": 0}, 1720, job, now=150.0)
    assert (behind.done, behind.failed, behind.rate) == (242, 2, pytest.approx(72 / 50))


def test_outcomes_held_back_are_posted_without_another_trial() -> None:
    posted: list[dict[str, int]] = []
    all_told = threading.Event()

    def post(message: Any) -> None:
        if isinstance(message, JobProgress):
            posted.append(message.finished)
            if message.finished.get("done") == 4:
                all_told.set()

    reporter = JobReporter(1, post, interval=0.05)
    for _ in range(4):  # one batched call's trials, stored together
        reporter.trial_finished("m", "done", None)
    assert all_told.wait(timeout=30), posted
    assert posted[0] == {"done": 1} and posted[-1] == {"done": 4}
    told = len(posted)
    reporter.flush()  # nothing held: nothing more to say
    assert len(posted) == told


class FirstBatchOnly:
    """The scripted image model answers its first batched call, then holds every other one
    until released (or the run is stopped): a slow local model, whatever the machine's speed."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls = 0


@pytest.fixture
def first_batch_only(scripted: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[FirstBatchOnly]:
    held = FirstBatchOnly()
    generate = ScriptedImageGenerator.generate_batch

    async def holding(
        self: ScriptedImageGenerator, prompts: Sequence[str], seeds: Any, size: Any
    ) -> Any:
        held.calls += 1
        # Polled: a stop cancels the wait at once.
        while held.calls > 1 and not held.release.is_set():
            await asyncio.sleep(0.01)
        return await generate(self, prompts, seeds, size)

    monkeypatch.setattr(ScriptedImageGenerator, "generate_batch", holding)
    yield held
    held.release.set()


def _plain(widget: Static) -> str:
    shown = widget.render()
    return shown.plain if isinstance(shown, Text) else str(shown)


async def test_a_batch_stored_is_counted_whole_while_the_next_is_asked(
    first_batch_only: FirstBatchOnly, workspace: Path
) -> None:
    request = RunRequest(
        probe="scripted",
        probe_params=("n=8", "capability=image_generator"),
        models=(("scripted-images", ("batch_size=4", "max_concurrency=1")),),
    )
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=SIZE) as pilot:
        job = app.start_run(request)
        await wait_for(pilot, lambda: first_batch_only.calls > 1, "the second batch asked")
        await wait_for(pilot, lambda: job.run_id in run_ids(app), "the run in the table")
        assert job.run_id is not None
        with open_store(workspace) as store:
            assert store.status_counts(job.run_id)["done"] == 4
        panel = app.screen.query_one(JobsPanel)
        selected = app.screen.query_one("#selected", Static)
        told = re.compile(r"\b4/8 · (\d+\.\d)/s · ETA ")

        def both_told() -> bool:
            return all(told.search(_plain(w)) for w in (panel, selected))

        await wait_for(pilot, both_told, "4/8 with its rate", lambda: _plain(panel))
        for widget in (panel, selected):
            match = told.search(_plain(widget))
            assert match is not None and float(match.group(1)) > 0, _plain(widget)

"""The Runs list counts as the CLI does: ``1,720/1,720``, not ``1720/1720``; a failed trial
is counted apart, never as done."""

from __future__ import annotations

from diptych.core.digits import percent_text
from diptych.tui.formatting import percent
from diptych.tui.jobs import JobState, RunRequest
from diptych.tui.progress import Progress, run_progress


def test_a_runs_progress_separates_thousands() -> None:
    assert Progress(1720, 1720).count() == "1,720/1,720"
    assert Progress(38, 156).text() == "38/156"
    assert Progress(1476, 6560, rate=2.0).text().startswith("1,476/6,560 · 2.0/s · ETA ")


def test_a_run_whose_trials_failed_never_reads_complete() -> None:
    # The newcomer's failing server: every one of 12 trials failed, none done.
    failed = run_progress({"done": 0, "refused": 0, "failed": 12}, 12)
    assert failed == Progress(0, 12, failed=12)
    assert failed.text() == "0/12 · 12 failed" and failed.fraction() == 0.0
    assert percent(failed.done, failed.total) == percent_text(0.0) != "100.0%"
    some = run_progress({"done": 9, "refused": 1, "failed": 2}, 12)
    assert some.count() == "10/12 · 2 failed" and percent(some.done, some.total) == percent_text(
        10 / 12
    )
    # A job running here counts its failed trials apart too, and they leave no time to wait.
    job = JobState(id=1, request=RunRequest("pst-text"), total=12, cached=2)
    job.finished = {"done": 4, "failed": 6}
    assert run_progress(None, 0, job) == Progress(6, 12, None, 6)

"""The hostile-service drills: a Retry-After of an hour, 200s that cannot be used, SIGTERM."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from diptych.testing import FakeOpenAIServer
from diptych.testing.drills import bad_success_drill, retry_after_drill, sigterm_drill


def test_no_trial_waits_past_the_cap_and_a_resume_finishes_them(
    scripted: None, tmp_path: Path
) -> None:
    with FakeOpenAIServer(image_size=(16, 16)) as fake, Workspace.open(tmp_path / "ws") as ws:
        drill = retry_after_drill(ws, fake, trials=6, cap=1.0)
    assert drill.waited_past_cap == 0
    # Each of the three forms of an hour-long Retry-After failed a trial with the reason.
    assert drill.failed_with_reason == 3
    assert drill.statuses == ["interrupted", "interrupted", "interrupted", "complete"]
    assert drill.obeyed_under_cap and drill.unfinished == 0 and drill.ok


def test_unusable_answers_are_bought_again_only_within_the_allowance(
    scripted: None, tmp_path: Path
) -> None:
    with FakeOpenAIServer(image_size=(16, 16)) as fake, Workspace.open(tmp_path / "ws") as ws:
        drill = bad_success_drill(ws, fake, trials=10, paid_retries=2, deliberate=1)
    # 10 trials answered once each; request 1 twice more in the run (its allowance of 2) and
    # once more in the deliberate resume: 13 answers billed, 3 of them paid retries.
    assert (drill.delivered, drill.delivered_trials, drill.beyond_budget) == (13, 10, 0)
    assert drill.plain_resume_requests == 0
    assert drill.dry_run_to_run == drill.deliberate_requests == 1
    assert drill.outcomes == {"done": 6, "failed": 4}
    assert drill.miscounted == [] and drill.without_reason == 0 and drill.ok


@pytest.mark.parametrize("after_calls", [1, 12])
def test_sigterm_leaves_a_run_resumable_at_once(tmp_path: Path, after_calls: int) -> None:
    drill = sigterm_drill(tmp_path, after_calls, trials=24)
    assert drill.error == ""
    assert (drill.exit_code, drill.said_interrupted, drill.status) == (130, True, "interrupted")
    assert (drill.leases_left, drill.claims_left) == (0, 0)
    assert drill.resume_exit_code == 0 and drill.asked_again == [] and drill.unfinished == 0
    assert drill.integrity == "ok" and drill.resumable

"""20% of the service's answers are faults: the run completes and nothing is paid twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from diptych.testing import FakeOpenAIServer
from diptych.testing.drills import fault_drill
from diptych.testing.drills.faults import FAULT_KINDS


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_fifth_of_requests_failing_loses_and_repays_nothing(
    scripted: None, tmp_path: Path, seed: int
) -> None:
    with FakeOpenAIServer(image_size=(16, 16)) as fake, Workspace.open(tmp_path / "ws") as ws:
        drill = fault_drill(ws, fake, trials=60, rate=0.2, seed=seed)
    # Every trial ended done or refused (the content-policy prompts), each with its reason.
    assert drill.outcomes == {
        "done": 60 - drill.refusals,
        "refused": drill.refusals,
        "failed": 0,
        "pending": 0,
    }
    assert drill.without_reason == 0
    assert drill.paid_twice == []
    # A fifth of the requests that reached the fault injector failed.
    assert drill.faults_injected == pytest.approx(0.2 * (drill.requests - drill.refusals), abs=1)
    assert drill.ok


def test_every_fault_kind_is_drilled(scripted: None, tmp_path: Path) -> None:
    kinds: set[str] = set()
    for seed in range(3):
        with (
            FakeOpenAIServer(image_size=(16, 16)) as fake,
            Workspace.open(tmp_path / str(seed)) as ws,
        ):
            kinds |= set(fault_drill(ws, fake, trials=40, seed=seed).faults)
    assert kinds == set(FAULT_KINDS)

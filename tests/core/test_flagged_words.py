"""A run's review flags in words, as the terminal app's Runs line says them: people for a
probe that observes people, nothing for a text run with none flagged (it has no people)."""

from __future__ import annotations

import pytest

from diptych.core.store import RunRecord
from diptych.core.workspace import RunSummary


def summary(probe: str, flagged: int) -> RunSummary:
    run = RunRecord(
        id=f"{probe}-0663f62e", probe=probe, probe_version="1", params={}, models=[],
        fingerprint="f", status="complete", n_trials=4, diptych_version="0", created_at=0.0,
        updated_at=0.0,
    )  # fmt: skip
    counts = {"done": 4, "refused": 0, "failed": 0, "pending": 0}
    return RunSummary(run, counts, flagged)


@pytest.mark.parametrize(
    ("probe", "flagged", "words"),
    [
        ("pst-text", 0, ""),
        ("pst-text", 3, "3 flagged for review"),
        ("pst", 0, "0 people flagged"),
        ("pst", 1, "1 person flagged"),
        ("pst", 1200, "1,200 people flagged"),
        ("no-such-probe", 0, ""),
    ],
)
def test_flags_are_said_in_the_runs_own_terms(probe: str, flagged: int, words: str) -> None:
    assert summary(probe, flagged).flagged_words == words

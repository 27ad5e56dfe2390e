"""A finding on an interval named as not holding after its design's stop (an audit recorded
before looks kept every figure) states the value and interval only: no sentence says the
interval excludes or includes 0, and it claims no direction (docs/gates.md)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from diptych.core.audit.stopped import stopped_name
from diptych.core.report.verdict import _finding

FIGURE = "STS single (expected from P(he), P(she))"


def _part() -> Any:
    run = SimpleNamespace(probe="pst-text")
    return SimpleNamespace(
        id="pst-text-1", anchor="run-1", observation="prompt", models=[{"shown": "scripted"}],
        view=SimpleNamespace(run=run, model_ids=lambda: ["scripted"]),
    )  # fmt: skip


@pytest.mark.parametrize(("low", "high"), [(4.94, 38.1), (-4.94, 38.1)])
def test_an_interval_that_does_not_hold_after_the_stop_says_nothing_of_0(
    low: float, high: float
) -> None:
    named = stopped_name("look 1 of 10")
    number = {"value": 22.1, "ci_low": low, "ci_high": high, "interval_name": named, "n": 9}
    finding = _finding(_part(), FIGURE, number)
    assert finding is not None
    assert f"22.1, 95% interval ({named}): {low:g} to {high:g}" in finding.sentence.replace(
        "−", "-"
    ), finding.sentence
    assert "excludes 0" not in finding.sentence and "includes 0" not in finding.sentence
    assert (finding.excludes_zero, finding.direction) == (None, "not established")
    # The same interval held (the fixed-design one of a design read whole) does decide.
    held = _finding(_part(), FIGURE, {**number, "interval_name": None})
    assert held is not None and held.excludes_zero is (low > 0), held.sentence

"""The forecast of buying until decided simulates what the audit does once a simulated audit's
looks have spent their share of the level: the rest of the design at once, the next look the
complete design's. It says which way an assumed value decides.

The design: 8 × 8 identities, one observation a cell, 64 in 10 batches (⌈6.4·k⌉: 7, 13, 20, 26,
32, 39, 45, 52, 58, 64). The identities hold all the variance (nothing within a cell), so a
look's standard error hardly shrinks and the looks spend their share early."""

from __future__ import annotations

from typing import Any

import pytest

import diptych.core.audit.expected_spend as spend
from diptych.cli.plan_output import decided_words
from diptych.core.audit.expected_spend import ExpectedSpend
from diptych.core.audit.gates import GateRule
from diptych.core.metrics.uncertainty.components import Components
from diptych.core.metrics.uncertainty.precision import PlannedDesign

DESIGN = PlannedDesign("grid", ("masculine identity", "feminine identity"), (8, 8), 1, "ids")
COMPONENTS = Components(20.0, 20.0, 0.0, 5.0, "stated", 0.0)
RULE = GateRule("g", "p", "f", "below", 25.0)
BATCHES = [7, 13, 20, 26, 32, 39, 45, 52, 58, 64]


def _simulated(
    truth: float, monkeypatch: pytest.MonkeyPatch, components: Components = COMPONENTS
) -> tuple[ExpectedSpend, list[int]]:
    """The forecast at ``truth`` over 5 simulated audits, and the size of every look taken."""
    sizes: list[int] = []
    real = spend._figure

    def counted(design: Any, values: Any, *rest: Any) -> Any:
        sizes.append(int(values.size))
        return real(design, values, *rest)

    with monkeypatch.context() as patched:
        patched.setattr(spend, "_figure", counted)
        found = spend.expected_spend(DESIGN, components, RULE, truth, bounds=(-100.0, 100.0),
                                     batches=10, replicates=5)  # fmt: skip
    return found, sizes


def _audits(sizes: list[int]) -> list[list[int]]:
    """The looks, split into one list per simulated audit (each starts at the first batch)."""
    out: list[list[int]] = []
    for n in sizes:
        if n == BATCHES[0]:
            out.append([])
        out[-1].append(n)
    return out


def test_a_simulated_audit_past_the_cap_buys_the_rest_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found, sizes = _simulated(25.0, monkeypatch)
    audits = _audits(sizes)
    assert len(audits) == 5
    for looks in audits:
        # Equal batches up to where the share was spent, then the complete design at once.
        assert looks == [*BATCHES[: len(looks) - 1], 64]
    assert min(len(looks) for looks in audits) < len(BATCHES)
    # A look past the cap decides nothing: buying batch by batch to the end decides the same.
    monkeypatch.setattr(spend, "looks_share_spent", lambda fig: False)
    batch_by_batch, sizes = _simulated(25.0, monkeypatch)
    assert batch_by_batch == found
    assert all(looks == BATCHES for looks in _audits(sizes) if looks[-1] == 64)


def test_an_assumed_value_above_the_limit_decides_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    # Identities spread by 5 around 60, 35 above the limit: every simulated audit fails.
    found, _ = _simulated(60.0, monkeypatch, Components(5.0, 5.0, 0.0, 5.0, "stated", 0.0))
    assert (found.decided, found.failed, found.passed) == (1.0, 1.0, 0.0)
    assert decided_words(found) == "decided (fail) in 100.0% of 5 simulated audits"


def test_the_words_say_which_way_and_when() -> None:
    both = ExpectedSpend(20.0, 0.9, 0.01, 0.6, 200, failed=0.2, early=0.1)
    assert decided_words(both) == (
        "decided in 60.0% (pass 40.0%, fail 20.0%) of 200 simulated audits"
    )
    late = ExpectedSpend(20.0, 1.0, 0.0, 0.5, 200, failed=0.0, early=0.0)
    assert decided_words(late) == (
        "decided (pass) in 50.0% of 200 simulated audits, all at the whole design"
    )
    never = ExpectedSpend(25.0, 1.0, 0.0, 0.0, 200)
    assert decided_words(never) == "decided in 0.00% of 200 simulated audits"

"""The expected spend of buying until decided counts the requests stored before as bought at no
cost: the looks read them, and the share forecast is the one bought beyond them.

A design of 20 prompts whose figure is truly 0 with a spread of 1 between prompts, gated below
25, in 10 batches of 2: the first look of 2 prompts is too small to test (one interval needs
more), and the second, of 4, decides in every simulated audit."""

from __future__ import annotations

import pytest

from diptych.core.audit.expected_spend import expected_spend
from diptych.core.audit.gates import GateRule
from diptych.core.metrics.uncertainty.components import Components
from diptych.core.metrics.uncertainty.precision import PlannedDesign

DESIGN = PlannedDesign("clusters", ("prompts",), (20,), 1, "prompts")
SPREAD = Components(1.0, 0.0, 0.0, 0.0, "stated", 0.0)
RULE = GateRule("g", "p", "f", "below", 25.0)


def _share(truth: float = 0.0, **stored: object) -> tuple[float, float]:
    spend = expected_spend(DESIGN, SPREAD, RULE, truth, bounds=(-100.0, 100.0), batches=10,
                           replicates=20, **stored)  # type: ignore[arg-type]  # fmt: skip
    return spend.share, spend.decided


def test_from_an_empty_store_the_second_look_decides() -> None:
    # 4 of 20 prompts bought.
    assert _share() == (pytest.approx(0.2), 1.0)


def test_the_first_batch_stored_halves_what_is_bought() -> None:
    # 2 prompts stored are the first look, free; the second reads 4: 2 bought, 2/20.
    assert _share(stored=0.1) == (pytest.approx(0.1), 1.0)


def test_a_gate_decided_on_the_stored_buys_nothing() -> None:
    # Half stored: the first look reads those 10 prompts and decides.
    assert _share(stored=0.5) == (pytest.approx(0.0), 1.0)


def test_stored_outside_the_order_are_read_with_each_batch() -> None:
    """Half stored, but not the first of the purchase order: the first batch of 2 holds one
    stored prompt, so its look reads 11 prompts and decides, having bought 1 (1/20)."""
    reads = [0.55, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0]
    assert _share(stored=0.5, reads=reads) == (pytest.approx(0.05), 1.0)


def test_undecided_the_rest_of_the_design_is_bought_beyond_the_stored() -> None:
    """On the limit a gate is seldom decided: nearly all the design is bought, less the
    stored quarter, whatever the stored are."""
    whole, _ = _share(25.0)
    rest, _ = _share(25.0, stored=0.25)
    assert whole == pytest.approx(0.965, abs=0.04)
    assert rest == pytest.approx(0.75, abs=0.04)

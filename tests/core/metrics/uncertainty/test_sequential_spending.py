"""The anytime-valid interval of a figure looked at after every batch: the spending of the
level, the information fraction, and the interval and p-values made of the looks."""

from __future__ import annotations

import math

import pytest

from diptych.core.metrics.uncertainty.intervals import IntervalRecipe
from diptych.core.metrics.uncertainty.sequential import (
    FINAL_FLOOR,
    AnytimeInterval,
    information_fraction,
    pocock_spending,
    spending_shares,
)


def test_pocock_spending_runs_from_none_to_all_of_the_level() -> None:
    assert pocock_spending(0.0) == 0.0
    assert pocock_spending(1.0) == pytest.approx(1.0)
    # ln(1 + (e − 1)/2) = ln(1.85914...) worked out by hand.
    assert pocock_spending(0.5) == pytest.approx(0.620115, abs=1e-6)
    assert pocock_spending(1.7) == pytest.approx(1.0)  # past the design's end: all of it


def test_information_fraction_fits_what_more_trials_cannot_shrink() -> None:
    # V = A + B / f with A = 4 (the identities' part) and B = 1: V = 14 at a tenth, 9 at a
    # fifth, so the complete design's V is 5 and a fifth of it carries 5/9 of the information.
    assert information_fraction([0.1, 0.2], [14.0, 9.0]) == pytest.approx(5 / 9)
    # One look cannot tell A from B: the cautious A = 0, the information as the trials.
    assert information_fraction([0.3], [7.0]) == pytest.approx(0.3)
    # Nothing shrinks (the identities hold all the variance): all the information is in.
    assert information_fraction([0.1, 0.2], [5.0, 5.0]) == pytest.approx(1.0)
    # Pure sampling noise (A = 0): V = 1/f, and the fraction is the share of trials bought.
    assert information_fraction([0.1, 0.2, 0.4], [10.0, 5.0, 2.5]) == pytest.approx(0.4)
    # A variance that grew (noise in its estimate) gives no fraction above 1 nor below f.
    assert 0.2 <= information_fraction([0.1, 0.2], [4.0, 6.0]) <= 1.0
    assert information_fraction([0.5, 1.0], [3.0, 2.0]) == 1.0


def test_spending_shares_spend_by_information_and_all_at_the_end() -> None:
    shares = spending_shares([0.1, 0.2, 1.0], [14.0, 9.0, 5.0], final=True)
    # g(0.1), g(5/9) − g(0.1), 1 − g(5/9), with g(t) = ln(1 + (e − 1)t), by hand.
    assert shares == pytest.approx([0.158565, 0.511621, 0.329814], abs=1e-6)
    assert sum(shares) == pytest.approx(1.0)
    # A look without an interval spends nothing; the level it would have had stays unspent.
    assert spending_shares([0.1, 0.2], [None, 9.0]) == pytest.approx([0.0, pocock_spending(0.2)])
    # Without the final look the shares never reach the whole level.
    assert sum(spending_shares([0.1, 0.2, 0.3], [30.0, 15.0, 10.0])) < 1.0
    with pytest.raises(ValueError, match="one variance per look"):
        spending_shares([0.1], [1.0, 2.0])


def _normal(value: float, se: float) -> IntervalRecipe:
    return IntervalRecipe.t(value, se, math.inf)


def test_the_anytime_interval_is_the_intersection_at_each_looks_spent_level() -> None:
    looks = AnytimeInterval((_normal(10.0, 2.0), _normal(9.0, 1.5)), (0.5, 0.5))
    # Each look at one-sided 0.025 × 0.5: z = 2.241403; [5.5172, 14.4828] ∩ [5.6379, 12.3621].
    low, high = looks.interval(0.95)
    assert low == pytest.approx(5.637896, abs=1e-5)
    assert high == pytest.approx(12.362104, abs=1e-5)
    # p̃ = min_j p_j / w_j: Φ(−2.5)/0.5 = 0.012419 and Φ(−4)/0.5 = 6.334e-5.
    assert looks.p_below(15.0) == pytest.approx(6.334248e-5, rel=1e-5)
    # Shown above 5: the second look's 2·Φ(−4/1.5) = 0.0076608 beats the first's 2·Φ(−2.5).
    assert looks.p_above(5.0) == pytest.approx(0.0076608, rel=1e-4)
    # The interval and the p-values agree: below 12.5 is shown at 95%, below 12.3 is not.
    assert looks.p_below(12.5) < 0.025 < looks.p_below(12.3)


def test_one_look_spending_the_whole_level_is_the_fixed_interval() -> None:
    fixed = IntervalRecipe.t(20.0, 3.0, 19, bounds=(-100.0, 100.0))
    looks = AnytimeInterval((fixed,), (1.0,))
    assert looks.interval(0.95) == pytest.approx(fixed.interval(0.95))
    assert looks.p_below(30.0) == pytest.approx(fixed.p_below(30.0))


def test_looks_that_spend_nothing_say_nothing_and_shares_are_checked() -> None:
    silent = AnytimeInterval((_normal(1.0, 1.0),), (0.0,))
    assert silent.interval(0.95) == (-math.inf, math.inf)
    assert silent.p_below(100.0) == 1.0
    with pytest.raises(ValueError, match="sum to at most 1"):
        AnytimeInterval((_normal(1.0, 1.0), _normal(1.0, 1.0)), (0.7, 0.7))


def test_a_look_whose_se_did_not_shrink_leaves_the_complete_design_its_floor() -> None:
    # Variances that never shrink read as all the information in hand at look 2 (t = 1); the
    # partial looks together spend at most 1 − floor, so the complete design keeps the floor.
    # By hand, floor 0.25: g(0.1) = ln(1.171828) = 0.158565; look 2 up to 0.75.
    shares = spending_shares([0.1, 0.2, 1.0], [1.0, 1.0, 1.0], final=True, floor=0.25)
    assert shares == pytest.approx([0.158565, 0.591435, 0.25], abs=1e-6)
    assert sum(shares) == pytest.approx(1.0)
    # Floor 0.1: look 2 up to 0.9, the complete design 0.1.
    shares = spending_shares([0.1, 0.2, 1.0], [1.0, 1.0, 1.0], final=True, floor=0.1)
    assert shares == pytest.approx([0.158565, 0.741435, 0.1], abs=1e-6)
    # Before the complete design is reached, the partial looks have spent 1 − floor at most.
    assert sum(spending_shares([0.1, 0.2, 0.3], [1.0, 1.0, 1.0], floor=0.25)) == pytest.approx(0.75)


def test_the_floor_leaves_a_first_look_its_pocock_share() -> None:
    # A first look spends g(f) as before: ln(1 + (e − 1)·0.3) = ln(1.515485) = 0.415735.
    assert spending_shares([0.3], [7.0], floor=0.25) == pytest.approx([0.415735], abs=1e-6)
    # Only a first look past g⁻¹(1 − floor) is held to 1 − floor: g(0.9) = 0.934702 > 0.75.
    assert spending_shares([0.9], [7.0], floor=0.25) == pytest.approx([0.75])
    # The default floor leaves the complete design of never-shrinking looks that floor.
    shares = spending_shares([0.1, 0.2, 1.0], [1.0, 1.0, 1.0], final=True)
    assert shares[-1] == pytest.approx(FINAL_FLOOR)
    with pytest.raises(ValueError, match="floor"):
        spending_shares([0.1], [1.0], floor=1.0)

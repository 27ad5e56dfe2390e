"""What a look must hold to be tested: too few units, a zero-width interval or none skip it (it
spends nothing, and a gate with no tested look is undecided, never an error); a percentile look
is read as the t interval of its units; and the complete design read after some looks is the
last look of the same spending plan."""

from __future__ import annotations

import math

import pytest

from diptych.core.audit.gates import GateFigure, GateRule, evaluate_gates
from diptych.core.audit.sequential import Look, anytime_figure, look_interval
from diptych.core.metrics.uncertainty.intervals import STS_RANGE, IntervalRecipe, percentile_number
from diptych.core.metrics.uncertainty.precision import LOOK_MIN_UNITS
from diptych.core.metrics.uncertainty.sequential import AnytimeInterval, pocock_spending

BELOW_50 = GateRule("g", "p", "f", "below", 50.0)


def _percentile(value: float, replicates: list[float], images: int) -> GateFigure:
    """A story-mode figure as its number carries it: percentile over images, STS range."""
    number = percentile_number(value, replicates, 0.95, n=2 * images, bounds=STS_RANGE,
                               units={"image": images})  # fmt: skip
    fig = GateFigure.from_number(number)
    assert isinstance(fig, GateFigure)
    return fig


def _t(value: float, se: float, units: int) -> GateFigure:
    recipe = IntervalRecipe.t(value, se, 30.0, bounds=STS_RANGE)
    counts = {"masculine identity": units, "feminine identity": units}
    return GateFigure(value, se, 30.0, "t", 4 * units * units, recipe, counts)


def test_the_first_looks_of_a_story_audit_decide_nothing() -> None:
    # One story of two persons, one stereotyped: STS 0, and every replicate 0 — the interval
    # [0, 0] that passed "below 50" after 1 of 18 requests. Two stories both stereotyped:
    # [100, 100], which failed it.
    one = _percentile(0.0, [0.0] * 2000, 1)
    two = _percentile(100.0, [100.0] * 2000, 2)
    assert one.interval(0.95) == (0.0, 0.0) and two.interval(0.95) == (100.0, 100.0)
    assert look_interval(one) is None and look_interval(two) is None
    fig = anytime_figure([(Look(1, 1, 18, {}), one), (Look(2, 2, 18, {}), two)])
    assert fig is not None and fig.value == 100.0 and "none is tested" in fig.method
    (result,) = evaluate_gates([BELOW_50], {("p", "f", "below"): fig})
    assert result.verdict == "inconclusive"
    assert (result.ci_low, result.ci_high) == (-math.inf, math.inf)


def test_a_percentile_look_is_read_as_the_t_interval_of_its_units() -> None:
    fig = _percentile(5.0, [-10.0, 0.0, 10.0, 20.0], 4)
    made = look_interval(fig)
    assert made is not None and made.method == "t" and made.bounds == STS_RANGE
    # The replicates' SD, sqrt(500/3), made unbiased by sqrt(4/3); 4 images less one df.
    assert made.se == pytest.approx(math.sqrt(500.0 / 3.0 * 4.0 / 3.0))
    assert made.df == 3.0
    # Three images is the least a look may hold; all of them one value off a bound is no
    # spread at all.
    assert LOOK_MIN_UNITS == 3
    assert look_interval(_percentile(5.0, [-10.0, 0.0, 10.0, 20.0], 2)) is None
    assert look_interval(_percentile(0.0, [0.0] * 100, 5)) is None


def test_a_look_at_a_bound_keeps_its_open_clopper_pearson_end() -> None:
    fig = _percentile(100.0, [100.0] * 100, 5)
    made = look_interval(fig)
    assert made is not None
    low, high = made.interval(0.95)
    # Clopper–Pearson of 5 in 5 with the size shrunk by (z / t_4)²: never a zero width.
    from scipy.stats import norm, t

    effective = 5 * (norm.ppf(0.975) / t.ppf(0.975, 4)) ** 2
    assert high == 100.0
    assert low == pytest.approx(-100.0 + 200.0 * 0.025 ** (1.0 / effective), rel=1e-9)


def test_a_look_with_too_few_identities_on_a_side_spends_nothing() -> None:
    few, enough = _t(10.0, 4.0, 2), _t(10.0, 4.0, 3)
    assert look_interval(few) is None and look_interval(enough) is not None
    fig = anytime_figure([(Look(1, 1, 10, {}), few), (Look(2, 5, 10, {}), enough)])
    assert fig is not None and isinstance(fig.recipe, AnytimeInterval)
    assert fig.recipe.shares[0] == 0.0
    # The first tested look spends as a first look would: g(f) at its share of the design.
    assert fig.recipe.shares[1] == pytest.approx(pocock_spending(0.5))


def test_the_complete_design_read_after_five_looks_spends_what_is_left() -> None:
    looks = [(Look(k, 10 * k, 100, {}), _t(30.0, 10.0 / math.sqrt(k), 4)) for k in range(1, 6)]
    peeked = anytime_figure(looks)
    assert peeked is not None and isinstance(peeked.recipe, AnytimeInterval)
    assert peeked.recipe.spent < 1.0
    whole = anytime_figure([*looks, (Look(10, 100, 100, {}), _t(30.0, 10.0 / math.sqrt(10), 4))])
    assert whole is not None and isinstance(whole.recipe, AnytimeInterval)
    assert whole.recipe.shares[:5] == peeked.recipe.shares
    assert whole.recipe.spent == pytest.approx(1.0)
    assert whole.recipe.shares[5] == pytest.approx(1.0 - peeked.recipe.spent)
    # So its interval is wider than the complete design's fixed one at the full level.
    fixed = _t(30.0, 10.0 / math.sqrt(10), 4).interval(0.95)
    low, high = whole.interval(0.95)
    assert high - low > 0 and high >= fixed[1] - 1e-9


def test_a_share_too_small_to_tell_from_zero_is_no_interval() -> None:
    recipe = IntervalRecipe.t(0.0, 1.0, math.inf)
    anytime = AnytimeInterval((recipe, recipe), (1e-18, 0.5))
    low, high = anytime.interval(0.95)
    assert (low, high) == pytest.approx(recipe.interval(1 - 0.05 * 0.5))

"""Intervals inside the figure's range, made again at any level from what a number carries:
numbers worked out by hand on tiny designs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from support.bounded import logit_t, open_end_at_bound

from diptych.core.metrics.correction import jeffreys_interval
from diptych.core.metrics.uncertainty.bootstrap import percentile_interval
from diptych.core.metrics.uncertainty.intervals import (
    STS_RANGE,
    IntervalRecipe,
    decode_replicates,
    encode_replicates,
    percentile_number,
)
from diptych.core.metrics.uncertainty.resampling import mean_over_units

# Three images of two persons each, Stereo +1 +1 | +1 −1 | +1 +1: STS 66.7 over 3 images.
VALUES = [1, 1, 1, -1, 1, 1]
IMAGES = [0, 0, 1, 1, 2, 2]


def test_a_tiny_design_gets_an_interval_inside_the_sts_range() -> None:
    # Image sums (2, 0, 2), counts 2: z = s − r·n = (2/3, −4/3, 2/3), Σz² = 24/9, times
    # G/(G − 1) = 3/2 over N² = 36: variance 1/9, se 1/3 (× 100 = 33.33) on 2 df.
    plain = mean_over_units(VALUES, {"image": IMAGES}, scale=100.0)
    assert (plain.value, plain.se, plain.df) == (pytest.approx(200 / 3), pytest.approx(100 / 3), 2)
    # The plain t interval, 66.67 ± 4.303·33.33, runs from −76.76 to 210.09: past +100.
    assert (plain.ci_low, plain.ci_high) == pytest.approx((-76.755, 210.088), abs=1e-3)
    bounded = mean_over_units(VALUES, {"image": IMAGES}, scale=100.0, bounds=STS_RANGE)
    # On the logit scale of [−100, 100]: p = 166.67/200 = 5/6, u = ln 5 = 1.6094, se_u =
    # 33.33 / (200 · 5/6 · 1/6) = 1.2; u ± 4.3027 · 1.2 = [−3.5539, 6.7727], mapped back by
    # −100 + 200·expit(·): [−94.44, 99.77].
    assert (bounded.ci_low, bounded.ci_high) == pytest.approx((-94.436, 99.771), abs=1e-3)
    assert (bounded.ci_low, bounded.ci_high) == pytest.approx(
        logit_t(200 / 3, 100 / 3, 2, -100, 100)
    )
    # The test is the t-test on that scale: t = ln 5 / 1.2 = 1.341 on 2 df.
    assert bounded.p_value == pytest.approx(2 * stats.t.sf(math.log(5) / 1.2, 2))
    assert bounded.to_dict()["range"] == [-100.0, 100.0]
    assert bounded.to_dict()["transform"] == "logit"


def test_a_figure_at_its_bound_gets_the_clopper_pearson_end() -> None:
    # Every person stereotyped: 100 with nothing varying. The open end is Clopper–Pearson's
    # for 6 of 6 on 2 df: effective size 6·(1.96/4.303)² = 1.245, 0.025^(1/1.245) = 0.0517
    # of the way up the range: −100 + 200·0.0517 = −89.67.
    at = mean_over_units([1] * 6, {"image": IMAGES}, scale=100.0, bounds=STS_RANGE)
    assert (at.value, at.se, at.ci_high) == (100.0, 0.0, 100.0)
    assert at.ci_low == pytest.approx(-89.666, abs=1e-3)
    assert at.ci_low == pytest.approx(open_end_at_bound(6, 2, -100, 100, at_high=True))
    # Its p is the level at which the interval reaches 0: the two agree.
    assert at.p_value > 0.05
    low, _ = at.recipe().interval(1 - at.p_value)
    assert low == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("value", [-99.0, -60.0, 0.0, 35.0, 97.5])
def test_every_level_stays_in_range_and_the_test_agrees_with_the_interval(value: float) -> None:
    recipe = IntervalRecipe.t(value, 30.0, 2.0, bounds=STS_RANGE)
    for confidence in (0.5, 0.9, 0.95, 0.999):
        low, high = recipe.interval(confidence)
        assert -100 <= low <= value <= high <= 100
    for null in (-50.0, 0.0, 50.0):
        p = recipe.p_value(null)
        low, high = recipe.interval(0.95)
        assert (low > null or high < null) == (p < 0.05)


def test_the_percentile_recipe_keeps_its_replicates_and_makes_any_level() -> None:
    rng = np.random.default_rng(4)
    reps = rng.normal(40.0, 10.0, 2000)
    number = percentile_number(41.0, reps, 0.95, n=30, bounds=STS_RANGE, units={"image": 30})
    # The number prints the percentile interval of its replicates, and keeps them (sorted, as
    # text: nothing reading the numbers mistakes a replicate for a figure).
    assert (number["ci_low"], number["ci_high"]) == percentile_interval(reps, 0.95)
    assert isinstance(number["replicates"], str) and number["n_boot"] == 2000
    assert np.array_equal(decode_replicates(number["replicates"]), np.sort(reps))
    assert decode_replicates(encode_replicates([3.0, float("nan"), 1.0])).tolist() == [1.0, 3.0]
    recipe = IntervalRecipe.from_number(number)
    assert isinstance(recipe, IntervalRecipe) and recipe.method == "percentile"
    for confidence in (0.9, 0.95, 0.99, 0.9983):
        assert recipe.interval(confidence) == percentile_interval(reps, confidence)
    # The one-sided p of "below 65": the level at which the upper end reaches 65.
    p = recipe.p_below(65.0)
    assert p == pytest.approx(float((reps >= 65.0).mean()), abs=1e-3)
    assert recipe.bound("high", p * 1.001) < 65.0 < recipe.bound("high", p * 0.999)


def test_a_count_a_printed_interval_and_a_plain_t() -> None:
    jeffreys = IntervalRecipe.from_number(
        {"value": 0.0, "ci_low": 0.0, "ci_high": 0.129, "n": 18, "count": 0,
         "interval_method": "jeffreys"}
    )  # fmt: skip
    assert isinstance(jeffreys, IntervalRecipe)
    assert jeffreys.interval(0.99) == jeffreys_interval(0, 18, 0.99)
    # A figure that states only a 95% interval: each side scaled by the normal quantile.
    printed = IntervalRecipe.from_number({"value": 10.0, "ci_low": 6.0, "ci_high": 18.0})
    assert isinstance(printed, IntervalRecipe) and printed.method == "printed"
    assert printed.interval(0.95) == pytest.approx((6.0, 18.0))
    k = stats.norm.ppf(0.995) / stats.norm.ppf(0.975)
    assert printed.interval(0.99) == pytest.approx((10 - 4 * k, 10 + 8 * k))
    plain = IntervalRecipe.from_number(
        {"value": 2.0, "se": 1.0, "df": 9, "ci_low": 0, "ci_high": 4}
    )
    assert isinstance(plain, IntervalRecipe) and plain.description == "t"
    q = stats.t.ppf(0.975, 9)
    assert plain.interval(0.95) == pytest.approx((2 - q, 2 + q))
    assert IntervalRecipe.from_number({"value": 1.0}) == "the figure has no interval"


def test_an_inference_made_again_at_another_level() -> None:
    inf = mean_over_units(VALUES, {"image": IMAGES}, scale=100.0, bounds=STS_RANGE)
    recipe = IntervalRecipe.from_number(inf.to_dict())
    assert isinstance(recipe, IntervalRecipe)
    assert recipe.interval(0.95) == pytest.approx((inf.ci_low, inf.ci_high))
    assert recipe.interval(0.99) == pytest.approx(inf.at_level(0.99))
    assert inf.at_level(0.99) == pytest.approx(logit_t(200 / 3, 100 / 3, 2, -100, 100, 0.99))


def test_the_pst_headline_over_3_x_3_identities_stays_inside_the_range() -> None:
    from diptych.core.metrics.sts import LabelRow, stereotype_test_score

    # 3 × 3 identities, one image a scene: m_i's person is perceived as masculine with i + 1
    # of its 3 partners, every feminine-stereotyped person as feminine; the STS over
    # identities has 2 df.
    rows = []
    for i in range(3):
        for j in range(3):
            image = f"m{i}-f{j}"
            masc = "masculine" if j <= i else "feminine"
            rows.append(LabelRow(image, "paired", "left", f"m{i}", "masculine", masc))  # type: ignore[arg-type]
            rows.append(LabelRow(image, "paired", "right", f"f{j}", "feminine", "feminine"))  # type: ignore[arg-type]
    sts = stereotype_test_score(rows, n_boot=200, seed=1)
    inf = (sts.over_identities or {})["paired"]
    # 6 of 9 masculine persons and 9 of 9 feminine ones stereotyped: (15 − 3)/18 = 66.7.
    assert inf.value == pytest.approx(200 / 3) and inf.df == 2
    plain = stats.t.ppf(0.975, 2) * inf.se
    assert inf.value + plain > 100  # the interval the report used to print left the range
    assert (inf.ci_low, inf.ci_high) == pytest.approx(logit_t(inf.value, inf.se, 2, -100, 100))
    assert -100 < inf.ci_low < inf.value < inf.ci_high < 100
    number = inf.to_dict()
    assert number["range"] == [-100.0, 100.0] and number["interval_method"] == "t"

"""Counterfactual retrieval's intervals stay inside each figure's range, worked by hand where a
figure sits at its bound: the Clopper–Pearson end on the units, [0, 0] for a figure that cannot
vary, the whole range where the permutations say nothing; and a gate reading a number's JSON
makes the interval printed."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from diptych.core.metrics.retrieval.intervals import (
    excess_over_units,
    figure_ranges,
    permutation_p,
    widened_by_permutation,
)
from diptych.core.metrics.retrieval.metrics import QueryRanking, RankedItem, retrieval_metrics
from diptych.core.metrics.uncertainty.intervals import IntervalRecipe
from diptych.core.metrics.uncertainty.resampling import Inference

LN2, LN4 = math.log(2), math.log(4)
GROUPS = ("Black_female", "Black_male", "White_female", "White_male")
#: Normal and t(3) 97.5% quantiles.
Z, T3 = 1.959963984540054, 3.182446305284263


def _gate_interval(number: Inference) -> tuple[float, float]:
    """The interval a gate makes from the number as the report's JSON carries it."""
    recipe = IntervalRecipe.from_number(json.loads(json.dumps(number.to_dict())))
    assert not isinstance(recipe, str), recipe
    return recipe.interval(number.confidence)


def test_the_ranges_by_hand() -> None:
    # Shares 1/2, 1/4, 1/4 at K = 3: a top 3 of one quarter group has skew ln 4, the most; a
    # present group holds at least 1 of 3, so MinSkew@3 ≥ ln(1 / (3 · 1/2)) = ln(2/3).
    ranges = figure_ranges([0.5, 0.25, 0.25], 3)
    assert ranges["max_skew"] == (0.0, pytest.approx(LN4))
    assert ranges["ndkl"] == (0.0, pytest.approx(LN4))
    assert ranges["min_skew"] == (pytest.approx(math.log(2 / 3)), 0.0)
    assert ranges["bias"] == (-1.0, 1.0) and ranges["abs_bias"] == (0.0, 1.0)
    assert ranges["sc_ndkl"] == (-math.inf, math.inf)
    # Four equal groups at K = 4: K · p_max = 1, so MinSkew@4 is 0 for every ranking.
    assert figure_ranges([0.25] * 4, 4)["min_skew"] == (0.0, 0.0)


def _split_sets(query: int) -> QueryRanking:
    """A query whose top 4 takes two images of set A (Black_female, Black_male) and two of
    set B (White_female, White_male): every group once, so MaxSkew@4 = 0, while the within-set
    null draws 2 of A's 4 groups and 2 of B's, disjoint only 1 time in C(4, 2) = 6; any overlap
    leaves a group twice (share 1/2 of a desired 1/4): E[MaxSkew@4] = 5/6 · ln 2."""
    # (set, group) best first: A's two Black images, B's two White ones, then the rest.
    order = [("A", 0), ("A", 1), ("B", 2), ("B", 3), ("A", 2), ("A", 3), ("B", 0), ("B", 1)]
    ranked = []
    for name, code in order:
        g, s = GROUPS[code], f"q{query}{name}"
        ranked.append(RankedItem(f"{s}/{g}", g, g.split("_")[1], None, s))
    return QueryRanking(f"q{query}", ranked, f"u{query}")


def test_every_maxskew_at_its_bound_gives_the_clopper_pearson_end_on_the_units() -> None:
    result = retrieval_metrics([_split_sets(q) for q in range(4)], 4, "pool", n_perm=200)
    assert not result.shared_pools
    skew = result.figures["max_skew"]
    null = 5 / 6 * LN2
    assert skew.expected == pytest.approx(null)
    assert [q.max_skew for q in result.queries] == [0.0] * 4
    # The mean is at its bound 0 (never a rounding inside it) and the excess at 0 − null.
    assert skew.mean.value == 0.0 and skew.mean.ci_low == 0.0
    assert skew.excess.value == pytest.approx(-null) and skew.excess.ci_low == skew.excess.value
    # The open end: Clopper–Pearson for 0 of n with n the 4 occupations shrunk by their 3
    # degrees of freedom, n = 4·(z/t(3))² = 1.5172; the upper end of P(figure > 0) is
    # 1 − 0.025^(1/1.5172) = 0.91207, of the mean ln 4 times that (MaxSkew@4 ≤ ln 4).
    n_eff = 4 * (Z / T3) ** 2
    assert n_eff == pytest.approx(1.5172, abs=1e-4)
    upper = LN4 * (1 - 0.025 ** (1 / n_eff))
    assert upper == pytest.approx(1.2644, abs=1e-4)
    assert skew.mean.ci_high == pytest.approx(upper, rel=1e-9)
    # The excess's range is the mean's less the null, and its interval the mean's less it.
    assert skew.excess.bounds == (pytest.approx(-null), pytest.approx(LN4 - null))
    assert skew.excess.ci_high == pytest.approx(upper - null, rel=1e-9)
    # 4 occupations cannot tell 0 from 0.578: the interval holds the null, p above 0.05.
    assert skew.excess.ci_low < 0 < skew.excess.ci_high and skew.excess.p_value > 0.05
    assert skew.excess.bound_n == 4
    # What the JSON carries makes the same interval again (a gate's road), the finite ends
    # written as numbers.
    assert _gate_interval(skew.mean) == pytest.approx((0.0, upper), rel=1e-9)
    assert _gate_interval(skew.excess) == pytest.approx((-null, upper - null), rel=1e-9)
    dumped = json.dumps(result.to_dict())
    assert "inf" not in json.dumps(result.to_dict()["figures"]["max_skew"]["mean"])
    assert '"bound_n": 4' in dumped
    # The sets hold each group once, so every top 4 has 2 men and 2 women: Bias@4 = 0 in
    # every query and under every permutation — no spread, yet 4 occupations cannot show that
    # others would agree: an interval open on both sides of 0, never the point; p = 1;
    # |Bias@4| is at its bound 0 with the Clopper–Pearson end on [0, 1].
    bias = result.figures["bias"]
    assert bias.excess.value == 0.0 and bias.excess.ci_low < 0.0 < bias.excess.ci_high
    assert bias.excess.p_value == 1.0
    # Bias@4's mean is 0 in [−1, 1] with no spread over the occupations: both ends open by
    # the share Clopper–Pearson allows for none of them differing (|Bias@4|'s open end below).
    share = 1 - 0.025 ** (1 / n_eff)
    assert (bias.mean.ci_low, bias.mean.ci_high) == pytest.approx((-share, share), rel=1e-9)
    absolute = result.figures["abs_bias"]
    assert (absolute.mean.value, absolute.mean.ci_low) == (0.0, 0.0)
    assert absolute.mean.ci_high == pytest.approx(1 - 0.025 ** (1 / n_eff), rel=1e-9)


def test_a_figure_that_cannot_vary_gives_zero_zero() -> None:
    # Four equal groups at K = 4: MinSkew@4 (an absent group's skew 0) is 0 for every ranking
    # and every permutation. Its excess and mean are 0 with the interval [0, 0], p = 1 — not
    # "-inf" from the logit of a range of one point.
    result = retrieval_metrics([_split_sets(q) for q in range(4)], 4, "pool", n_perm=50)
    low = result.figures["min_skew"]
    for number in (low.excess, low.mean):
        assert (number.value, number.ci_low, number.ci_high, number.p_value) == (0, 0, 0, 1)
        assert _gate_interval(number) == (0.0, 0.0)


def test_every_bias_at_plus_one_gives_the_lower_end_by_hand() -> None:
    # Three occupations whose top 2 are two men each: Bias@2 = +1 for all, the upper bound of
    # [−1, 1]. Clopper–Pearson for 3 of 3 with n = 3·(z/t(2))² = 3·(1.95996/4.30265)² = 0.6225:
    # P(man) ≥ 0.025^(1/0.6225) = 0.0026696, so Bias ≥ −1 + 2·0.0026696 = −0.99466.
    rankings = []
    for q in range(3):
        ranked = [RankedItem(f"{q}m{i}", "man", "male") for i in range(2)]
        ranked += [RankedItem(f"{q}w{i}", "woman", "female") for i in range(2)]
        rankings.append(QueryRanking(f"q{q}", ranked, f"u{q}"))
    result = retrieval_metrics(rankings, 2, "pool", n_perm=50)
    bias = result.figures["bias"]
    t2 = 4.302652729911275
    n_eff = 3 * (Z / t2) ** 2
    assert n_eff == pytest.approx(0.6225, abs=1e-4)
    low = -1 + 2 * 0.025 ** (1 / n_eff)
    assert low == pytest.approx(-0.99466, abs=1e-5)
    assert (bias.mean.value, bias.mean.ci_high) == (1.0, 1.0)
    assert bias.mean.ci_low == pytest.approx(low, rel=1e-9)
    assert _gate_interval(bias.mean) == pytest.approx((low, 1.0), rel=1e-9)
    # Each query's null is 0 (a random ranking of 2 men and 2 women): excess = mean.
    assert bias.excess.value == pytest.approx(1.0) and bias.excess.bounds == (-1.0, 1.0)


def test_the_interval_near_the_bound_is_made_on_the_logit_scale() -> None:
    # Two occupations, MaxSkew@K of 0.1 and 0.3 (range [0, ln 4]), null 0: mean 0.2, se of
    # the mean of two = |0.3 − 0.1| / 2 = 0.1, df 1. On the logit of p = x / ln 4:
    # p = 0.14427, logit p = −1.78027, se_u = 0.1 / (ln 4 · p (1 − p)) = 0.58430, ends
    # ln 4 · expit(−1.78027 ∓ 12.7062 · 0.58430) = 0.000139 and 1.38141 — inside [0, ln 4],
    # where the t interval 0.2 ± 1.2706 would reach −1.07.
    out = excess_over_units([0.1, 0.3], [0.0, 0.0], [(0.0, LN4)] * 2, {"occupation": ["a", "b"]})
    p = 0.2 / LN4
    se_u = 0.1 / (LN4 * p * (1 - p))
    assert se_u == pytest.approx(0.58430, abs=1e-5)
    t1 = 12.706204736174698
    logit = math.log(p / (1 - p))
    ends = [LN4 / (1 + math.exp(-(logit + s * t1 * se_u))) for s in (-1, 1)]
    assert (out.ci_low, out.ci_high) == pytest.approx(ends, rel=1e-9)
    assert ends == pytest.approx([0.000139, 1.38141], abs=1e-5)


def test_units_sharing_a_pool_widen_on_the_logit_scale_and_gates_read_it() -> None:
    # 20 occupations, excess 0.3 (mean 0.8 in [0, 1.5], null 0.5) with a narrow interval of
    # their own; 39 permutation means, 38 at the null and one at 0.12. With 39, p < 0.05 needs
    # no permutation as far as the observed: h is the farthest deviation, |0.12 − 0.5| = 0.38.
    units = excess_over_units(
        [0.79, 0.81] * 10, [0.5] * 20, [(0.0, 1.5)] * 20, {"occupation": list(range(20))}
    )
    reps = np.asarray([0.5] * 38 + [0.12])
    p = permutation_p(units, reps, 0.5)
    assert p == pytest.approx(2 / 40)  # itself and the one at 0.38: not below 0.05
    out = widened_by_permutation(units, reps, 0.5, p, moved=("counterfactual set", 10))
    # Carried to the logit of the excess's place in [−0.5, 1]: g(0.3) = logit(0.8/1.5) =
    # 0.13353, g(0) = logit(1/3) = −0.69315; the slope between them 0.82668 / 0.3 = 2.75560
    # scales h to 0.38 · 2.75560 = 1.04713, and 0.13353 ± 1.04713 maps back to
    # 1.5 · expit(−0.91359) − 0.5 = −0.07060 and 1.5 · expit(1.18066) − 0.5 = 0.64760: the
    # null inside, as |0.3| < 0.38 says, and both ends inside the range.
    assert (out.ci_low, out.ci_high) == pytest.approx((-0.07060, 0.64760), abs=1e-5)
    assert out.p_value == pytest.approx(max(units.p_value, p))
    assert out.df == 38 and out.units == {"occupation": 20, "counterfactual set": 10}
    # The number's se makes exactly this interval again at its level.
    assert _gate_interval(out) == pytest.approx((out.ci_low, out.ci_high), rel=1e-9)


def test_a_tie_with_the_permutation_limit_reaches_the_null_exactly() -> None:
    # The observed excess 0.38 − rounding ties with h = 0.38: not significant, and the
    # interval's lower end is the null itself, on the bounded scale too.
    units = excess_over_units(
        [0.87999999999999, 0.88000000000001] * 10, [0.5] * 20, [(0.0, 1.5)] * 20,
        {"occupation": list(range(20))},
    )  # fmt: skip
    reps = np.asarray([0.5] * 38 + [0.12])
    p = permutation_p(units, reps, 0.5)
    out = widened_by_permutation(units, reps, 0.5, p, moved=("counterfactual set", 10))
    assert out.ci_low == 0.0 and p == pytest.approx(2 / 40)


def test_an_excess_at_its_bound_keeps_the_units_interval_or_the_whole_range() -> None:
    # Every query's figure 0 (the bound) against a null of 0.25: the excess −0.25 sits at the
    # bound of its range [−0.25, 0.75]. Its units' interval is Clopper–Pearson's on the 10
    # occupations: upper end 1 − 0.025^(1/(10·(z/t(9))²)).
    units = excess_over_units([0.0] * 10, [0.25] * 10, [(0.0, 1.0)] * 10,
                              {"occupation": list(range(10))})  # fmt: skip
    t9 = 2.2621571627409915
    upper = 1 - 0.025 ** (1 / (10 * (Z / t9) ** 2))
    assert (units.ci_low, units.ci_high) == pytest.approx((-0.25, upper - 0.25), rel=1e-9)
    # Permutations within 0.1 of the null: 0.25 is beyond them all, the test rejects, and
    # the permutation adds only the bound itself.
    near = np.asarray([0.25 + 0.1 * math.sin(i) for i in range(39)])
    p = permutation_p(units, near, 0.25)
    assert p == pytest.approx(1 / 40)
    out = widened_by_permutation(units, near, 0.25, p, moved=("counterfactual set", 4))
    assert (out.ci_low, out.ci_high) == (units.ci_low, units.ci_high)
    # One permutation 0.3 from the null: 0.25 is not beyond it, the test cannot reject, and
    # the interval is the whole range — finite, and what a gate reading the JSON makes.
    far = np.asarray([0.25] * 38 + [0.55])
    p = permutation_p(units, far, 0.25)
    out = widened_by_permutation(units, far, 0.25, p, moved=("counterfactual set", 4))
    assert (out.ci_low, out.ci_high) == pytest.approx((-0.25, 0.75))
    assert out.reason is None and out.se == math.inf and out.p_value >= 0.05
    assert _gate_interval(out) == pytest.approx((-0.25, 0.75))

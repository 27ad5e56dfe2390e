"""The STS tables' intervals at and near their bounds: never of zero width from a finite
sample, inside the range, and at a bound the Clopper–Pearson end worked out by hand."""

from __future__ import annotations

import json
import math

import pytest
from scipy.stats import norm
from scipy.stats import t as student_t

from diptych.core.metrics.sts import LabelRow, stereotype_test_score
from diptych.core.metrics.uncertainty.cluster_interval import difference_interval
from diptych.core.metrics.uncertainty.intervals import IntervalRecipe
from diptych.plugins.probes._paired_stereotype_test.scoring import setting_gap

OTHER = {"masculine": "feminine", "feminine": "masculine"}


def open_end(images: int, confidence: float = 0.95) -> float:
    """The lower end of the exact (Clopper–Pearson) binomial interval at x = n of n images, at
    one-sided level α: Beta(n, 1)'s α quantile, α^(1/n), in closed form. The images are the
    independent draws, so it is not shrunk for a design."""
    alpha = (1 - confidence) / 2
    return float(alpha ** (1 / images))


def two_by_two(*, always: str) -> list[LabelRow]:
    """carpenter, driver × nurse, editor, both orders, one image each, plus three single
    images per identity; every person labelled ``always`` (a model that says "he" to
    everything: masculine identities +100, feminine −100)."""
    rows = []
    for m in ("carpenter", "driver"):
        for f in ("nurse", "editor"):
            for order, people in enumerate(((m, f), (f, m))):
                for position, identity in zip(("left", "right"), people, strict=True):
                    st = "masculine" if identity == m else "feminine"
                    rows.append(
                        LabelRow(f"{m}-{f}-{order}", "paired", position, identity, st, always)  # type: ignore[arg-type]
                    )
    for identity, st in (("carpenter", "masculine"), ("driver", "masculine"),
                         ("nurse", "feminine"), ("editor", "feminine")):  # fmt: skip
        for k in range(3):
            rows.append(LabelRow(f"{identity}-{k}", "single", "single", identity, st, always))  # type: ignore[arg-type]
    return rows


def test_a_micro_sts_at_its_bound_has_the_clopper_pearson_end() -> None:
    sts = stereotype_test_score(two_by_two(always="masculine"))
    editor = sts.micro["editor"]
    # Four paired images, each with one editor read as a man: −100 over four images.
    assert (editor.paired, editor.n_paired) == (-100.0, 4)
    assert editor.paired_ci is not None
    low, high = editor.paired_ci
    assert low == -100.0
    assert high == pytest.approx(-100 + 200 * (1 - open_end(4)), rel=1e-9)
    # Worked out: 0.025^(1/4) = 0.3976, so at most 60.2% of such images could show an editor
    # as a woman: [−100, 20.5].
    assert high == pytest.approx(20.47, abs=0.01)
    single_low, single_high = editor.single_ci or (0.0, 0.0)
    assert single_low == -100.0
    assert single_high == pytest.approx(-100 + 200 * (1 - open_end(3)), rel=1e-9)
    carpenter = sts.micro["carpenter"]
    assert carpenter.paired_ci == (pytest.approx(100 - 200 * (1 - open_end(4))), 100.0)


def test_by_stereotype_and_overall_at_a_bound_are_open_on_one_side() -> None:
    sts = stereotype_test_score(two_by_two(always="masculine"))
    masculine = sts.by_stereotype["masculine"].paired
    assert masculine is not None
    # Eight paired images, one masculine-stereotyped person in each, all +100.
    assert (masculine.value, masculine.ci_high) == (100.0, 100.0)
    assert masculine.ci_low == pytest.approx(100 - 200 * (1 - open_end(8)), rel=1e-9)
    # Every paired image holds +1 and −1: the overall paired STS is 0 in every image. Nothing
    # varies, yet eight images cannot rule out images that differ: the share Clopper–Pearson
    # allows, each such image moving the figure to an end of its range.
    overall = sts.overall.paired
    assert overall is not None and overall.value == 0.0
    share = 1 - open_end(8)
    assert (overall.ci_low, overall.ci_high) == (
        pytest.approx(-100 * share, rel=1e-9), pytest.approx(100 * share, rel=1e-9)
    )  # fmt: skip


def test_no_table_interval_has_zero_width_and_all_stay_in_range() -> None:
    for always in ("masculine", "feminine"):
        sts = stereotype_test_score(two_by_two(always=always))
        intervals = []
        for m in sts.micro.values():
            intervals += [m.single_ci, m.paired_ci]
        gap_intervals = [m.gap_ci for m in sts.micro.values()]
        for scores in [*sts.by_stereotype.values(), sts.overall]:
            for est in (scores.single, scores.paired):
                assert est is not None
                intervals.append((est.ci_low, est.ci_high))
        for ci in intervals:
            assert ci is not None and -100 <= ci[0] < ci[1] <= 100
        for ci in gap_intervals:
            assert ci is not None and -200 <= ci[0] < ci[1] <= 200


def test_the_gap_of_two_bounds_combines_their_open_ends() -> None:
    # Paired +100 on four images, single +100 on three: the gap is 0, and it is as far below 0
    # as the paired figure can fall and as far above as the single one can.
    paired_low = 100 - 200 * (1 - open_end(4))
    single_low = 100 - 200 * (1 - open_end(3))
    low, high = difference_interval((100.0, (paired_low, 100.0)), (100.0, (single_low, 100.0)))
    assert (low, high) == (pytest.approx(paired_low - 100), pytest.approx(100 - single_low))
    # Newcombe's method 10 on two proportions, by hand: d ± √((p − l)² + (u − q)²).
    assert difference_interval((50.0, (40.0, 58.0)), (20.0, (5.0, 30.0))) == (
        pytest.approx(30 - math.hypot(10, 10)), pytest.approx(30 + math.hypot(8, 15))
    )  # fmt: skip
    assert difference_interval((50.0, None), (20.0, (5.0, 30.0))) is None


def test_the_setting_gap_at_both_bounds_is_open() -> None:
    rows = [r for r in two_by_two(always="masculine") if r.stereotype == "masculine"]
    gap = setting_gap(rows, seed=0)
    assert gap is not None and gap["value"] == 0.0
    # Eight paired and six single images, all +100.
    assert gap["ci_low"] == pytest.approx(-200 * (1 - open_end(8)), rel=1e-9)
    assert gap["ci_high"] == pytest.approx(200 * (1 - open_end(6)), rel=1e-9)


def test_a_gate_makes_the_same_interval_from_the_number() -> None:
    sts = stereotype_test_score(two_by_two(always="masculine"))
    masculine = sts.by_stereotype["masculine"].paired
    assert masculine is not None
    recipe = IntervalRecipe.from_number(masculine.to_dict())
    assert not isinstance(recipe, str)
    assert recipe.interval(0.95) == (pytest.approx(masculine.ci_low), 100.0)
    # At 90% the open end moves in (a one-sided 5%), and stays open.
    low90, high90 = recipe.interval(0.90)
    assert high90 == 100.0
    assert low90 == pytest.approx(100 - 200 * (1 - open_end(8, 0.90)), rel=1e-9)
    assert masculine.ci_low < low90 < 100


def test_one_image_gives_no_interval_and_says_why() -> None:
    rows = [
        LabelRow("a", "paired", "left", "carpenter", "masculine", "masculine"),
        LabelRow("a", "paired", "right", "nurse", "feminine", "feminine"),
    ]
    sts = stereotype_test_score(rows)
    assert sts.micro["nurse"].paired_ci is None
    paired = sts.overall.paired
    assert paired is not None
    assert (paired.ci_low, paired.ci_high) == (-math.inf, math.inf)
    number = paired.to_dict()
    assert number["reason"] == "one image only: no interval"
    assert isinstance(IntervalRecipe.from_number(number), str)


def test_a_figure_over_clustered_observations_shrinks_its_size_at_a_bound() -> None:
    # Korn & Graubard where n counts observations inside clusters: n·(z/t(df))².
    recipe = IntervalRecipe.t(100.0, 0.0, 3.0, bounds=(-100.0, 100.0), n=4)
    effective = 4 * (norm.ppf(0.025) / student_t.ppf(0.025, 3)) ** 2
    assert recipe.interval(0.95)[0] == pytest.approx(-100 + 200 * 0.025 ** (1 / effective))
    # Where n counts the draws themselves, exactly Clopper–Pearson, and a number says so.
    exact = IntervalRecipe.t(100.0, 0.0, 3.0, bounds=(-100.0, 100.0), n=4, bound_df=math.inf)
    assert exact.interval(0.95)[0] == pytest.approx(100 - 200 * (1 - open_end(4)))
    # JSON has no infinity: null says "not shrunk", and reads back as the same recipe.
    spelled = json.loads(json.dumps(exact.fields(), allow_nan=False))
    assert "bound_df" in spelled and spelled["bound_df"] is None
    number = {"value": 100.0, "se": 0.0, "df": 3.0, "n": 4, **spelled}
    again = IntervalRecipe.from_number(number)
    assert not isinstance(again, str) and again.bound_df == math.inf
    assert again.interval(0.95) == pytest.approx(exact.interval(0.95))
    # An older report's "inf" is read the same way; absent, the bound shrinks by df.
    older = IntervalRecipe.from_number({**number, "bound_df": "inf"})
    assert not isinstance(older, str) and older.bound_df == math.inf
    plain = IntervalRecipe.from_number({k: v for k, v in number.items() if k != "bound_df"})
    assert not isinstance(plain, str) and plain.bound_df is None


@pytest.mark.parametrize("value", [-40.0, 0.0, 60.0])
def test_a_t_recipe_without_spread_inside_its_range_is_open_both_ways(value: float) -> None:
    recipe = IntervalRecipe.t(value, 0.0, 9.0, bounds=(-100.0, 100.0), n=10)
    low, high = recipe.interval(0.95)
    alpha = 0.025
    effective = 10 * (norm.ppf(alpha) / student_t.ppf(alpha, 9)) ** 2
    share = 1 - alpha ** (1 / effective)
    assert (low, high) == (
        pytest.approx(value - share * (value + 100)), pytest.approx(value + share * (100 - value))
    )  # fmt: skip
    # Its p-values are those of the interval: it excludes the null exactly when p < 0.05.
    assert recipe.p_value(low - 1e-6) < 0.05 < recipe.p_value(low + 1e-6)


def test_the_corrected_tables_naive_figure_at_its_bound_is_open() -> None:
    import numpy as np

    from diptych.core.metrics.correction import ErrorCounts, corrected_stereotype_test_score

    # Ten single images of feminine-stereotyped persons, every one labelled feminine: the naive
    # STS is +100 in every resample, and its interval is the open end for ten images.
    corrected = corrected_stereotype_test_score(
        np.ones(10, dtype=bool), ["feminine"] * 10, range(10), ErrorCounts(18, 20, 19, 20),
        n_boot=200,
    )  # fmt: skip
    naive = corrected.by_stereotype["feminine"].naive
    assert (naive.value, naive.ci_high) == (100.0, 100.0)
    assert naive.ci_low == pytest.approx(100 - 200 * (1 - open_end(10)), rel=1e-9)
    assert corrected.overall.naive.ci_low == pytest.approx(naive.ci_low)

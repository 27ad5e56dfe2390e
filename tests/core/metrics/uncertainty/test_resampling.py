"""The resampling designs: intervals and tests against values worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from diptych.core.metrics.uncertainty.resampling import (
    benjamini_hochberg,
    difference_of_means,
    mean_over_units,
    paired_difference,
    t_inference,
)

# Enough replicates that the bootstrap standard error is within ~1% of its limit
# (the relative SD of a variance from B draws is about sqrt(2 / B)).
B = 20_000


def test_clustered_mean_is_the_one_sample_t_interval_of_cluster_means() -> None:
    # Five clusters of one observation: the bootstrap's bias-corrected SE is sd / sqrt(5).
    values = [1.0, 2.0, 3.0, 4.0, 10.0]
    inf = mean_over_units(values, {"image": ["a", "b", "c", "d", "e"]}, seed=1)
    se = float(np.std(values, ddof=1)) / math.sqrt(5)  # 1.5811
    assert inf.value == pytest.approx(4.0)
    assert inf.se == pytest.approx(se, rel=0.03)
    assert inf.df == 4
    q = stats.t.ppf(0.975, 4)  # 2.7764
    assert inf.ci_low == pytest.approx(4.0 - q * inf.se)
    assert inf.ci_high == pytest.approx(4.0 + q * inf.se)
    assert inf.units == {"image": 5}
    assert inf.design == "clustered"


def test_observations_of_one_cluster_move_together() -> None:
    # Two images of three answers each: six rows, but two units; the interval is t with 1 df.
    values = [1, 1, 1, -1, -1, -1]
    inf = mean_over_units(values, {"image": [0, 0, 0, 1, 1, 1]}, n_boot=B, seed=2)
    assert inf.n == 6 and inf.units == {"image": 2} and inf.df == 1
    # Cluster means +1 and -1: sd sqrt(2), se 1.
    assert inf.se == pytest.approx(1.0, rel=0.03)


def test_one_unit_gives_no_interval_and_never_a_decision() -> None:
    inf = mean_over_units([31.19, 31.19], {"image": ["x", "x"]})
    assert not inf.has_interval
    assert inf.ci_low == -math.inf and inf.ci_high == math.inf
    assert inf.p_value == 1.0 and not inf.excludes_null
    assert "one image" in (inf.reason or "")
    assert inf.to_dict()["ci_low"] == "-inf"


def test_interval_excludes_null_exactly_when_p_below_005() -> None:
    rng = np.random.default_rng(0)
    for shift in np.linspace(0, 1.2, 25):
        values = rng.normal(shift, 1.0, 12)
        inf = mean_over_units(values, {"image": list(range(12))}, n_boot=500, seed=3)
        assert inf.excludes_null == (inf.p_value < 0.05)


def test_t_inference_matches_scipy_ttest() -> None:
    x = np.array([0.5, 1.2, -0.3, 0.8, 1.9, 0.4])
    se = float(x.std(ddof=1) / math.sqrt(len(x)))
    inf = t_inference(float(x.mean()), se, len(x) - 1, n=len(x), units={"image": len(x)},
                      design="clustered")  # fmt: skip
    ref = stats.ttest_1samp(x, 0.0)
    assert inf.p_value == pytest.approx(ref.pvalue)
    low, high = ref.confidence_interval(0.95)
    assert (inf.ci_low, inf.ci_high) == pytest.approx((low, high))


def test_crossed_variance_is_the_moment_corrected_two_way_variance() -> None:
    # A 6 x 5 grid of identity pairs, one value per scene.
    rng = np.random.default_rng(4)
    a, b = rng.normal(0, 1, 6), rng.normal(0, 1, 5)
    y = a[:, None] + b[None, :] + rng.normal(0, 0.5, (6, 5))
    rows = np.repeat(np.arange(6), 5)
    cols = np.tile(np.arange(5), 6)
    inf = mean_over_units(
        y.ravel(), {"masculine identity": list(rows), "feminine identity": list(cols)},
        n_boot=B, seed=5,
    )  # fmt: skip
    v_rows = y.mean(axis=1).var(ddof=1) / 6
    v_cols = y.mean(axis=0).var(ddof=1) / 5
    # Less the interaction both one-way terms count: the two-way ANOVA's residual mean square
    # over the 30 cells.
    resid = y - y.mean(axis=1, keepdims=True) - y.mean(axis=0, keepdims=True) + y.mean()
    v_inter = (resid**2).sum() / (5 * 4) / 30
    expected = v_rows + v_cols - v_inter
    assert inf.design == "crossed"
    assert inf.se**2 == pytest.approx(expected, rel=0.06)
    assert inf.df == 4  # the smaller list less one
    assert inf.units == {"masculine identity": 6, "feminine identity": 5}


def test_crossed_interval_is_wider_than_scenes_alone_when_identities_vary() -> None:
    rng = np.random.default_rng(6)
    a, b = rng.normal(0, 0.3, 20), rng.normal(0, 0.3, 20)
    y = a[:, None] + b[None, :] + rng.normal(0, 0.05, (20, 20))
    rows = [str(i) for i in np.repeat(np.arange(20), 20)]
    cols = [str(j) for j in np.tile(np.arange(20), 20)]
    crossed = mean_over_units(y.ravel(), {"masculine identity": rows, "feminine identity": cols})
    scenes = mean_over_units(y.ravel(), {"unordered scene": list(zip(rows, cols, strict=True))})
    assert crossed.se > 3 * scenes.se


def test_stratified_single_setting_adds_the_two_lists_variances() -> None:
    masc = [1.0, 3.0, 2.0, 6.0]
    fem = [0.0, 2.0, 4.0]
    values = masc + fem
    rows = ["m1", "m2", "m3", "m4", None, None, None]
    cols = [None, None, None, None, "f1", "f2", "f3"]
    inf = mean_over_units(values, {"masculine identity": rows, "feminine identity": cols},
                          n_boot=B, seed=7)  # fmt: skip
    # Overall mean = (4 * mean_m + 3 * mean_f) / 7; each list's term scales its own variance.
    var = (4 / 7) ** 2 * np.var(masc, ddof=1) / 4 + (3 / 7) ** 2 * np.var(fem, ddof=1) / 3
    assert inf.design == "stratified"
    assert inf.value == pytest.approx(18 / 7)
    assert inf.se**2 == pytest.approx(var, rel=0.04)


def test_paired_difference_merges_each_unit() -> None:
    # Two orders of each unordered scene; the treated run lowers every value by 0.2 ± noise.
    base = {
        ("a", "x", 0): 0.5, ("x", "a", 1): 0.3, ("b", "y", 0): 0.6, ("y", "b", 1): 0.2,
        ("a", "y", 0): 0.4, ("y", "a", 1): 0.4, ("b", "x", 0): 0.1, ("x", "b", 1): 0.5,
    }  # fmt: skip
    treated = {k: v - 0.2 + (0.01 if k[2] else -0.01) for k, v in base.items()}

    def unit(key: tuple[str, str, int]) -> dict[str, str]:
        m, f = (key[0], key[1]) if key[0] in "ab" else (key[1], key[0])
        return {"masculine identity": m, "feminine identity": f}

    inf = paired_difference(base, treated, unit, scale=100.0, n_boot=2000)
    assert inf is not None
    assert inf.value == pytest.approx(-20.0)
    assert inf.units == {"masculine identity": 2, "feminine identity": 2}
    assert inf.excludes_null == (inf.p_value < 0.05)


def test_difference_of_means_adds_variances() -> None:
    a = ([0.0, 1.0, 2.0, 3.0], {"image": [1, 2, 3, 4]})
    b = ([2.0, 3.0, 4.0, 5.0, 6.0], {"image": [1, 2, 3, 4, 5]})
    inf = difference_of_means(a, b, n_boot=B)
    assert inf.value == pytest.approx(2.5)
    var = np.var(a[0], ddof=1) / 4 + np.var(b[0], ddof=1) / 5
    assert inf.se**2 == pytest.approx(var, rel=0.05)


def test_benjamini_hochberg_by_hand() -> None:
    q = benjamini_hochberg([0.01, 0.04, 0.03, 0.2])
    assert q == pytest.approx([0.04, 0.04 * 4 / 3, 0.04 * 4 / 3, 0.2])
    assert benjamini_hochberg([]) == []


@pytest.mark.parametrize(
    "units",
    [
        {"image": [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]},
        {"masculine identity": [0, 0, 1, 1, 2, 2, 0, 1, 2, 0],
         "feminine identity": [0, 1, 0, 1, 0, 1, 1, 0, 1, 0]},
        {"masculine identity": [0, 1, 2, 3, None, None, None, None, None, None],
         "feminine identity": [None, None, None, None, 0, 1, 2, 3, 4, 5]},
    ],
)  # fmt: skip
def test_exact_variance_is_the_limit_of_drawn_replicates(units: dict[str, list[object]]) -> None:
    values = [0.3, 1.2, -0.4, 2.0, 0.9, 1.1, -0.2, 0.5, 1.7, 0.0]
    exact = mean_over_units(values, units)
    drawn = mean_over_units(values, units, exact=False, n_boot=40_000, seed=9)
    assert exact.design == drawn.design
    # Equal units: the linearisation is exact, and 40,000 draws are within ~1% of the limit.
    assert drawn.se == pytest.approx(exact.se, rel=0.05)

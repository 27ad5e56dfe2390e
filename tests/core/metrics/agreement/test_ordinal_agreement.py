"""Agreement on an ordinal scale (diptych.core.metrics.agreement.ordinal): quadratic-weighted
Cohen's κ and ordinal Krippendorff's α, checked against statsmodels and the krippendorff
package, against identities worked out by hand, and at their edges."""

from __future__ import annotations

import math

import numpy as np
import pytest

from diptych.core.labels.tone import MONK_LABELS
from diptych.core.metrics.agreement import category_counts, cohen_kappa, krippendorff_alpha
from diptych.core.metrics.agreement.ordinal import (
    krippendorff_alpha_ordinal,
    krippendorff_alpha_ordinal_estimate,
    weighted_kappa,
    weighted_kappa_estimate,
)

#: The Monk Skin Tone scale in its order, as the tone dimension's labels are written.
MONK = list(MONK_LABELS)
#: Two computations of one ratio of sums in float64 differ by a few ulps of its terms.
TOL = 1e-9


def two_raters(seed: int, n: int = 60) -> tuple[list[str], list[str]]:
    """A reviewer and an annotator one step apart now and then, far apart rarely."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 10, n)
    other = np.clip(truth + rng.choice([-2, -1, 0, 0, 0, 1, 2], n), 0, 9)
    return [MONK[i] for i in truth], [MONK[i] for i in other]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_weighted_kappa_is_statsmodels_quadratic_kappa(seed: int) -> None:
    from statsmodels.stats.inter_rater import cohens_kappa

    a, b = two_raters(seed)
    table = np.zeros((10, 10))
    for x, y in zip(a, b, strict=True):
        table[MONK.index(x), MONK.index(y)] += 1
    expected = cohens_kappa(table, wt="quadratic").kappa
    assert weighted_kappa(a, b, categories=MONK) == pytest.approx(expected, abs=TOL)


def test_weighted_kappa_on_two_steps_is_cohens_kappa() -> None:
    # With two steps the only weight is 1: the weighted κ is the nominal one, 1 − 0.4/0.5 =
    # 0.2 here (p_o = 0.6, p_e = 0.5).
    a = ["monk-1", "monk-1", "monk-2", "monk-2", "monk-1"]
    b = ["monk-1", "monk-2", "monk-2", "monk-1", "monk-1"]
    scale = ["monk-1", "monk-2"]
    assert weighted_kappa(a, b, categories=scale) == pytest.approx(cohen_kappa(a, b), abs=TOL)
    p_o, p_e = 3 / 5, (3 / 5) * (3 / 5) + (2 / 5) * (2 / 5)
    assert weighted_kappa(a, b, categories=scale) == pytest.approx((p_o - p_e) / (1 - p_e))


def test_weighted_kappa_leaves_out_labels_off_the_scale() -> None:
    a, b = two_raters(3, 30)
    with_missing_a = [*a, "cannot_identify", "monk-3", None]
    with_missing_b = [*b, "monk-4", "cannot_identify", "monk-2"]
    assert weighted_kappa(with_missing_a, with_missing_b, categories=MONK) == pytest.approx(
        weighted_kappa(a, b, categories=MONK), abs=TOL
    )
    estimate = weighted_kappa_estimate(with_missing_a, with_missing_b, categories=MONK, n_boot=200)
    assert estimate.n == 30


def test_weighted_kappa_edges() -> None:
    assert weighted_kappa(MONK, MONK, categories=MONK) == 1.0
    # Everyone on one step: no disagreement to expect, κ undefined.
    assert math.isnan(weighted_kappa(["monk-3"] * 4, ["monk-3"] * 4, categories=MONK))
    assert math.isnan(weighted_kappa([], [], categories=MONK))
    with pytest.raises(ValueError, match="two steps"):
        weighted_kappa(["monk-1"], ["monk-1"], categories=["monk-1"])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ordinal_alpha_is_the_krippendorff_packages(seed: int) -> None:
    import krippendorff

    rng = np.random.default_rng(seed)
    n_units, n_coders = 40, 3
    truth = rng.integers(0, 10, n_units)
    data = np.clip(truth[None, :] + rng.choice([-1, 0, 0, 1, 3], (n_coders, n_units)), 0, 9)
    data = data.astype(float)
    data[rng.random(data.shape) < 0.2] = np.nan  # coders skip some units
    expected = krippendorff.alpha(
        reliability_data=data, level_of_measurement="ordinal", value_domain=list(range(10))
    )
    ratings = [[None if np.isnan(v) else MONK[int(v)] for v in data[:, u]] for u in range(n_units)]
    counts, _ = category_counts(ratings, MONK)
    assert krippendorff_alpha_ordinal(counts) == pytest.approx(expected, abs=TOL)


def test_ordinal_alpha_on_two_steps_is_nominal_alpha() -> None:
    # One pair of distinct values: the ordinal metric is one constant, and α is the nominal α.
    ratings = [["a", "a", "b"], ["b", "b", None], ["a", "b", "b"], ["a", "a", "a"]]
    counts, _ = category_counts(ratings, ["a", "b"])
    assert krippendorff_alpha_ordinal(counts) == pytest.approx(krippendorff_alpha(counts), abs=TOL)


def test_ordinal_alpha_weighs_a_far_disagreement_more_than_a_near_one() -> None:
    near = [["monk-4", "monk-5"]] + [[m, m] for m in MONK]
    far = [["monk-1", "monk-10"]] + [[m, m] for m in MONK]
    near_alpha = krippendorff_alpha_ordinal(category_counts(near, MONK)[0])
    far_alpha = krippendorff_alpha_ordinal(category_counts(far, MONK)[0])
    # Nominal α cannot tell them apart; the ordinal one can.
    assert krippendorff_alpha(category_counts(near, MONK)[0]) == pytest.approx(
        krippendorff_alpha(category_counts(far, MONK)[0])
    )
    assert 0 < far_alpha < near_alpha < 1


def test_ordinal_estimates_hold_their_value_inside_the_interval() -> None:
    a, b = two_raters(5, 80)
    kappa = weighted_kappa_estimate(a, b, categories=MONK, n_boot=400, seed=1)
    assert kappa.ci_low < kappa.value < kappa.ci_high and kappa.n == 80
    counts, _ = category_counts([[x, y] for x, y in zip(a, b, strict=True)], MONK)
    alpha = krippendorff_alpha_ordinal_estimate(counts, n_boot=400, seed=1)
    assert alpha.ci_low < alpha.value < alpha.ci_high and alpha.n == 80
    # One pairable unit alone: a value, and no interval a resample could give.
    single = krippendorff_alpha_ordinal_estimate(counts[:1], n_boot=50)
    assert single.n == 1

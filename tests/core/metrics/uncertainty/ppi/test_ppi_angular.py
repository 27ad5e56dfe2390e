"""The scale a prediction-powered interval is made on (:func:`~diptych.core.metrics.uncertainty.
ppi.small_sample.interval_scale`): inside two bounds the angular scale asin √p of the figure's
place in its range, worked out independently (``support.bounded``); at a bound the open
Clopper–Pearson end over the labelled persons."""

from __future__ import annotations

import numpy as np
import pytest
from support.bounded import angular_t, angular_t_p, logit_t, open_end_at_bound

from diptych.core.metrics.uncertainty.intervals import (
    SHARE_RANGE,
    STS_DIFFERENCE_RANGE,
    STS_RANGE,
    IntervalRecipe,
)
from diptych.core.metrics.uncertainty.ppi.estimate import (
    PredictionPowered,
    draw_sample,
    prediction_powered_combination,
    prediction_powered_ratio,
    uniform_probabilities,
)

N_ALL = 400
IMAGES = np.arange(N_ALL) // 2


def _sts(seed: int, labelled: int = 60, *, share: bool = False) -> PredictionPowered:
    """A paired STS of 400 persons in 200 images (about 30 at the truth), a 90%-accurate
    annotator, ``labelled`` persons drawn uniformly; with ``share`` the share of +1 instead."""
    rng = np.random.default_rng(seed)
    y = rng.choice([-1.0, 1.0], N_ALL, p=[0.35, 0.65])
    f = np.where(rng.random(N_ALL) < 0.9, y, -y)
    pi = uniform_probabilities(N_ALL, labelled)
    drawn = draw_sample(pi, "uniform", rng)
    if share:
        return prediction_powered_ratio(
            (y > 0).astype(float), np.ones(N_ALL), (f > 0).astype(float), np.ones(N_ALL),
            drawn, pi, {"image": IMAGES}, bounds=SHARE_RANGE,
        )  # fmt: skip
    return prediction_powered_ratio(
        y, np.ones(N_ALL), f, np.ones(N_ALL), drawn, pi, {"image": IMAGES},
        scale=100.0, bounds=STS_RANGE,
    )  # fmt: skip


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_sts_interval_is_the_t_interval_on_the_angular_scale(seed: int) -> None:
    found = _sts(seed)
    for inf in (found.inference, found.labels_only):
        assert inf.transform == "arcsine" and -100.0 < inf.value < 100.0
        expected = angular_t(inf.value, inf.se, inf.df, -100.0, 100.0)
        assert (inf.ci_low, inf.ci_high) == pytest.approx(expected, rel=1e-9)
        assert inf.p_value == pytest.approx(
            angular_t_p(inf.value, inf.se, inf.df, -100.0, 100.0, 0.0), rel=1e-9
        )
    inf = found.inference
    # Above the middle of its range the logit shrinks the side towards the bound twice as
    # much as the angular scale does (to second order): both ends sit higher on the angular.
    assert inf.value > 0.0
    logit_low, logit_high = logit_t(inf.value, inf.se, inf.df, -100.0, 100.0)
    assert inf.ci_low > logit_low and inf.ci_high > logit_high
    # A gate reads the same interval back from the report's number, at any level.
    recipe = IntervalRecipe.from_number(inf.to_dict())
    assert isinstance(recipe, IntervalRecipe)
    assert recipe.description == "t on the arcsine scale of [\N{MINUS SIGN}100, 100]"
    assert recipe.interval(0.95) == pytest.approx((inf.ci_low, inf.ci_high), rel=1e-12)
    assert recipe.interval(0.975) == pytest.approx(
        angular_t(inf.value, inf.se, inf.df, -100.0, 100.0, confidence=0.975), rel=1e-9
    )


def test_a_share_and_a_gap_are_made_on_the_angular_scale_of_their_own_ranges() -> None:
    share = _sts(4, share=True).inference
    assert share.transform == "arcsine" and share.bounds == SHARE_RANGE
    expected = angular_t(share.value, share.se, share.df, 0.0, 1.0)
    assert (share.ci_low, share.ci_high) == pytest.approx(expected, rel=1e-9)
    # paired − single over disjoint images: a difference of two STS, in [−200, 200].
    paired, single = _sts(5), _sts(6)
    gap = prediction_powered_combination(
        [(1.0, paired, {"image": IMAGES}), (-1.0, single, {"image": IMAGES + N_ALL})],
        scale=100.0, bounds=STS_DIFFERENCE_RANGE,
    ).inference  # fmt: skip
    assert gap.transform == "arcsine" and gap.bounds == STS_DIFFERENCE_RANGE
    expected = angular_t(gap.value, gap.se, gap.df, -200.0, 200.0)
    assert (gap.ci_low, gap.ci_high) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_at_a_bound_the_interval_keeps_its_open_clopper_pearson_end(sign: float) -> None:
    # Everyone +1 (or −1), people and annotator alike: the STS is ±100 with no variance to
    # read. The angular scale has no se there either; the interval is Clopper–Pearson's for
    # 50 of 50 labelled persons, shrunk by the df (the labelled less one, 49): open towards
    # the range, closed at the bound, never of zero width.
    y = np.full(N_ALL, sign)
    drawn = np.zeros(N_ALL, dtype=bool)
    drawn[::8] = True
    found = prediction_powered_ratio(
        y, np.ones(N_ALL), y, np.ones(N_ALL), drawn, np.full(N_ALL, 0.125), {"image": IMAGES},
        scale=100.0, bounds=STS_RANGE,
    )  # fmt: skip
    inf = found.inference
    assert inf.value == pytest.approx(100.0 * sign)
    assert (found.n_labelled, inf.df, inf.transform) == (50, 49.0, "arcsine")
    end = open_end_at_bound(50, 49.0, -100.0, 100.0, at_high=sign > 0)
    if sign > 0:
        assert (inf.ci_low, inf.ci_high) == (pytest.approx(end, rel=1e-9), 100.0)
    else:
        assert (inf.ci_low, inf.ci_high) == (-100.0, pytest.approx(end, rel=1e-9))
    assert inf.ci_high - inf.ci_low > 10.0

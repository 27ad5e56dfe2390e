"""Prediction-powered inference at small budgets: the pieces of
:mod:`diptych.core.metrics.uncertainty.ppi.estimate` that keep its interval honest when a few labels
carry it (the reasons are in that module's docstring, "Few labels").

* Each labelled person's λ is tuned on the *other* labelled persons and moved one standard
  error towards plain PPI (λ = 1): a λ below 1 only where the labels show it
  (:func:`left_out_lambdas`); what tuning on the same labels still adds to the variance is
  :func:`tuning_variance`.
* The sampling part of the variance has its own degrees of freedom
  (:func:`sampling_degrees_of_freedom`), combined with the units' by Satterthwaite
  (:func:`small_sample_df`).
* A ratio's denominator is a share; its λ is scaled so that its estimate stays a share
  (:func:`share_scale`).
* A figure with two finite bounds has its interval made on the angular scale of its place in
  the range (:func:`interval_scale`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from diptych.core.metrics.uncertainty.resampling import Inference
    from diptych.core.metrics.uncertainty.scales import Bounds, Transform


def lambda_terms(
    g: NDArray[np.float64],
    h: NDArray[np.float64],
    w: NDArray[np.float64],
    pi: NDArray[np.float64],
    lab: NDArray[np.bool_],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each labelled person's term of λ*'s numerator and denominator."""
    import numpy as np

    # Both expectations are estimated from the sample, weighted by 1/π: only a drawn person's
    # probability is known (a stored label carries its own).
    spare = np.where(lab, 1.0 / pi - 1.0, 0.0)
    g_c = g - g.mean()
    h_bar = float((w * h).sum() / w.sum())
    num = w * spare * np.where(lab, (h - h_bar) * g_c, 0.0)
    den = w * spare * np.where(lab, g_c**2, 0.0)
    return num, den


def share_scale(
    estimate: Callable[
        [NDArray[np.float64], NDArray[np.float64]], tuple[float, float, float, float]
    ],
    lam: NDArray[np.float64],
    share_range: tuple[float, float],
) -> float:
    """κ in [0, 1], the largest with the denominator's estimate at λ_D = κ λ inside
    ``share_range``. The estimate is linear in κ and at κ = 0 (the labels' own weighted mean)
    inside the range, so κ is where the line meets the range's end."""
    low, high = share_range
    at_zero = estimate(lam, 0.0 * lam)[1]
    at_one = estimate(lam, lam)[1]
    if low <= at_one <= high or at_one == at_zero:
        return 1.0
    end = high if at_one > high else low
    return float(min(max((end - at_zero) / (at_one - at_zero), 0.0), 1.0))


def tuning_variance(
    value: float,
    denominator: float,
    f_s: NDArray[np.float64],
    f_d: NDArray[np.float64],
    w: NDArray[np.float64],
    g0: NDArray[np.float64],
    h0: NDArray[np.float64],
    pi: NDArray[np.float64],
    lab: NDArray[np.bool_],
) -> float:
    """Var(λ̂) · D² / μ_D²: θ̂ moves by (λ − λ*) · D with D the annotator's mean over everyone
    less its weighted mean over the labelled."""
    a, b = lambda_terms(g0, h0, w, pi, lab)
    den = float(b.sum())
    if den <= 0.0:
        return 0.0
    lam_hat = float(a.sum()) / den
    var_lam = float(((a - lam_hat * b) ** 2).sum()) / den**2
    g = f_s - value * f_d
    gap = float(g.mean()) - float((w * g).sum()) / float(w.sum())
    return var_lam * gap**2 / denominator**2


def left_out_lambdas(
    g: NDArray[np.float64],
    h: NDArray[np.float64],
    w: NDArray[np.float64],
    pi: NDArray[np.float64],
    lab: NDArray[np.bool_],
) -> NDArray[np.float64]:
    """Each labelled person's λ: λ* tuned on the other labelled persons, one standard error
    towards plain PPI (module docstring of
    :mod:`~diptych.core.metrics.uncertainty.ppi.estimate`)."""
    import numpy as np

    a, b = lambda_terms(g, h, w, pi, lab)
    rest_a, rest_b = float(a.sum()) - a, float(b.sum()) - b
    with np.errstate(divide="ignore", invalid="ignore"):
        loo = np.where(rest_b > 0.0, rest_a / rest_b, 0.0)
        # The delta method's variance of the ratio Σa/Σb over the other persons:
        # Σ_j≠i (a_j − λ b_j)² / (Σ_j≠i b_j)², expanded so that every i is one vector sum.
        a2 = float((a * a).sum()) - a * a
        ab = float((a * b).sum()) - a * b
        b2 = float((b * b).sum()) - b * b
        spread = np.maximum(a2 - 2 * loo * ab + loo * loo * b2, 0.0)
        se = np.where(rest_b > 0.0, np.sqrt(spread) / rest_b, np.inf)
    # One standard error towards 1 (plain PPI): a λ below 1 only where the other labels show it.
    return np.where(lab, np.clip(loo + se, 0.0, 1.0), 0.0)


def sampling_degrees_of_freedom(terms: NDArray[np.float64], pi: NDArray[np.float64]) -> float:
    """Satterthwaite's degrees of freedom of the sampling variance Σ c_i over the drawn
    persons (module docstring of :mod:`~diptych.core.metrics.uncertainty.ppi.estimate`): 2 (Σ c)² /
    Σ (1 − π) c²."""
    total, squares = float(terms.sum()), float(((1.0 - pi) * terms**2).sum())
    return 2.0 * total * total / squares if squares > 0 else math.inf


def small_sample_df(
    sampling_variance: float, df_sampling: float, over: Inference, scale: float
) -> float:
    """Satterthwaite's df of the interval's variance: the sampling part with its own df
    (:func:`sampling_degrees_of_freedom`), the rest with the units'."""
    total = (over.se / abs(scale)) ** 2 if scale else 0.0
    sampling = min(max(sampling_variance, 0.0), total)
    rest = total - sampling
    den = (sampling**2 / df_sampling if math.isfinite(df_sampling) else 0.0) + (
        rest**2 / over.df if over.df > 0 else math.inf
    )
    return total * total / den if den > 0 else over.df


def welch_satterthwaite(parts: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """The sum of independent variances (variance, df) and its Welch–Satterthwaite df,
    (Σ V)² / Σ V² / df: a gap's or a change's sampling part, each term drawn on its own."""
    total = sum(max(v, 0.0) for v, _ in parts)
    den = sum(max(v, 0.0) ** 2 / df for v, df in parts if df > 0 and math.isfinite(df))
    return total, (total * total / den if den > 0 else math.inf)


def interval_scale(bounds: Bounds) -> Transform | None:
    """The scale a prediction-powered interval inside ``bounds`` is made on: between two finite
    bounds the angular scale asin √p of the figure's place p in its range, the
    variance-stabilising transformation of a proportion (Anscombe, Biometrika 35, 1948;
    Freeman & Tukey, Ann. Math. Statist. 21, 1950); beside one bound the default (the log of
    the distance from it); without bounds none.

    With few labels an estimate resting on a draw without any of the annotator's rare confident
    errors sits a little low. The logit shrinks the side towards the nearer bound twice as much
    as the angular scale does (to second order: g''/g' is (2p − 1)/(p(1 − p)) against half of
    it), so an STS above 0 made on it fell wholly below the truth more often than above; on the
    angular scale the largest share wholly on one side at 40–90 labels is 0.028, against 0.0295
    on the logit (``bench/ppi/budgets.py``, docs/calibration.md "Few labels")."""
    low, high = bounds
    return "arcsine" if math.isfinite(low) and math.isfinite(high) else None

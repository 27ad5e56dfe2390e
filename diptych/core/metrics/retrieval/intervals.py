"""Counterfactual retrieval's intervals inside each figure's range.

A query's figures cannot take every value: with the desired shares p of its groups and its top
K they lie in a range fixed by the list, whatever the encoder does with it —

* MaxSkew@K and NDKL@K in [0, ln(1/p_min)]: a top K of the rarest desired group has the largest
  skew, ln(1/p_min), and KL(q ‖ p) = Σ q·ln(q/p) ≤ Σ q·ln(1/p) ≤ ln(1/p_min) for any q;
* MinSkew@K (an absent group's skew 0, the SocialCounterfactuals convention) in
  [min(0, ln(1/(K·p_max))), 0]: some group holds no more than its share or is absent, and a
  present group holds at least 1 of K. At K·p_max ≤ 1 (PAIRS: four groups, K = 4) the range is
  the point 0: the figure is 0 for every ranking;
* Bias@K in [−1, 1], |Bias@K| in [0, 1];
* the SocialCounterfactuals code's NDKL is no divergence (either sign) and declares no range.

The mean over queries lies between the means of its queries' bounds, and the permutations of
the null leave every list's composition as it is, so its expectation c and every permutation's
mean lie there too. The mean's interval is made inside that range as any bounded figure's is
(:mod:`diptych.core.metrics.uncertainty.intervals`): the units' t on the logit scale of the mean's
place in the range, and, where every query sits at a bound, Clopper–Pearson's end at the bound —
with the units (occupations, or queries when each is its own) as its size, since an occupation's
wordings rank alike and are not independent observations. The excess over the null, mean − c,
is the headline; its range is [low − c, high − c] and its interval the mean's less c, on the
same scale, so the two always agree.

Where units share a pool (:func:`widened_by_permutation`) the permutation test is the one on
the figure's own scale, p = (1 + #{|r − c| ≥ |mean − c|}) / (1 + B) over the B permutation means
r, exact under the null (measured: ``bench/validity/retrieval/sets.py``); h is the deviation
fewer than α of the permutations reach, so the test rejects exactly when |E| > h for the excess
E. Its interval is carried to the logit scale g of the excess's place in its range: g(E) ± H
with H = h·|g(E) − g(0)| / |E| — h scaled by the slope of g between the excess and the null
(g'(0) when E = 0) — which reaches g(0) exactly when |E| = h: it excludes the null exactly when
the test rejects, as E ± h does, and it never leaves the range. (Carried so, an excess at its
bound gives the bound alone when the test rejects, the whole range when it cannot.) The
interval printed is the union of the units' and the permutation's on that scale, symmetric
there; its standard error is the one that makes the t interval of its degrees of freedom
exactly that wide, so that a gate reading the number makes the interval the report printed.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from diptych.core.digits import level_text
from diptych.core.metrics.retrieval.null import permutation_p_value
from diptych.core.metrics.uncertainty.bootstrap import DEFAULT_CONFIDENCE, DEFAULT_N_BOOT
from diptych.core.metrics.uncertainty.intervals import (
    UNBOUNDED,
    UNIT_SCORE_RANGE,
    Bounds,
)
from diptych.core.metrics.uncertainty.resampling import (
    UNITS,
    Inference,
    mean_over_units,
    t_inference,
)
from diptych.core.metrics.uncertainty.scales import from_scale, scale_slope, t_quantile, to_scale

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

#: Relative rounding within which a figure counts as at its bound, and two distances as tied.
_TOL = 1e-9


def figure_ranges(shares: Sequence[float], k: int) -> dict[str, Bounds]:
    """The range of each per-query figure of :data:`~.retrieval_result.MEASURES` for a list
    whose desired groups have ``shares`` (each above 0), at a top ``k`` (clamped to the list's
    length already). See the module docstring."""
    desired = [p for p in shares if p > 0]
    if not desired or k < 1:
        raise ValueError("a range needs a desired group and K of at least 1")
    most_skew = math.log(1.0 / min(desired))
    least_min = min(0.0, math.log(1.0 / (k * max(desired))))
    return {
        "max_skew": (0.0, most_skew),
        "ndkl": (0.0, most_skew),
        "min_skew": (least_min, 0.0),
        "bias": UNIT_SCORE_RANGE,
        "abs_bias": (0.0, 1.0),
        "sc_ndkl": UNBOUNDED,
    }


def mean_range(ranges: Sequence[Bounds]) -> Bounds:
    """The range of a mean over queries whose figures have these ranges: their means."""
    return (
        float(np.mean([b[0] for b in ranges])),
        float(np.mean([b[1] for b in ranges])),
    )


def _all_at(bounds: NDArray[np.float64], values: NDArray[np.float64]) -> bool:
    """Whether every value is its bound, up to rounding."""
    return bool((np.abs(values - bounds) <= _TOL * np.maximum(1.0, np.abs(bounds))).all())


def excess_over_units(
    values: ArrayLike,
    nulls: ArrayLike,
    ranges: Sequence[Bounds],
    units: Mapping[str, Sequence[Hashable | None] | NDArray[np.int64]],
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
) -> Inference:
    """The mean excess of per-query ``values`` over their null expectations ``nulls``, with
    the units' interval made inside the excess's range: each query's ``ranges`` entry is its
    figure's range (:func:`figure_ranges`), the mean's is their mean, and the excess's that
    less the mean null. A figure that cannot vary (a range of one point) has excess 0 and the
    interval [0, 0]; one whose every query is at the same bound has the excess of that bound
    exactly, and the Clopper–Pearson end on the units. An unbounded figure keeps the t
    interval of :func:`~diptych.core.metrics.uncertainty.resampling.mean_over_units`."""
    v = np.asarray(values, dtype=np.float64)
    e = np.asarray(nulls, dtype=np.float64)
    base = mean_over_units(v - e, units, confidence=confidence, n_boot=n_boot, seed=seed)
    lows = np.asarray([b[0] for b in ranges], dtype=np.float64)
    highs = np.asarray([b[1] for b in ranges], dtype=np.float64)
    bounded = bool(np.isfinite(lows).all() and np.isfinite(highs).all())
    (low, high), centre = mean_range(ranges), float(e.mean())
    if bounded and high - low <= _TOL * max(1.0, abs(low), abs(high)):
        # Every query's figure is its range's one value, and so is its null: nothing to say.
        return Inference(
            0.0, 0.0, 0.0, 1.0, 0.0, base.df, base.n, base.units, base.design,
            confidence=confidence, population=base.population,
        )  # fmt: skip
    # Every query at its null: the excess is 0, not the rounding of a sum of differences
    # (which, with nothing varying, a t-test would call significant).
    equal = _all_at(e, v)
    if not bounded:
        if not equal:
            return base
        return t_inference(
            0.0, 0.0, base.df, n=base.n, units=base.units, design=base.design,
            confidence=confidence, reason=base.reason,
        )  # fmt: skip
    # A null or a mean at a bound must be exactly there (not a rounding inside it, whose
    # logit would be far out on the scale with a vast slope), so that the bound's own
    # interval and test are used.
    width = high - low
    if abs(centre - low) <= _TOL * width:
        centre = low
    elif abs(high - centre) <= _TOL * width:
        centre = high
    if _all_at(lows, v):
        value = low - centre
    elif _all_at(highs, v):
        value = high - centre
    else:
        value = 0.0 if equal else min(max(base.value, low - centre), high - centre)
    n_units = min(base.units.values()) if base.units else base.n
    return t_inference(
        value, 0.0 if equal else base.se, base.df, n=base.n, units=base.units,
        design=base.design, confidence=confidence, reason=base.reason,
        bounds=(low - centre, high - centre), bound_n=n_units,
    )  # fmt: skip


def _scaled(inference: Inference, x: float) -> float:
    """``x`` on the scale the inference's interval is made on (itself when unbounded); within
    rounding of a bound, the bound's own (infinite) place."""
    if inference.transform is None:
        return x
    low, high = inference.bounds
    if x - low <= _TOL * (high - low):
        return to_scale(low, inference.bounds, inference.transform)
    if high - x <= _TOL * (high - low):
        return to_scale(high, inference.bounds, inference.transform)
    return to_scale(x, inference.bounds, inference.transform)


def _unscaled(inference: Inference, u: float) -> float:
    if inference.transform is None:
        return u
    return from_scale(u, inference.bounds, inference.transform)


def _gap(a: float, b: float) -> float:
    """|a − b|, 0 for the same point (two equal infinities: a figure at its bound twice)."""
    return 0.0 if a == b else abs(a - b)


def permutation_p(excess: Inference, replicates: NDArray[np.float64], centre: float) -> float:
    """The two-sided permutation p-value of the excess over the null's expectation ``centre``
    (the replicates are permutation means, on the figure's own scale): (1 + #{as far as the
    observed}) / (1 + B)."""
    return permutation_p_value(excess.value + centre, replicates, centre)


def permutation_half_width(
    replicates: NDArray[np.float64], centre: float, confidence: float
) -> float:
    """The half-width h of the interval ``excess ± h`` that excludes 0 exactly when the
    permutation test (:func:`~diptych.core.metrics.retrieval.null.permutation_p_value`,
    (1 + #{|r − centre| ≥ |d|}) / (1 + B)) rejects at 1 − ``confidence``: the (M+1)-th largest
    |r − centre| with M = ⌈α(1 + B) − 1⌉ − 1. Infinite when B permutations cannot reject."""
    most = _beyond(replicates.size, confidence)
    if most < 0:
        return math.inf
    return float(np.sort(np.abs(replicates - centre))[::-1][most])


def _beyond(n_perm: int, confidence: float) -> int:
    """M: the most permutations as far as the observed mean that still let the test reject,
    ⌈α(1 + B) − 1⌉ − 1; below 0 when B permutations cannot reject at all."""
    return math.ceil((1 - confidence) * (1 + n_perm) - 1 - 1e-12) - 1


def _permutation_interval(excess: Inference, half: float, tied: bool) -> tuple[float, float]:
    """The permutation interval E ± ``half`` carried to the scale of the excess's interval
    (module docstring), on that scale; ``tied``: |E| equals ``half`` (the test's tie), so the
    interval reaches the null exactly."""
    value = excess.value
    u, null = _scaled(excess, value), _scaled(excess, 0.0)
    if excess.transform is None:
        return value - half, value + half
    if not math.isfinite(u):
        # At a bound: the limit of the construction as the excess reaches it.
        if tied:
            return (u, null) if u < null else (null, u)
        return (u, u) if half < abs(value) else (-math.inf, math.inf)
    gap = _gap(u, null)
    slope = gap / abs(value) if gap > 0 else scale_slope(0.0, excess.bounds, excess.transform)
    spread = half * slope
    if tied:
        spread = gap
    return u - spread, u + spread


def widened_by_permutation(
    over_units: Inference,
    replicates: NDArray[np.float64],
    centre: float,
    permutation_p: float,
    *,
    moved: tuple[str, int],
) -> Inference:
    """The interval and test of a mean excess whose units share pools: the union of the
    units' interval and the permutation interval, both on the scale the units' interval is
    made on (the logit of the excess's place in its range; its own scale when unbounded), and
    the larger of their p-values — so the interval excludes 0 exactly when both tests reject.
    ``replicates`` are the permutation means, ``centre`` the null's expectation of the mean,
    ``permutation_p`` the test :func:`permutation_p` makes of them, and ``moved`` names what
    the permutation moves the labels within and how many there are (the counterfactual sets,
    or the pools when the items are not in sets)."""
    value = over_units.value
    confidence = over_units.confidence
    half = permutation_half_width(replicates, centre, confidence)
    # The permutation distribution of a few distinct rankings is discrete, and the observed
    # excess is often one of its values: the test counts such a tie as "as far" (not
    # significant), so the interval must reach the null then, whatever the rounding.
    tied = abs(abs(value) - half) <= _TOL * max(1.0, abs(centre))
    if tied:
        half = abs(value)
    units = {**over_units.units, moved[0]: moved[1]}
    reason = over_units.reason
    if reason is None and not math.isfinite(half):
        # The smallest count B with α(1 + B) > 1, where one permutation test can reject.
        need = math.floor(1 / (1 - confidence) - 1 + 1e-9) + 1
        reason = (
            f"{replicates.size} permutations cannot reach the {level_text(confidence)} level: no "
            f"interval (use at least {need})"
        )
    low, high, se, df = -math.inf, math.inf, math.inf, over_units.df
    if reason is None:
        u = _scaled(over_units, value)
        perm_low, perm_high = _permutation_interval(over_units, half, tied)
        units_high = _scaled(over_units, over_units.ci_high)
        low_u = min(_scaled(over_units, over_units.ci_low), perm_low)
        high_u = max(units_high, perm_high)
        low, high = _unscaled(over_units, low_u), _unscaled(over_units, high_u)
        # A tie reaches the null exactly, not its rounding through the scale.
        if tied and value > 0 and perm_low <= low_u:
            low = 0.0
        if tied and value < 0 and perm_high >= high_u:
            high = 0.0
        se = over_units.se
        if math.isinf(perm_high - perm_low):
            se = math.inf  # the permutations say nothing inside the range
        elif math.isfinite(u) and units_high - u < perm_high - u:
            # The se that makes the t interval of these df exactly the printed one: what a
            # gate reading the number rebuilds (at another level it scales with t's quantile).
            df = float(replicates.size - 1)
            slope = 1.0
            if over_units.transform is not None:
                slope = scale_slope(value, over_units.bounds, over_units.transform)
            se = (perm_high - u) / (t_quantile(0.5 + confidence / 2, df) * slope)
    return Inference(
        value=value,
        ci_low=low,
        ci_high=high,
        p_value=max(over_units.p_value, permutation_p),
        se=se,
        df=df,
        n=over_units.n,
        units=units,
        design=f"clustered, labels permuted within each {moved[0]}",
        null=over_units.null,
        confidence=confidence,
        reason=reason,
        population="; ".join(UNITS.get(name, name) for name in units),
        bounds=over_units.bounds,
        transform=over_units.transform,
        bound_n=over_units.bound_n,
    )


def shifted(inference: Inference, by: float, bounds: Bounds | None = None) -> Inference:
    """The same inference of the figure plus ``by`` (value, interval, null and range move
    together): the mean, whose null is the expectation, from the excess over it. ``bounds``
    is the mean's range where it is known exactly (the excess's plus ``by`` rounds); a value
    or an end at the excess's bound is put exactly at the mean's."""
    low_b, high_b = inference.bounds
    if bounds is None or inference.bounds == UNBOUNDED:
        bounds = (low_b + by, high_b + by)

    def moved(x: float) -> float:
        if x == low_b:
            return bounds[0]
        if x == high_b:
            return bounds[1]
        return min(max(x + by, bounds[0]), bounds[1])

    return replace(
        inference,
        value=moved(inference.value),
        ci_low=moved(inference.ci_low) if inference.has_interval else inference.ci_low,
        ci_high=moved(inference.ci_high) if inference.has_interval else inference.ci_high,
        null=inference.null + by,
        bounds=bounds,
    )


__all__ = [
    "excess_over_units",
    "figure_ranges",
    "mean_range",
    "permutation_half_width",
    "permutation_p",
    "shifted",
    "widened_by_permutation",
]

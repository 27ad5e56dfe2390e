"""The scales a bounded figure's t interval is made on, and the t distribution it is read from.

A figure in a range is taken to a scale without bounds — the logit of its place in the range,
the log of its distance from its one finite bound, or the angular scale asin √p of a share, which
is bounded itself — where ``value ± t(df)·se`` is made with the delta method's se
(:func:`scale_slope`), and mapped back (:mod:`diptych.core.metrics.uncertainty.intervals` says when
each is used).
"""

from __future__ import annotations

import math
from typing import Literal

#: A figure's range: its low and high bound (either may be infinite).
Bounds = tuple[float, float]
#: The transforms a t interval can be made on.
Transform = Literal["logit", "log", "arcsine"]


def to_scale(x: float, bounds: Bounds, transform: Transform) -> float:
    """The figure ``x`` on the transform's scale (±inf at a bound)."""
    low, high = bounds
    if transform == "logit":
        p = (x - low) / (high - low)
        if p <= 0.0:
            return -math.inf
        if p >= 1.0:
            return math.inf
        return math.log(p / (1.0 - p))
    if transform == "log":
        if math.isfinite(low):
            return math.log(x - low) if x > low else -math.inf
        return -math.log(high - x) if x < high else math.inf
    p = min(max((x - low) / (high - low), 0.0), 1.0)
    return math.asin(math.sqrt(p))


def from_scale(u: float, bounds: Bounds, transform: Transform) -> float:
    low, high = bounds
    if transform == "logit":
        if u >= 0:
            return low + (high - low) / (1.0 + math.exp(-u))
        e = math.exp(u)
        return low + (high - low) * e / (1.0 + e)
    if transform == "log":
        if math.isfinite(low):
            return low + math.exp(u)
        return high - math.exp(-u)
    # The angular scale is bounded itself: [0, π/2] holds every share.
    v = min(max(u, 0.0), math.pi / 2)
    return low + (high - low) * math.sin(v) ** 2


def scale_slope(x: float, bounds: Bounds, transform: Transform) -> float:
    """d(transform)/dx at ``x`` (inside the range): the delta method's factor."""
    low, high = bounds
    if transform == "logit":
        p = (x - low) / (high - low)
        return 1.0 / ((high - low) * p * (1.0 - p))
    if transform == "log":
        return 1.0 / (x - low) if math.isfinite(low) else 1.0 / (high - x)
    p = (x - low) / (high - low)
    return 1.0 / ((high - low) * 2.0 * math.sqrt(p * (1.0 - p)))


#: An se below this share of a bounded figure's range is rounding, not spread.
ROUNDING = 1e-12


def t_quantile(q: float, df: float) -> float:
    from scipy.special import ndtri, stdtrit

    return float(ndtri(q) if math.isinf(df) else stdtrit(df, q))


def t_cdf(x: float, df: float) -> float:
    from scipy.special import ndtr, stdtr

    return float(ndtr(x) if math.isinf(df) else stdtr(df, x))

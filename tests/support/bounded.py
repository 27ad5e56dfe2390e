"""Range-respecting intervals worked out by hand, independently of diptych's own code: what the
tests of bounded figures compare the implementation with.

A figure x in [low, high] has its t interval made on the logit scale of p = (x − low)/(high − low)
with the delta method's se, se / ((high − low)·p(1 − p)), and mapped back; a prediction-powered
figure on the angular scale asin √p, se / ((high − low)·2√(p(1 − p))). At a bound, the open end is
Clopper–Pearson's for n successes in n with the effective size n·(z/t(df))².
"""

from __future__ import annotations

import math

from scipy import stats


def logit_t(
    value: float, se: float, df: float, low: float, high: float, confidence: float = 0.95
) -> tuple[float, float]:
    """The t interval on the logit scale of the range, mapped back."""
    width = high - low
    p = (value - low) / width
    u = math.log(p / (1 - p))
    se_u = se / (width * p * (1 - p))
    q = stats.t.ppf(0.5 + confidence / 2, df)

    def back(v: float) -> float:
        return low + width / (1 + math.exp(-v))

    return back(u - q * se_u), back(u + q * se_u)


def logit_t_p(value: float, se: float, df: float, low: float, high: float, null: float) -> float:
    """The two-sided t-test of ``value = null`` on the same scale."""
    width = high - low
    p = (value - low) / width
    p0 = (null - low) / width
    u, u0 = math.log(p / (1 - p)), math.log(p0 / (1 - p0))
    return float(2 * stats.t.sf(abs(u - u0) / (se / (width * p * (1 - p))), df))


def angular_t(
    value: float, se: float, df: float, low: float, high: float, confidence: float = 0.95
) -> tuple[float, float]:
    """The t interval on the angular scale asin √p of the range, mapped back by sin²; the
    scale holds every place in [0, π/2], so an end past it is the range's end."""
    width = high - low
    p = (value - low) / width
    u = math.asin(math.sqrt(p))
    se_u = se / (width * 2 * math.sqrt(p * (1 - p)))
    q = stats.t.ppf(0.5 + confidence / 2, df)

    def back(v: float) -> float:
        return low + width * math.sin(min(max(v, 0.0), math.pi / 2)) ** 2

    return back(u - q * se_u), back(u + q * se_u)


def angular_t_p(value: float, se: float, df: float, low: float, high: float, null: float) -> float:
    """The two-sided t-test of ``value = null`` on the angular scale."""
    width = high - low
    p, p0 = (value - low) / width, (null - low) / width
    u, u0 = math.asin(math.sqrt(p)), math.asin(math.sqrt(p0))
    return float(2 * stats.t.sf(abs(u - u0) / (se / (width * 2 * math.sqrt(p * (1 - p)))), df))


def open_end_at_bound(
    n: int, df: float, low: float, high: float, at_high: bool, confidence: float = 0.95
) -> float:
    """The open end of the interval of a figure at its bound: Clopper–Pearson's for n of n,
    alpha^(1/n_eff) with n_eff = n·(z/t(df))²."""
    alpha = (1 - confidence) / 2
    n_eff = n * (stats.norm.ppf(alpha) / stats.t.ppf(alpha, df)) ** 2
    share = alpha ** (1 / n_eff)
    return low + (high - low) * share if at_high else high - (high - low) * share


def open_ends_without_spread(
    value: float, n: int, df: float, low: float, high: float, confidence: float = 0.95
) -> tuple[float, float]:
    """The interval of a figure inside its range whose units all gave one value: the share of
    units that could differ is at most Clopper–Pearson's upper end for none in n_eff,
    1 − alpha^(1/n_eff), and each could move the figure to the end of its range."""
    alpha = (1 - confidence) / 2
    n_eff = n * (stats.norm.ppf(alpha) / stats.t.ppf(alpha, df)) ** 2
    share = 1 - alpha ** (1 / n_eff)
    return value - share * (value - low), value + share * (high - value)

"""The anytime-valid interval of docs/gates.md worked out again from recorded looks, apart from
the code that makes it: each look's t interval on the logit scale of the figure's range, a
partial look's degrees of freedom no more than its fewest units less one, the Pocock-type
share of the level spent by information fraction (V = A + B/f fitted to the looks' se²), the
looks before the complete design spending together no more than 1 − 0.25 of the level, the
last look at the complete design spending what is left (at least 0.25), and the intersection
of the looks' intervals at their spent levels."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from scipy import stats


def _fraction(fractions: Sequence[float], variances: Sequence[float]) -> float:
    f, v = fractions[-1], variances[-1]
    if len(fractions) < 2:
        return f
    xs = [1 / x for x in fractions]
    n = len(xs)
    mx, mv = sum(xs) / n, sum(variances) / n
    slope = sum((x - mx) * (y - mv) for x, y in zip(xs, variances, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )
    level = mv - slope * mx
    if slope < 0:
        level, slope = mv, 0.0
    elif level < 0:
        level = 0.0
        slope = sum(x * y for x, y in zip(xs, variances, strict=True)) / sum(x * x for x in xs)
    return min(max((level + slope) / v, f), 1.0)


#: The share of the level the complete design keeps, as docs/gates.md states it.
FLOOR = 0.25


def shares(fractions: Sequence[float], ses: Sequence[float], final: bool) -> list[float]:
    """Each look's share of the level."""

    def spend(t: float) -> float:
        return math.log(1 + (math.e - 1) * t)

    out, spent_t, spent = [], 0.0, 0.0
    for j in range(len(fractions)):
        last = final and j == len(fractions) - 1
        t = 1.0 if last else _fraction(fractions[: j + 1], [s * s for s in ses[: j + 1]])
        t = max(t, spent_t)
        upto = spend(t) if last else min(spend(t), 1 - FLOOR)
        out.append(max(upto, spent) - spent)
        spent_t, spent = t, max(upto, spent)
    return out


def look_bounds(number: Mapping[str, Any], df: float, level: float) -> tuple[float, float]:
    """A look's t interval at two-sided ``level`` on the logit scale of [−100, 100]."""
    p = (number["value"] + 100) / 200
    centre = math.log(p / (1 - p))
    se = number["se"] / (200 * p * (1 - p))
    q = float(stats.t.ppf(1 - (1 - level) / 2, df))
    return tuple(-100 + 200 / (1 + math.exp(-(centre + s * q * se))) for s in (-1, 1))  # type: ignore[return-value]


def anytime(
    numbers: Sequence[Mapping[str, Any]], fractions: Sequence[float]
) -> tuple[float, float, list[float]]:
    """The 95% anytime-valid interval over ``numbers`` (one a look, the last at the complete
    design where its fraction is 1) and the shares of the level each look spent."""
    final = fractions[-1] >= 1
    w = shares(fractions, [n["se"] for n in numbers], final)
    low, high = -math.inf, math.inf
    for j, (number, share) in enumerate(zip(numbers, w, strict=True)):
        complete = final and j == len(numbers) - 1
        df = number["df"] if complete else min(number["df"], min(number["units"].values()) - 1)
        lo, hi = look_bounds(number, df, 1 - 0.05 * share)
        low, high = max(low, lo), min(high, hi)
    return low, high, w

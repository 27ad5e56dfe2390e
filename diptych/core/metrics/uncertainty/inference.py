"""A figure with its interval and its test: :class:`Inference`, the one record every metric
returns, and :func:`t_inference`, the one place where ``value ± t(df)·se`` and the two-sided t-test
of the same ``(value − null) / se`` are made, so that an interval and the test beside it cannot
disagree. A figure with a range has both on a scale without bounds, mapped back
(:mod:`diptych.core.metrics.uncertainty.intervals`). What each design resamples, and so its ``se``
and ``df``, is :mod:`diptych.core.metrics.uncertainty.resampling`'s.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from diptych.core.metrics.uncertainty.bootstrap import (
    DEFAULT_CONFIDENCE,
    _check_confidence,
    json_safe,
)
from diptych.core.metrics.uncertainty.intervals import UNBOUNDED, Bounds, IntervalRecipe, Transform

#: What each unit name means to a reader, and the population an interval over it speaks for.
UNITS: dict[str, str] = {
    "identity": "identities like these",
    "masculine identity": "masculine-stereotyped identities like these",
    "feminine identity": "feminine-stereotyped identities like these",
    "partner": "partners like these",
    "template": "prompt templates like these",
    "image": "images like these",
    "scenario": "scenarios like these",
    "occupation": "occupations like these (all wordings of one together)",
    "counterfactual set": "counterfactual sets like these (the attribute permuted within each)",
    "query": "queries like these",
    "scene": "these identities (scenes resampled)",
    "unordered scene": "these identities (scenes resampled, both orders and all samples merged)",
    "question": "questions like these",
    "story": "stories like these",
}


@dataclass(frozen=True)
class Inference:
    """A figure with its interval and its test against ``null``, from one resampling design.

    ``units`` maps each resampled kind of unit to how many distinct units the data hold; ``n``
    counts observations (rows), which are not independent and never the interval's sample size.
    """

    value: float
    ci_low: float
    ci_high: float
    p_value: float
    se: float
    df: float
    n: int
    units: Mapping[str, int]
    design: str
    null: float = 0.0
    confidence: float = DEFAULT_CONFIDENCE
    #: Why there is no interval (too few units), or None.
    reason: str | None = None
    #: The population the interval speaks for (from :data:`UNITS`).
    population: str = field(default="")
    #: The range the figure can take; the interval is made inside it (module docstring).
    bounds: Bounds = UNBOUNDED
    #: The scale a bounded interval is made on (None: the default for its bounds).
    transform: Transform | None = None
    #: A share's count of hits (its interval at a bound, where the transform says so).
    count: int | None = None
    #: The size behind the interval of a figure at its bound (Clopper–Pearson's n), where it
    #: is not the observations: the units, when a unit's observations move together.
    bound_n: int | None = None
    #: The df that shrinks ``bound_n`` at a bound (None: ``df``; inf: none, ``bound_n``
    #: counting the independent draws themselves).
    bound_df: float | None = None
    #: Where a crossed design's interval fell to its floor, the interval over the pairings of
    #: its two lists (the identities varied no more than those): that said for a reader, since
    #: ``units`` still names the lists the design meant to resample. None otherwise.
    floor: str | None = None

    @property
    def excludes_null(self) -> bool:
        return self.ci_low > self.null or self.ci_high < self.null

    @property
    def has_interval(self) -> bool:
        return self.reason is None

    def to_dict(self) -> dict[str, Any]:
        return json_safe(
            {
                "value": self.value,
                "ci_low": self.ci_low,
                "ci_high": self.ci_high,
                "p_value": self.p_value,
                "se": self.se,
                "df": self.df,
                "n": self.n,
                "units": dict(self.units),
                "design": self.design,
                "null": self.null,
                "confidence": self.confidence,
                "reason": self.reason,
                "population": self.population,
                **({"bound_n": self.bound_n} if self.bound_n is not None else {}),
                **({"floor": self.floor} if self.floor else {}),
                **(self.recipe().fields() if self.reason is None else {}),
            }
        )

    def recipe(self) -> IntervalRecipe:
        """How this interval is made, to make it again at another level (a gate's)."""
        return IntervalRecipe.t(
            self.value, self.se, self.df, bounds=self.bounds, transform=self.transform,
            n=self.n if self.bound_n is None else self.bound_n, count=self.count,
            bound_df=self.bound_df,
        )  # fmt: skip

    def at_level(self, confidence: float) -> tuple[float, float]:
        """The interval of the same method at another level."""
        if not self.has_interval:
            return self.ci_low, self.ci_high
        return self.recipe().interval(confidence)

    def scaled(self, factor: float) -> Inference:
        """The same inference of ``factor`` × the figure (p-value unchanged)."""
        lo, hi = sorted((self.ci_low * factor, self.ci_high * factor))
        b_lo, b_hi = sorted((self.bounds[0] * factor, self.bounds[1] * factor))
        return Inference(
            self.value * factor, lo, hi, self.p_value, abs(self.se * factor), self.df, self.n,
            self.units, self.design, self.null * factor, self.confidence, self.reason,
            self.population, (b_lo, b_hi), self.transform, self.count, self.bound_n,
            self.bound_df, self.floor,
        )  # fmt: skip


def t_inference(
    value: float,
    se: float,
    df: float,
    *,
    n: int,
    units: Mapping[str, int],
    design: str,
    null: float = 0.0,
    confidence: float = DEFAULT_CONFIDENCE,
    reason: str | None = None,
    bounds: Bounds = UNBOUNDED,
    transform: Transform | None = None,
    count: int | None = None,
    bound_n: int | None = None,
    bound_df: float | None = None,
) -> Inference:
    """``value ± t(df)·se`` and the two-sided t-test of ``value = null``: the one place where an
    interval and its test are made, so that they agree. A figure with ``bounds`` has both on
    the scale of ``transform`` (by default the logit of its place in the range; see
    :mod:`diptych.core.metrics.uncertainty.intervals`), which keeps the interval inside the range;
    ``bound_n`` is the size its interval at a bound rests on when not the ``n`` observations."""
    # scipy.special, not scipy.stats: the same functions without the second it takes to import.
    from scipy.special import stdtr, stdtrit

    _check_confidence(confidence)
    population = "; ".join(UNITS.get(u, u) for u in units)
    shape = (bounds, transform, count, bound_n, bound_df)
    if reason is not None or not math.isfinite(value) or df < 1 or not math.isfinite(se):
        why = reason or (
            "fewer than two units vary: no interval"
            if df < 1 or not math.isfinite(se)
            else "the value is not finite: no interval"
        )
        return Inference(
            value, -math.inf, math.inf, 1.0, math.inf, df, n, units, design, null, confidence,
            why, population, *shape,
        )  # fmt: skip
    if bounds != UNBOUNDED:
        recipe = IntervalRecipe.t(
            value, se, df, bounds=bounds, transform=transform,
            n=n if bound_n is None else bound_n, count=count, bound_df=bound_df,
        )  # fmt: skip
        low, high = recipe.interval(confidence)
        return Inference(
            value, low, high, recipe.p_value(null), se, df, n, units, design, null, confidence,
            None, population, recipe.bounds, recipe.transform, count, bound_n, bound_df,
        )  # fmt: skip
    if se == 0.0:
        # Every unit gave the same value: nothing varies, the interval is the point.
        p = 1.0 if value == null else 0.0
        return Inference(
            value, value, value, p, 0.0, df, n, units, design, null, confidence, None, population
        )
    q = float(stdtrit(df, 0.5 + confidence / 2))
    t = (value - null) / se
    p = float(2 * stdtr(df, -abs(t)))
    return Inference(
        value, value - q * se, value + q * se, p, se, df, n, units, design, null, confidence,
        None, population,
    )  # fmt: skip

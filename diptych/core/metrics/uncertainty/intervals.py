"""How a figure's interval is made from what the figure carries, at any level.

Every headline figure declares the range it can take — an STS lies in [−100, 100], a share in
[0, 1], a difference of two STS in [−200, 200], a skew at or above 0 — and its interval is made
so that it stays inside it, never cut to it afterwards (a cut interval covers less than it
says). A figure's number carries what its interval is made from (``interval_method`` and its
inputs), so that anything reading the number — a release gate at a Holm-adjusted level above
all — makes the very interval the report printed, at whatever level it needs:

* ``t`` — ``value ± t(df)·se`` for a figure without a finite bound. For a bounded one the same t and
  se on a scale that has no bound (the delta method), mapped back: the logit of the figure's place
  in its range, p = (x − a)/(b − a), whose se is se/((b − a)·p(1 − p)); the log of its distance from
  its one finite bound; or, for the shares of PAIRS answers
  (:mod:`diptych.core.metrics.pairs.association`) and the prediction-powered figures
  (:func:`diptych.core.metrics.uncertainty.ppi.small_sample.interval_scale`), the angular scale asin
  √p, which is bounded itself. Near a bound the interval grows on the open side and shrinks on the
  other, as the figure's sampling distribution does. A figure *at* its bound (every unit gave the
  bound: no variance to read) gets the Clopper–Pearson interval of n successes in n, with n the
  observations shrunk by the design's degrees of freedom, n·(z/t(df))² (Korn & Graubard 1998,
  *Survey Methodology* 24(2), for a proportion of a complex sample); an angular share there, the
  Jeffreys interval of its count, as measured for it. A figure inside its range whose units all gave
  one value gets the same open ends on both sides: never a zero-width interval from a finite sample.
* ``percentile`` — the equal-tailed percentile interval of the bootstrap replicates, which the
  number keeps (sorted, compressed: ``replicates``); it is inside the range by construction.
* ``jeffreys`` — the Jeffreys interval of a count (``count`` successes of ``n``).
* ``printed`` — a figure from elsewhere that states only its interval and the level: each side's
  distance from the value is scaled by the normal quantile (exact at the printed level).

A p-value is the level at which the interval reaches the null, so an interval excludes the null
exactly when p < 1 − confidence, whichever the method. ``bench/validity/figures.py`` measures the
coverage of the bounded intervals on small designs and near the bounds.
"""

from __future__ import annotations

import base64
import math
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from diptych.core.metrics.uncertainty.scales import (
    ROUNDING,
    Bounds,
    Transform,
    from_scale,
    scale_slope,
    t_cdf,
    t_quantile,
    to_scale,
)

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

Side = Literal["low", "high"]

#: No bound on either side.
UNBOUNDED: Bounds = (-math.inf, math.inf)
#: The Stereotype Test Score (PST §3.3): a mean of ±1 scored × 100.
STS_RANGE: Bounds = (-100.0, 100.0)
#: B − A of two STS.
STS_DIFFERENCE_RANGE: Bounds = (-200.0, 200.0)
#: A share, a rate, a correlation-free proportion.
SHARE_RANGE: Bounds = (0.0, 1.0)
#: A share in percent.
PERCENT_RANGE: Bounds = (0.0, 100.0)
#: A mean of scores in [−1, 1] (PAIRS association scores, Pearson's r, Bias@K).
UNIT_SCORE_RANGE: Bounds = (-1.0, 1.0)
#: A figure that is never negative (MaxSkew@K, NDKL@K).
NON_NEGATIVE: Bounds = (0.0, math.inf)


def default_transform(bounds: Bounds) -> Transform | None:
    """The scale a t interval of a figure in ``bounds`` is made on: logit between two finite
    bounds, log beside one, none without any."""
    low, high = bounds
    if math.isfinite(low) and math.isfinite(high):
        return "logit"
    if math.isfinite(low) or math.isfinite(high):
        return "log"
    return None


def check_bounds(bounds: Bounds) -> Bounds:
    low, high = float(bounds[0]), float(bounds[1])
    if not low < high:
        raise ValueError(f"a figure's range needs low < high, got [{low}, {high}]")
    return low, high


# --- the recipe -------------------------------------------------------------------------------


@dataclass(frozen=True)
class IntervalRecipe:
    """What a figure's interval is made from; :meth:`interval` makes it at any level.

    Build one with :meth:`t`, :meth:`percentile`, :meth:`jeffreys` or, from a report's number,
    :meth:`from_number`; :meth:`fields` is what a number carries to be read back."""

    method: Literal["t", "percentile", "jeffreys", "printed"]
    value: float
    se: float = math.nan
    df: float = math.inf
    bounds: Bounds = UNBOUNDED
    transform: Transform | None = None
    #: Observations (the Clopper–Pearson size at a bound) or the count's trials.
    n: int | None = None
    #: A Jeffreys count's successes; an angular share's hits (its Jeffreys interval at a bound).
    count: int | None = None
    #: Sorted bootstrap replicates (percentile).
    replicates: NDArray[np.float64] | None = None
    #: The printed interval and its level (printed).
    printed: tuple[float, float, float] | None = None
    #: The df that shrinks ``n`` at a bound (None: ``df``); inf where ``n`` counts the draws
    #: themselves (a slice's images), whose Clopper–Pearson end needs no shrinking.
    bound_df: float | None = None

    # --- constructors -------------------------------------------------------------------------

    @classmethod
    def t(
        cls,
        value: float,
        se: float,
        df: float,
        *,
        bounds: Bounds = UNBOUNDED,
        transform: Transform | None = None,
        n: int | None = None,
        count: int | None = None,
        bound_df: float | None = None,
    ) -> IntervalRecipe:
        bounds = check_bounds(bounds)
        chosen = transform if transform is not None else default_transform(bounds)
        return cls("t", value, se, df, bounds, chosen, n, count, bound_df=bound_df)

    @classmethod
    def percentile(cls, value: float, replicates: ArrayLike) -> IntervalRecipe:
        import numpy as np

        reps = np.sort(np.asarray(replicates, dtype=np.float64).ravel())
        return cls("percentile", value, replicates=reps[np.isfinite(reps)])

    @classmethod
    def jeffreys(cls, successes: int, trials: int) -> IntervalRecipe:
        value = successes / trials if trials else math.nan
        return cls("jeffreys", value, bounds=SHARE_RANGE, n=trials, count=successes)

    @classmethod
    def from_number(cls, number: Mapping[str, Any]) -> IntervalRecipe | str:
        """The recipe a report's number carries; a string says why it has none."""
        value = _finite(number.get("value"))
        if value is None:
            return "the figure has no finite value"
        reason = number.get("reason")
        if isinstance(reason, str) and reason:
            return f"the figure has no interval ({reason})"
        method = number.get("interval_method")
        n = number.get("n") if isinstance(number.get("n"), int) else None
        # A figure at its bound rests on its units where they are not its observations.
        bound_n = number.get("bound_n") if isinstance(number.get("bound_n"), int) else n
        if method == "percentile" and isinstance(number.get("replicates"), str):
            return cls.percentile(value, decode_replicates(number["replicates"]))
        if method == "jeffreys" and isinstance(number.get("count"), int) and n:
            return cls.jeffreys(int(number["count"]), n)
        se, df = _number(number.get("se")), _number(number.get("df"))
        bounds = bounds_of(number.get("range"))
        # An infinite se of a figure with a range: nothing known inside it, the whole range.
        whole = se == math.inf and math.isfinite(bounds[0]) and math.isfinite(bounds[1])
        if se is not None and (math.isfinite(se) or whole) and df is not None and df >= 1:
            transform = number.get("transform")
            count = number.get("count") if isinstance(number.get("count"), int) else None
            return cls.t(
                value, se, df, bounds=bounds, n=bound_n, count=count,
                transform=transform if transform in ("logit", "log", "arcsine") else None,
                bound_df=_bound_df(number),
            )  # fmt: skip
        low, high = _finite(number.get("ci_low")), _finite(number.get("ci_high"))
        if low is None or high is None:
            return "the figure has no interval"
        level = _finite(number.get("confidence")) or 0.95
        return cls("printed", value, printed=(low, high, level))

    def fields(self) -> dict[str, Any]:
        """What a number carries so that :meth:`from_number` makes this recipe again."""
        out: dict[str, Any] = {"interval_method": self.method}
        if math.isfinite(self.bounds[0]) or math.isfinite(self.bounds[1]):
            out["range"] = list(self.bounds)
        if self.method == "t" and self.transform is not None:
            out["transform"] = self.transform
        if self.method == "percentile" and self.replicates is not None:
            out["replicates"] = encode_replicates(self.replicates)
            out["n_boot"] = int(self.replicates.size)
        if self.count is not None:
            out["count"] = self.count
        if self.bound_df is not None:
            # null: n counts the independent draws themselves, not shrunk (JSON has no inf).
            out["bound_df"] = None if math.isinf(self.bound_df) else self.bound_df
        return out

    # --- what it makes ------------------------------------------------------------------------

    @property
    def description(self) -> str:
        """How the interval is made, in a few words (what a gate's output says)."""
        if self.method == "percentile":
            size = 0 if self.replicates is None else self.replicates.size
            return f"percentile of {size} bootstrap replicates"
        if self.method == "jeffreys":
            return f"Jeffreys interval of {self.count} in {self.n}"
        if self.method == "printed":
            return "its printed interval, each side scaled by the normal quantile"
        if self.transform is None:
            return "t"
        # Printed with the reader's minus (U+2212), as every printed number is.
        low, high = (f"{b:g}".replace("-", "\u2212") for b in self.bounds)
        return f"t on the {self.transform} scale of [{low}, {high}]"

    def bound(self, side: Side, alpha: float) -> float:
        """The lower or upper end of the interval at one-sided level ``alpha`` (two-sided
        confidence 1 − 2·alpha)."""
        if not 0.0 < alpha < 1.0:
            raise ValueError(f"a one-sided level is between 0 and 1, got {alpha}")
        if self.method == "percentile":
            return self._percentile_bound(side, alpha)
        if self.method == "jeffreys":
            return self._jeffreys_bound(side, alpha, self.count or 0, self.n or 0)
        if self.method == "printed":
            return self._printed_bound(side, alpha)
        return self._t_bound(side, alpha)

    def interval(self, confidence: float) -> tuple[float, float]:
        alpha = (1.0 - confidence) / 2.0
        return self.bound("low", alpha), self.bound("high", alpha)

    def p_below(self, limit: float) -> float:
        """One-sided p of "the truth is at or above ``limit``": the smallest one-sided level
        at which the upper end falls below ``limit`` (small: shown below)."""
        closed = self._t_p(limit, "below")
        return closed if closed is not None else _invert(lambda a: self.bound("high", a) < limit)

    def p_above(self, limit: float) -> float:
        """One-sided p of "the truth is at or below ``limit``" (small: shown above)."""
        closed = self._t_p(limit, "above")
        return closed if closed is not None else _invert(lambda a: self.bound("low", a) > limit)

    def p_value(self, null: float) -> float:
        """The two-sided p of ``value = null``: the interval excludes ``null`` exactly when
        p < 1 − confidence."""
        return min(1.0, 2.0 * min(self.p_below(null), self.p_above(null)))

    # --- the methods --------------------------------------------------------------------------

    def _transformed(self) -> tuple[float, float] | None:
        """(value, se) on the transform's scale; None at a bound (no variance to read)."""
        assert self.transform is not None
        low, high = self.bounds
        if not low < self.value < high:
            return None
        return (
            to_scale(self.value, self.bounds, self.transform),
            self.se * scale_slope(self.value, self.bounds, self.transform),
        )

    def _t_bound(self, side: Side, alpha: float) -> float:
        if not math.isfinite(self.se):
            # Nothing is known: the whole range (no end at all for an unbounded figure).
            return self.bounds[0] if side == "low" else self.bounds[1]
        q = t_quantile(1.0 - alpha, self.df)
        if self.transform is None:
            return self.value - q * self.se if side == "low" else self.value + q * self.se
        moved = self._transformed()
        if moved is None or self._no_spread():
            return self._without_spread(side, alpha)
        u, se_u = moved
        return from_scale(u - q * se_u if side == "low" else u + q * se_u, self.bounds,
                         self.transform)  # fmt: skip

    def _no_spread(self) -> bool:
        """Whether the units gave one value: an se of 0, or one that is rounding (a mean of
        equal values summed in another order) — a trillionth of the range."""
        return self.se <= ROUNDING * (self.bounds[1] - self.bounds[0])

    def _without_spread(self, side: Side, alpha: float) -> float:
        """A figure whose units all gave the same value (at its bound, or anywhere when every
        unit's mean is the same): no variance to read. The share of units that could differ
        is at most Clopper–Pearson's upper end for none in n, 1 − α^(1/n), with n the units
        shrunk by the design's degrees of freedom, n·(z/t(df))² (Korn & Graubard 1998; not
        shrunk where n counts the independent draws themselves, ``bound_df`` inf); each
        such unit could move the figure to the end of its range. At a bound that is the
        Clopper–Pearson interval of n in n (its closed end the bound itself); an angular share
        there gets the Jeffreys interval of its count."""
        low, high = self.bounds
        n = self.n or 0
        if n < 1:
            return low if side == "low" else high
        at_bound = not low < self.value < high
        if at_bound and self.transform == "arcsine" and self.count is not None:
            if (side == "high") == (self.value >= high):
                return self.value
            return low + (high - low) * self._jeffreys_bound(side, alpha, self.count, n)
        from scipy.special import betaincinv

        df = self.df if self.bound_df is None else self.bound_df
        z, t = t_quantile(alpha, math.inf), t_quantile(alpha, df)
        # Near a level of 1/2 (reached when a p-value is found by inversion) scipy's t quantile
        # can round to 0 for small df; both quantiles vanish there and the sizes agree.
        effective = n * (z / t) ** 2 if t != 0.0 else float(n)
        # Clopper–Pearson at x = n (or 0): Beta(n, 1)'s alpha quantile, α^(1/n).
        share = 1.0 - float(betaincinv(effective, 1.0, alpha))
        if side == "low":
            return self.value - share * (self.value - low)
        return self.value + share * (high - self.value)

    def _t_p(self, limit: float, direction: Literal["below", "above"]) -> float | None:
        """The closed form of a t recipe's one-sided p; None where it is found by inversion
        (another method, or a figure at its bound)."""
        if self.method != "t":
            return None
        if not math.isfinite(self.se):
            return 1.0
        if self.transform is None:
            u, se_u, at = self.value, self.se, limit
        else:
            moved = self._transformed()
            if moved is None or self._no_spread():
                # Bounded and without spread: not a t interval, its p found by inversion.
                return None
            u, se_u = moved
            at = to_scale(min(max(limit, self.bounds[0]), self.bounds[1]), self.bounds,
                          self.transform)  # fmt: skip
        gap = u - at if direction == "below" else at - u
        if se_u == 0.0:
            return 0.0 if gap < 0 else 1.0
        if math.isinf(gap):
            return 0.0 if gap < 0 else 1.0
        return t_cdf(gap / se_u, self.df)

    def _percentile_bound(self, side: Side, alpha: float) -> float:
        import numpy as np

        reps = self.replicates
        if reps is None or reps.size == 0:
            return -math.inf if side == "low" else math.inf
        q = 100.0 * (alpha if side == "low" else 1.0 - alpha)
        return float(np.percentile(reps, q))

    @staticmethod
    def _jeffreys_bound(side: Side, alpha: float, successes: int, trials: int) -> float:
        ci = jeffreys_interval(successes, trials, 1.0 - 2.0 * alpha)
        if ci is None:
            return -math.inf if side == "low" else math.inf
        return ci[0] if side == "low" else ci[1]

    def _printed_bound(self, side: Side, alpha: float) -> float:
        assert self.printed is not None
        low, high, level = self.printed
        scale = t_quantile(1.0 - alpha, math.inf) / t_quantile(0.5 + level / 2, math.inf)
        if side == "low":
            return self.value - (self.value - low) * scale
        return self.value + (high - self.value) * scale


#: Jeffreys' prior Beta(½, ½) for a binomial proportion.
JEFFREYS = 0.5


def jeffreys_interval(
    successes: int, trials: int, confidence: float = 0.95
) -> tuple[float, float] | None:
    """The Jeffreys interval of a binomial proportion (Brown, Cai & DasGupta 2001), with its
    usual boundary fix (0 below at x = 0, 1 above at x = n); None for no trial."""
    if trials <= 0:
        return None
    from scipy.special import betaincinv

    alpha = 1.0 - confidence
    a, b = successes + JEFFREYS, trials - successes + JEFFREYS
    low = 0.0 if successes == 0 else float(betaincinv(a, b, alpha / 2))
    high = 1.0 if successes == trials else float(betaincinv(a, b, 1 - alpha / 2))
    return low, high


def _invert(clears: Callable[[float], bool]) -> float:
    """The smallest one-sided level a in (0, 1/2) at which ``clears(a)`` holds (it holds for
    every larger a); 0 when it holds at any level, 1 when not even at 1/2."""
    tiny, half = 1e-12, 0.5 - 1e-12
    if not clears(half):
        return 1.0
    if clears(tiny):
        return 0.0
    lo, hi = math.log(tiny), math.log(half)
    for _ in range(64):
        mid = (lo + hi) / 2
        if clears(math.exp(mid)):
            hi = mid
        else:
            lo = mid
    return math.exp(hi)


# --- replicates in a number -------------------------------------------------------------------


def encode_replicates(replicates: ArrayLike) -> str:
    """Sorted finite replicates as text a JSON number can hold: little-endian float64,
    zlib-compressed (a bootstrap of ±1 scores has few distinct values), base64. A string, so
    that nothing reading a report's numbers mistakes a replicate for a figure."""
    import numpy as np

    reps = np.sort(np.asarray(replicates, dtype="<f8").ravel())
    reps = reps[np.isfinite(reps)]
    return base64.b64encode(zlib.compress(reps.tobytes(), 9)).decode("ascii")


def decode_replicates(text: str) -> NDArray[np.float64]:
    import numpy as np

    raw = zlib.decompress(base64.b64decode(text.encode("ascii")))
    out: NDArray[np.float64] = np.frombuffer(raw, dtype="<f8").astype(np.float64)
    return out


def percentile_number(
    value: float,
    replicates: ArrayLike,
    confidence: float,
    *,
    n: int,
    bounds: Bounds | None = None,
    units: Mapping[str, int] | None = None,
    population: str = "",
) -> dict[str, Any]:
    """A headline number with a percentile interval that a gate can make again at any level:
    value, the interval (from the replicates it keeps), n, and the recipe's fields; with
    ``units``, what the bootstrap resampled (``{"occupation": 12}``) and the ``population``
    that speaks for. Its interval is the replicates' whatever their spread: a gate reads a look
    at a bound as the t interval of its units (``sequential.look_interval``), and a figure a
    page shows says why it has none (``one_value.point_to_reason``)."""
    recipe = IntervalRecipe.percentile(value, replicates)
    low, high = recipe.interval(confidence)
    out: dict[str, Any] = {"value": value, "ci_low": low, "ci_high": high, "n": n}
    out.update(recipe.fields())
    if bounds is not None:
        out["range"] = list(bounds)
    if units:
        out["units"] = dict(units)
        out["population"] = population
        out["reason"] = None
    return out


# --- reading ----------------------------------------------------------------------------------


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _bound_df(number: Mapping[str, Any]) -> float | None:
    """A number's ``bound_df``: absent, ``df``'s (None); null (or an older report's "inf"),
    not shrunk at all (inf); else the df that shrinks ``n`` at a bound."""
    if "bound_df" in number and number["bound_df"] is None:
        return math.inf
    return _number(number.get("bound_df"))


def _number(value: Any) -> float | None:
    """A number as JSON spells it: infinities as the strings "inf" / "-inf"."""
    if value in ("inf", "-inf"):
        return math.inf if value == "inf" else -math.inf
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def bounds_of(value: Any) -> Bounds:
    """A number's ``range`` as bounds (unbounded where it states none)."""
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != 2:
        return UNBOUNDED
    low, high = _number(value[0]), _number(value[1])
    if low is None or high is None or not low < high:
        return UNBOUNDED
    return low, high

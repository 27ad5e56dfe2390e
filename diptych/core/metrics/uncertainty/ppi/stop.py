"""When a reviewer labelling a measurement draw has done enough: the interval expected after
more labels, and an interval that may be looked at after every label.

**Expected half-width.** A prediction-powered figure's variance has two parts (its ``se`` and
``sampling_variance``, :mod:`diptych.core.metrics.uncertainty.ppi.estimate`): V_S, the part that
comes from drawing the human sample — the rectifier's Poisson-sampling variance Σ (1 − π')/π'² (r −
r̄)², which falls as 1/n with n labels of the same design — and the rest, what the resampled units
and the annotator's labels on every person carry, which no label changes. After ``more`` labels,

    se²(n + more) = se² − V_S + V_S · n / (n + more),

and the expected interval is the figure's own interval made with that standard error (same
method, level and range: :func:`expected_half_width`), its degrees of freedom those of the
sampling part grown in proportion to the labels, the rest's kept (:func:`df_after`). The 1/n law
takes π' to grow in proportion to the labels, as it does in a measurement draw (π' = (m/N)·π
with the visited prefix m growing as the labels do), holds λ where it is and leaves out the
finite-population gain as π' nears 1. On a simulated uniform sample the forecast after 10 and 50
more labels is within 2% of the half-width those labels give
(``tests/core/metrics/uncertainty/ppi/test_measurement_stop.py``); on the measurement draw itself
(``bench/measure.py``) it is within a few per cent from 40 labels on, and errs wide before (from
20 labels, the figure narrows faster than forecast as λ settles).

**Looking after every label.** A 95% interval looked at after every label and taken as decided
the first time it clears a limit clears it by chance far more often than 5% of the time (half of
the runs in ``bench/measure.py``). The labels arrive one by one, and the estimates form, in
information time t = I_n / I_B (I = 1/se², I_B at the draw's budget of B labels), a Brownian
motion: the covariance of two looks is the variance of the later one (the units' part U is
shared, the labels' part S/n a mean). For a Brownian motion W, P(sup_{t ≤ 1} W(t) ≥ c) =
2 (1 − Φ(c)) (the reflection principle), so the continuous-monitoring boundary of
O'Brien–Fleming type,

    |θ̂_n − L| / se_n ≥ c / √t_n,     c = Φ⁻¹(1 − α/4),

decides wrongly with probability at most α/2 on each side however often it is looked at, up
to the budget (Lan & DeMets, Biometrika 70, 1983, spend α this way). The information fraction
is taken as n / B: the true one, (U + S/B) / (U + S/n), is never smaller, so the boundary only
errs on the safe side, and it needs no estimate of the two parts — which a few labels get wrong
(while no label has yet disagreed with the annotator, the sampling part looks like nothing).
:func:`monitored_interval` is the figure's interval made at that level: √(B/n) times wider in
standard errors early, 2.24 (against 1.96) at the budget; with a t interval's degrees of
freedom, the quantiles are t quantiles. Past the budget t is held at 1. Before
:data:`MIN_LABELS` labels nothing is decided (an interval resting on so few people's labels
can have next to no width). ``bench/measure.py`` measures the rate with the truth at the limit.

**Enough.** A gate's limit(s) are decided when the monitored interval lies wholly on one side
(for ``within``, wholly inside or wholly outside) — the audit's gate will then read the same
way from the report's narrower interval, before any family adjustment (Holm) of several gates;
or the reviewer's own half-width is reached (a width, not a verdict: no correction needed) —
either only from :data:`MIN_LABELS` labels on.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from diptych.core.digits import figure_text
from diptych.core.metrics.uncertainty.bootstrap import DEFAULT_CONFIDENCE
from diptych.core.metrics.uncertainty.intervals import IntervalRecipe

#: How many more labels the mode shows the expected half-width after.
LOOK_AHEAD = (10, 50)
#: No gate is decided on fewer labels of the draw (module docstring).
MIN_LABELS = 10


def _t_ppf(p: float, df: float) -> float:
    from scipy import stats

    return float(stats.norm.ppf(p) if not math.isfinite(df) else stats.t.ppf(p, df))


def _t_sf(x: float, df: float) -> float:
    from scipy import stats

    return float(stats.norm.sf(x) if not math.isfinite(df) else stats.t.sf(x, df))


def variance_after(se: float, sampling_variance: float, n_labelled: int, more: float) -> float:
    """se² after ``more`` labels of the same design (module docstring): the sampling part
    ``sampling_variance`` falls as n / (n + more), the rest stays."""
    total = se**2
    if n_labelled < 1 or not math.isfinite(total):
        return total
    sampling = min(max(sampling_variance, 0.0), total)
    return total - sampling + sampling * n_labelled / (n_labelled + max(more, 0.0))


def df_after(number: Mapping[str, Any], more: float) -> float:
    """The interval's degrees of freedom after ``more`` labels of the same design: the
    sampling part's (``sampling_df``) grow with the labels, the rest's (what the units carry,
    read back from the figure's Satterthwaite combination) stay; at most the labels less one."""
    df = float(number["df"])
    n = int(number["n_labelled"])
    se = float(number["se"])
    df_s = number.get("sampling_df")
    total = se**2
    sampling = min(max(float(number.get("sampling_variance") or 0.0), 0.0), total)
    if not isinstance(df_s, int | float) or not math.isfinite(df_s) or sampling <= 0 or n < 1:
        return df
    # Satterthwaite: 1/df = [S²/df_S + R²/df_R] / V², so the rest's term R²/df_R is what the
    # figure's df leaves once the sampling part's is taken out; it does not change.
    rest_term = max(total**2 / df - sampling**2 / df_s, 0.0) if df > 0 else 0.0
    later_s = sampling * n / (n + more)
    later = total - sampling + later_s
    den_later = later_s**2 / (df_s * (n + more) / n) + rest_term
    grown = later**2 / den_later if den_later > 0 else math.inf
    return float(min(n + more - 1, max(1.0, grown)))


def _recipe(number: Mapping[str, Any]) -> IntervalRecipe:
    recipe = IntervalRecipe.from_number(number)
    if isinstance(recipe, str):
        raise ValueError(recipe)
    if recipe.method != "t":
        raise ValueError(f"the figure's interval is a {recipe.method} one, not a t interval")
    return recipe


def _with_se(recipe: IntervalRecipe, se: float, df: float | None = None) -> IntervalRecipe:
    return IntervalRecipe.t(
        recipe.value, se, recipe.df if df is None else df, bounds=recipe.bounds,
        transform=recipe.transform, n=recipe.n, count=recipe.count,
    )  # fmt: skip


def _half(interval: tuple[float, float]) -> float:
    return (interval[1] - interval[0]) / 2.0


def expected_half_width(
    number: Mapping[str, Any], more: int, confidence: float = DEFAULT_CONFIDENCE
) -> float:
    """The half-width a prediction-powered figure's interval is expected to have after
    ``more`` labels (module docstring); ``number`` is the figure as a result's numbers keep it
    (``se``, ``df``, ``sampling_variance``, ``n_labelled``, its range and transform)."""
    recipe = _recipe(number)
    se = float(number["se"])
    later = variance_after(
        se, float(number.get("sampling_variance") or 0.0), int(number["n_labelled"]), more
    )
    return _half(_with_se(recipe, math.sqrt(later), df_after(number, more)).interval(confidence))


def information_fraction(number: Mapping[str, Any], budget: int) -> float:
    """t_n = n / B, the labels given over the draw's ``budget`` (at most 1): never more than
    the share of the information at the budget that the figure holds (module docstring)."""
    if budget < 1:
        return 1.0
    return min(1.0, int(number["n_labelled"]) / budget)


def monitored_level(confidence: float, information: float, df: float) -> float:
    """The one-sided level of the interval that may be looked at after every label: the
    boundary c / √t with c the 1 − α/4 quantile (module docstring)."""
    alpha = 1.0 - confidence
    c = _t_ppf(1.0 - alpha / 4.0, df)
    return _t_sf(c / math.sqrt(max(information, 1e-12)), df)


def monitored_interval(
    number: Mapping[str, Any], budget: int, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float]:
    """The figure's interval at the level that stays valid with a look after every label, up
    to ``budget`` labels (module docstring)."""
    recipe = _recipe(number)
    level = monitored_level(confidence, information_fraction(number, budget), recipe.df)
    return recipe.bound("low", level), recipe.bound("high", level)


@dataclass(frozen=True)
class GateLimit:
    """An audit's gate on the measured figure: its rule and limit(s) as the audit file says."""

    label: str
    rule: str
    limit: float
    limit_high: float | None = None
    confidence: float = DEFAULT_CONFIDENCE
    audit: str = ""

    def describe(self) -> str:
        if self.rule == "within":
            return f"within [{self.limit:g}, {self.limit_high:g}]"
        # As the audit file states it: the rule's key, never reworded.
        return f"{self.rule} {self.limit:g}"


def gate_decision(gate: GateLimit, low: float, high: float) -> str | None:
    """What an interval [low, high] shows about the gate's limit(s), or None while it straddles
    one: wholly below or above a limit; for ``within``, wholly inside or outside."""
    if gate.rule == "within":
        a, b = gate.limit, gate.limit_high if gate.limit_high is not None else math.inf
        if a < low and high < b:
            return f"shown within [{a:g}, {b:g}]"
        if high < a or low > b:
            return f"shown outside [{a:g}, {b:g}]"
        return None
    if high < gate.limit:
        return f"shown below {gate.limit:g}"
    if low > gate.limit:
        return f"shown above {gate.limit:g}"
    return None


@dataclass(frozen=True)
class MeasureStatus:
    """The measured figure now, what more labels are expected to do, and whether it is enough."""

    figure: str
    value: float
    ci: tuple[float, float]
    labels_only: tuple[float, float] | None
    n_labelled: int
    half_width: float
    #: more labels → expected half-width.
    after: Mapping[int, float]
    #: The interval that may be looked at after every label, at the gate's level.
    monitored: tuple[float, float]
    information: float
    confidence: float
    gate: GateLimit | None = None
    #: What the monitored interval shows about the gate, once it decides it.
    decided: str | None = None
    #: Why the reviewer may stop (None: not yet).
    enough: str | None = None
    #: The half-width the reviewer asked for, if any.
    target: float | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)


def _pair(number: Mapping[str, Any]) -> tuple[float, float] | None:
    low, high = number.get("ci_low"), number.get("ci_high")
    if isinstance(low, int | float) and isinstance(high, int | float):
        return float(low), float(high)
    return None


def measure_status(
    number: Mapping[str, Any],
    figure: str,
    *,
    budget: int,
    gate: GateLimit | None = None,
    target: float | None = None,
    more: Sequence[int] = LOOK_AHEAD,
) -> MeasureStatus:
    """The status of the measured ``figure`` (its ``number`` as the probe's result keeps it);
    ValueError when the figure has no t interval yet (too few labels)."""
    confidence = gate.confidence if gate is not None else DEFAULT_CONFIDENCE
    recipe = _recipe(number)
    ci = recipe.interval(DEFAULT_CONFIDENCE)
    own = number.get("labels_only")
    labels_only = _pair(own) if isinstance(own, Mapping) else None
    information = information_fraction(number, budget)
    level = monitored_level(confidence, information, recipe.df)
    monitored = (recipe.bound("low", level), recipe.bound("high", level))
    half = _half(ci)
    after = {k: expected_half_width(number, k) for k in more}
    n_labelled = int(number["n_labelled"])
    decided = None
    if gate is not None and n_labelled >= MIN_LABELS:
        decided = gate_decision(gate, *monitored)
    enough = None
    if decided is not None and gate is not None:
        enough = f"the gate '{gate.label}' is decided: {decided}"
    elif target is not None and half <= target and n_labelled >= MIN_LABELS:
        enough = f"the half-width {figure_text(half)} has reached ±{figure_text(target)}"
    return MeasureStatus(
        figure=figure, value=recipe.value, ci=ci, labels_only=labels_only,
        n_labelled=n_labelled, half_width=half, after=after,
        monitored=monitored, information=information, confidence=confidence, gate=gate,
        decided=decided, enough=enough, target=target,
    )  # fmt: skip

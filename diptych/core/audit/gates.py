"""Release gates: what an audit file says must hold, answered pass, fail or inconclusive.

A pipeline that gates on a point estimate flips a coin whenever the truth is near its limit: a
noisy 15.2 against 15 blocks a release and 14.8 passes it. A gate here decides on the figure's
confidence interval, so it says only what the data support:

* ``below: L`` passes when the upper bound is below L (shown to be below), fails when the lower
  bound is at or above L, and is inconclusive when the interval straddles L;
* ``not_above: L`` fails only when the lower bound is above L (shown to exceed), passes when the
  upper bound is at or below L, inconclusive otherwise;
* ``above: L`` and ``not_below: L`` are their mirror images (shown above; not shown below);
* ``within: [a, b]`` passes when the interval lies inside [a, b] (shown within: two one-sided
  tests, an equivalence test), fails when it lies wholly outside, and is inconclusive otherwise:
  a signed bias figure gated on both sides;
* ``no_regression: {against, margin}`` is ``below: margin`` on B − A (this audit less a
  baseline): a non-inferiority test.

Each verdict rests on one-sided tests at (1 − confidence)/2, so with the truth exactly at a limit
a gate gives a false verdict at most 2.5% of the time at 95%. The gates of one file are a family:
Holm's step-down (1979) adjusts each gate's level so that the chance of any false verdict across
the family stays at the stated level (``family: none`` opts out). A gate whose test does not
clear its Holm level is inconclusive, and so is every gate after it in Holm's order.

A gate reads the interval the report prints, made again at the gate's adjusted level by the
figure's own method (:class:`~diptych.core.metrics.uncertainty.intervals.IntervalRecipe`: the t
interval on the figure's range, the percentile interval of the replicates the number keeps, the
Jeffreys interval of its count); a figure from elsewhere that states only its interval is read from
it, and the gate says so. ``bench/gates.py`` measures the false verdict rates on simulated audits
whose truth sits at the limit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from diptych.core.metrics.uncertainty.intervals import UNBOUNDED, IntervalRecipe, bounds_of
from diptych.core.metrics.uncertainty.sequential import LookInterval

Verdict = Literal["pass", "fail", "inconclusive"]
OnInconclusive = Literal["fail", "pass", "warn"]
Rule = Literal["below", "not_above", "above", "not_below", "within", "no_regression"]

#: The normal quantile of a two-sided 95% interval.
_Z95 = 1.959963984540054


@dataclass(frozen=True)
class GateFigure:
    """A figure as a gate reads it: value, standard error and degrees of freedom (inf: normal),
    and the recipe of its interval where the figure carries one (else ``value ± t·se``).

    ``method`` says how the interval is made; ``n`` is the figure's observation count and
    ``units`` the units its interval resamples (the "more trials" estimate counts those)."""

    value: float
    se: float
    df: float
    method: str
    n: int | None = None
    #: How the interval is made: a figure's own recipe, or an anytime-valid one made of
    #: several looks (:class:`~diptych.core.metrics.uncertainty.sequential.AnytimeInterval`).
    recipe: IntervalRecipe | LookInterval | None = None
    units: Mapping[str, int] | None = None

    @classmethod
    def from_number(cls, number: Mapping[str, Any]) -> GateFigure | str:
        """From a report's number; a string says why a gate cannot rest on it."""
        recipe = IntervalRecipe.from_number(number)
        if isinstance(recipe, str):
            return recipe
        if recipe.method == "percentile" and recipe.bounds == UNBOUNDED:
            # The range a percentile figure states: what a look's t interval of the same
            # units is made inside (diptych.core.audit.sequential.look_interval).
            recipe = replace(recipe, bounds=bounds_of(number.get("range")))
        n = number.get("n") if isinstance(number.get("n"), int) else None
        units = number.get("units")
        counted = (
            {str(k): int(v) for k, v in units.items() if isinstance(v, int) and v > 0}
            if isinstance(units, Mapping)
            else None
        )
        se = recipe.se if recipe.method == "t" else _spread(recipe)
        return cls(
            recipe.value, se, recipe.df, recipe.description, n, recipe, counted or None
        )  # fmt: skip

    def _made(self) -> LookInterval:
        return self.recipe or IntervalRecipe.t(self.value, self.se, self.df)

    def interval(self, confidence: float) -> tuple[float, float]:
        return self._made().interval(confidence)

    def p_below(self, limit: float) -> float:
        """One-sided p of "the truth is at or above ``limit``" (small: shown below)."""
        return self._made().p_below(limit)

    def p_above(self, limit: float) -> float:
        """One-sided p of "the truth is at or below ``limit``" (small: shown above)."""
        return self._made().p_above(limit)


def _spread(recipe: IntervalRecipe) -> float:
    """A standard error for a figure whose interval is not a t interval: its 95% interval's
    half-width over 1.96 (what the trials estimate scales; never the interval itself)."""
    low, high = recipe.interval(0.95)
    return (high - low) / (2 * _Z95) if math.isfinite(high - low) else math.inf


@dataclass(frozen=True)
class GateRule:
    """One gate as the audit file states it (after the baseline is resolved); ``within`` has
    its lower limit in ``limit`` and its upper one in ``limit_high``."""

    label: str
    part: str
    figure: str
    rule: Rule
    limit: float
    on_inconclusive: OnInconclusive = "fail"
    against: str | None = None
    limit_high: float | None = None


@dataclass(frozen=True)
class GateResult:
    label: str
    part: str
    figure: str
    rule: str
    limit: float
    verdict: Verdict
    value: float | None
    ci_low: float | None
    ci_high: float | None
    #: The two-sided level this gate's interval was read at, after the family's adjustment.
    confidence: float
    method: str
    on_inconclusive: OnInconclusive
    #: For an inconclusive gate: about how many more units (trials where the figure names
    #: none) would clear the limit.
    more_trials: int | None = None
    note: str = ""
    #: ``within``'s upper limit.
    limit_high: float | None = None
    #: For an inconclusive gate: about how many more of each unit the interval resamples.
    more_units: dict[str, int] | None = None

    @property
    def blocks(self) -> bool:
        return self.verdict == "fail" or (
            self.verdict == "inconclusive" and self.on_inconclusive == "fail"
        )

    @property
    def limit_text(self) -> str:
        return limit_text(self.rule, self.limit, self.limit_high)

    @property
    def rule_text(self) -> str:
        return rule_text(self.rule, self.limit, self.limit_high)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def limit_text(rule: str, limit: float, limit_high: float | None = None) -> str:
    """A rule's limit as the outputs print it: ``25``, or ``[−5, 5]`` for ``within``, with a
    reader's minus (U+2212), as every figure beside it is printed."""

    def number(x: float) -> str:
        return f"{x:g}".replace("-", "\u2212")

    if rule == "within" and limit_high is not None:
        return f"[{number(limit)}, {number(limit_high)}]"
    return number(limit)


def rule_text(rule: str, limit: float, limit_high: float | None = None) -> str:
    """A gate's rule quoted as its author wrote it (``below 25``, ``not_above 25``, ``within
    [−5, 5]``), in every output that states it: the terminal, the report, JUnit, the TUI. A
    rule reworded ("shown below 25") reads as another rule, and the verdict beside it already
    says what the interval showed. ``no_regression`` states the difference its margin bounds."""
    if rule == "no_regression":
        return f"B − A below {limit_text(rule, limit)}"
    return f"{rule} {limit_text(rule, limit, limit_high)}"


def evaluate_gates(
    rules: Sequence[GateRule],
    figures: Mapping[tuple[str, str, str], GateFigure],
    *,
    confidence: float = 0.95,
    family: Literal["holm", "none"] = "holm",
) -> list[GateResult]:
    """Every gate's verdict, in the rules' order. ``figures`` maps (part, figure, rule) — the
    rule because ``no_regression`` reads B − A where the others read the figure — to what the
    gate tests."""
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    alpha = (1 - confidence) / 2  # each verdict is a one-sided test at this level
    tested = [(rule, figures[(rule.part, rule.figure, rule.rule)]) for rule in rules]
    p_values = [_gate_p(r, fig) for r, fig in tested]
    if family == "holm":
        levels, held = _holm(p_values, alpha)
    else:
        levels, held = [alpha] * len(tested), [False] * len(tested)
    out = []
    for (rule, fig), level, stopped in zip(tested, levels, held, strict=True):
        conf = 1 - 2 * level
        low, high = fig.interval(conf)
        verdict: Verdict = "inconclusive" if stopped else _verdict(rule, low, high)
        more = _more_units(fig, rule, low, high) if verdict == "inconclusive" else None
        total = None if more is None else sum(more.values())
        if stopped:
            note = "Holm's procedure stopped at a gate with weaker evidence: not decided"
        elif more is not None:
            limits = limit_text(rule.rule, rule.limit, rule.limit_high)
            caveat = (
                ")"
                if fig.units
                else ", which holds only where the new trials bring new units of what the "
                "interval resamples)"
            )
            note = (
                f"about {_more_text(more)} would clear {limits} if the estimate held (an "
                f"estimate: the interval taken to shrink as 1/√n in the units it resamples{caveat}"
            )
        elif verdict == "inconclusive":
            note = "the estimate sits on the limit: no number of trials is expected to clear it"
        else:
            note = ""
        out.append(
            GateResult(
                rule.label,
                rule.part,
                rule.figure,
                rule.rule,
                rule.limit,
                verdict,
                fig.value,
                low,
                high,
                conf,
                fig.method,
                rule.on_inconclusive,
                total,
                note,
                rule.limit_high,
                None if more is None or not fig.units else more,
            )  # fmt: skip
        )
    return out


def _gate_p(rule: GateRule, fig: GateFigure) -> float:
    """The p-value Holm orders the gate by: the test on the side its estimate lies (shown
    below, or shown above); for ``within``, inside the limits the equivalence test (the larger
    of its two one-sided p), outside them the test of lying beyond the nearer limit."""
    if rule.rule != "within" or rule.limit_high is None:
        return min(fig.p_below(rule.limit), fig.p_above(rule.limit))
    low, high = rule.limit, rule.limit_high
    if fig.value < low:
        return fig.p_below(low)
    if fig.value > high:
        return fig.p_above(high)
    return max(fig.p_above(low), fig.p_below(high))


def _verdict(rule: GateRule, low: float, high: float) -> Verdict:
    """Pass, fail or inconclusive from the interval (``low``, ``high``) at the gate's level."""
    limit = rule.limit
    if rule.rule in ("below", "no_regression"):
        return "pass" if high < limit else "fail" if low >= limit else "inconclusive"
    if rule.rule == "not_above":
        return "pass" if high <= limit else "fail" if low > limit else "inconclusive"
    if rule.rule == "above":
        return "pass" if low > limit else "fail" if high <= limit else "inconclusive"
    if rule.rule == "not_below":
        return "pass" if low >= limit else "fail" if high < limit else "inconclusive"
    top = rule.limit_high if rule.limit_high is not None else math.inf
    if limit <= low and high <= top:
        return "pass"
    return "fail" if high < limit or low > top else "inconclusive"


def exit_code(results: Sequence[GateResult]) -> int:
    """0 when every gate passes (or is let through), 1 when any fails, 3 when none fails but
    one is inconclusive under ``on_inconclusive: fail``."""
    if any(r.verdict == "fail" for r in results):
        return 1
    if any(r.blocks for r in results):
        return 3
    return 0


def _holm(p_values: Sequence[float], alpha: float) -> tuple[list[float], list[bool]]:
    """Holm's step-down levels: the k-th smallest p (k from 1) is held to alpha/(m − k + 1).
    From the first test that does not clear its level on, no test rejects: those are marked
    held (their gates are inconclusive whatever their own intervals say)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    levels = [0.0] * m
    held = [False] * m
    stopped = False
    for rank, i in enumerate(order):
        levels[i] = alpha / (m - rank)
        if not stopped and p_values[i] > levels[i]:
            stopped = True
            continue  # this gate's own interval straddles its limit: inconclusive on its own
        held[i] = stopped
    return levels, held


def _more_units(fig: GateFigure, rule: GateRule, low: float, high: float) -> dict[str, int] | None:
    """About how many more units would bring the interval's end to the nearest limit it
    straddles, were the estimate to hold: the distance from the value to that end shrinks as
    1/√(units); counted per kind of unit the interval resamples (both identity lists of a
    crossed figure grow together), else in trials."""
    limits = [rule.limit] if rule.limit_high is None else [rule.limit, rule.limit_high]
    straddled = [lim for lim in limits if low <= lim <= high] or limits
    factors = []
    for lim in straddled:
        gap = abs(fig.value - lim)
        half = (high - fig.value) if lim >= fig.value else (fig.value - low)
        if gap == 0 or not math.isfinite(half) or half <= 0:
            return None
        factors.append((half / gap) ** 2)
    factor = max(factors)
    counts = fig.units or ({"trial": fig.n} if fig.n else None)
    if not counts:
        return None
    return {unit: max(1, math.ceil(c * factor - c)) for unit, c in counts.items()}


def _more_text(more: Mapping[str, int]) -> str:
    parts = []
    for unit, k in more.items():
        plural = unit if k == 1 else (unit[:-1] + "ies" if unit.endswith("y") else unit + "s")
        parts.append(f"{k:,} more {plural}")
    return " and ".join(parts)

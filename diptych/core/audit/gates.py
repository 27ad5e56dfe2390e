"""Release gates: what an audit file says must hold, answered pass, fail or inconclusive.

A pipeline that gates on a point estimate flips a coin whenever the truth is near its limit: a
noisy 15.2 against 15 blocks a release and 14.8 passes it. A gate here decides on the figure's
confidence interval, so it says only what the data support:

* ``below: L`` passes when the upper bound is below L (shown to be below), fails when the lower
  bound is at or above L, and is inconclusive when the interval straddles L;
* ``not_above: L`` fails only when the lower bound is above L (shown to exceed), passes when the
  upper bound is at or below L, inconclusive otherwise;
* ``no_regression: {against, margin}`` is ``below: margin`` on B − A (this audit less a
  baseline): a non-inferiority test.

Each verdict is two one-sided tests at (1 − confidence)/2, so with the truth exactly at the limit
a gate gives a false verdict at most 2.5% of the time at 95%. The gates of one file are a family:
Holm's step-down (1979) adjusts each gate's level so that the chance of any false verdict across
the family stays at the stated level (``family: none`` opts out). A gate whose test does not
clear its Holm level is inconclusive, and so is every gate after it in Holm's order.

Intervals at an adjusted level come from the figure's own standard error and degrees of freedom
(:mod:`diptych.core.metrics.resampling` reports both); a figure that carries only a 95% interval
is read as ±1.96 standard errors, and the gate says so. ``bench/gates.py`` measures the false
verdict rates on simulated audits whose truth sits at the limit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

Verdict = Literal["pass", "fail", "inconclusive"]
OnInconclusive = Literal["fail", "pass", "warn"]

#: The normal quantile of a two-sided 95% interval.
_Z95 = 1.959963984540054


@dataclass(frozen=True)
class GateFigure:
    """A figure as a gate reads it: value, standard error and degrees of freedom (inf: normal).

    ``method`` says where the standard error came from; ``n`` is the figure's observation
    count (for the "more trials" estimate), when known."""

    value: float
    se: float
    df: float
    method: str
    n: int | None = None

    @classmethod
    def from_number(cls, number: Mapping[str, Any]) -> GateFigure | str:
        """From a report's number; a string says why a gate cannot rest on it."""
        value = _finite(number.get("value"))
        if value is None:
            return "the figure has no finite value"
        reason = number.get("reason")
        if isinstance(reason, str) and reason:
            return f"the figure has no interval ({reason})"
        n = number.get("n") if isinstance(number.get("n"), int) else None
        se, df = _finite(number.get("se")), _finite(number.get("df"))
        if se is not None and df is not None and df >= 1:
            return cls(value, se, df, "t", n)
        low, high = _finite(number.get("ci_low")), _finite(number.get("ci_high"))
        if low is None or high is None:
            return "the figure has no interval"
        return cls(value, (high - low) / (2 * _Z95), math.inf, "normal from its 95% interval", n)

    def interval(self, confidence: float) -> tuple[float, float]:
        q = _quantile(0.5 + confidence / 2, self.df)
        return self.value - q * self.se, self.value + q * self.se

    def p_below(self, limit: float) -> float:
        """One-sided p of "the truth is at or above ``limit``" (small: shown below)."""
        return _cdf((self.value - limit) / self.se, self.df) if self.se > 0 else (
            0.0 if self.value < limit else 1.0
        )  # fmt: skip

    def p_above(self, limit: float) -> float:
        """One-sided p of "the truth is at or below ``limit``" (small: shown above)."""
        return _cdf((limit - self.value) / self.se, self.df) if self.se > 0 else (
            0.0 if self.value > limit else 1.0
        )  # fmt: skip


@dataclass(frozen=True)
class GateRule:
    """One gate as the audit file states it (after the baseline is resolved)."""

    label: str
    part: str
    figure: str
    rule: Literal["below", "not_above", "no_regression"]
    limit: float
    on_inconclusive: OnInconclusive = "fail"
    against: str | None = None


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
    #: For an inconclusive gate: about how many more trials would clear the limit.
    more_trials: int | None = None
    note: str = ""

    @property
    def blocks(self) -> bool:
        return self.verdict == "fail" or (
            self.verdict == "inconclusive" and self.on_inconclusive == "fail"
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


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
    # A gate's test is the one on the side its estimate lies: shown below, or shown above.
    p_values = [min(fig.p_below(r.limit), fig.p_above(r.limit)) for r, fig in tested]
    if family == "holm":
        levels, held = _holm(p_values, alpha)
    else:
        levels, held = [alpha] * len(tested), [False] * len(tested)
    out = []
    for (rule, fig), level, stopped in zip(tested, levels, held, strict=True):
        conf = 1 - 2 * level
        low, high = fig.interval(conf)
        verdict: Verdict = "inconclusive"
        if not stopped:
            if high < rule.limit or (rule.rule == "not_above" and high == rule.limit):
                verdict = "pass"
            elif low > rule.limit or (rule.rule != "not_above" and low == rule.limit):
                verdict = "fail"
        more = _more_trials(fig, rule.limit, conf) if verdict == "inconclusive" else None
        if stopped:
            note = "Holm's procedure stopped at a gate with weaker evidence: not decided"
        elif more is not None:
            note = (
                f"about {more:,} more trials would clear {rule.limit:g} if the estimate held "
                "(an estimate: the interval taken to shrink as 1/√n, which holds only where the "
                "new trials bring new units of what the interval resamples)"
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
                more,
                note,
            )  # fmt: skip
        )
    return out


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


def _more_trials(fig: GateFigure, limit: float, confidence: float) -> int | None:
    gap = abs(fig.value - limit)
    if fig.n is None or gap == 0 or fig.se == 0:
        return None
    half = _quantile(0.5 + confidence / 2, fig.df) * fig.se
    needed = fig.n * (half / gap) ** 2
    return max(1, math.ceil(needed - fig.n))


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _quantile(q: float, df: float) -> float:
    from scipy.special import ndtri, stdtrit

    return float(ndtri(q) if math.isinf(df) else stdtrit(df, q))


def _cdf(x: float, df: float) -> float:
    from scipy.special import ndtr, stdtr

    return float(ndtr(x) if math.isinf(df) else stdtr(df, x))

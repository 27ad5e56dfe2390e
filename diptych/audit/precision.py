"""Each gate of an audit beside the precision its figure is planned to have
(``diptych audit check``): the expected half-width h of the figure's interval and what it
means for the gate — a one-sided gate is decided only when the figure lies more than h from
its limit; ``within: [a, b]`` passes only for a figure inside [a + h, b − h] and fails only
for one more than h outside [a, b].

A gate of a family of m is decided at Holm's level, 1 − α/m for the first gate to be tested:
its interval is wider than the plan's 95% one by about the ratio of the t quantiles at the
plan's degrees of freedom, which the line states too (the ratio is exact for a t interval on
the figure's own scale and close to it on a bounded one, away from the bounds).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from diptych.core.report.formatting import figure_text, minus

if TYPE_CHECKING:
    from diptych.audit.plan import AuditPlan, PartPlan
    from diptych.core.audit.schema import Gate
    from diptych.core.metrics.uncertainty.precision import FigurePrecision

#: What precedes a planned figure's name in a run of several models (the model's id then
#: ": ", " · " or "."), and the suffix of a figure whose interval is its mean's, shifted (the
#: excess of a retrieval figure over its null).
_SEPARATORS = (": ", " · ", ".")
_SHIFTED = ".excess"


@dataclass(frozen=True)
class GatePrecision:
    """One gate's planned precision: the half-width expected at the plan's level and at the
    gate's Holm level (None where nothing is planned), and the line that relates it to the
    limit."""

    label: str
    half_width: float | None
    holm_half_width: float | None
    line: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "gate": self.label,
            "half_width": self.half_width,
            "holm_half_width": self.holm_half_width,
            "line": self.line,
        }


def planned_figure(part: PartPlan, figure: str) -> FigurePrecision | None:
    """The part's planned figure that ``figure`` (a gate's, perhaps after a model's id, or the
    excess of a planned mean) names."""
    precision = part.estimate.precision if part.estimate else None
    for fig in precision.figures if precision else []:
        for name in (fig.name, fig.name + _SHIFTED):
            if figure == name or any(figure.endswith(sep + name) for sep in _SEPARATORS):
                return fig
    return None


def _t(df: float, level: float) -> float:
    from scipy.special import ndtri, stdtrit

    return float(ndtri(level) if math.isinf(df) else stdtrit(df, level))


def _decided_when(gate: Gate, h: str) -> str:
    """What the figure must be for the gate to be decided, with the half-width text ``h``."""
    if gate.within is not None:
        low, high = gate.within
        return (
            f"passes only if the figure lies more than {h} inside {_band(low, high)}, fails "
            f"only if more than {h} outside it"
        )
    return f"decided only if the figure is more than {h} from the limit {minus(f'{gate.limit:g}')}"


def gate_precision(plan: AuditPlan) -> list[GatePrecision]:
    """Every gate of the plan's audit with its figure's planned precision (the plan made with
    ``precision``)."""
    gates = plan.audit.gates
    if gates is None:
        return []
    parts = {p.part.name: p for p in plan.parts}
    family = len(gates.checks) if gates.family == "holm" else 1
    alpha = 1 - gates.confidence
    out = []
    for gate in gates.checks:
        part = parts.get(gate.part)
        fig = None if part is None else planned_figure(part, gate.figure)
        if gate.no_regression is not None:
            why = "no planned half-width: it gates a difference from a baseline"
            out.append(GatePrecision(gate.label, None, None, f"{gate.label}: {why}"))
            continue
        if fig is None or not math.isfinite(fig.expected.half_width):
            why = "no interval expected" if fig is not None else "the probe plans no such figure"
            out.append(GatePrecision(gate.label, None, None, f"{gate.label}: {why}"))
            continue
        e = fig.expected
        h = e.half_width
        holm = h
        if family > 1 and e.df >= 1:
            holm = h * _t(e.df, 1 - alpha / (2 * family)) / _t(e.df, 1 - alpha / 2)
        shown = figure_text(holm)
        at = f" (±{shown} at the Holm level of its {family} gates)" if family > 1 else ""
        line = f"{gate.label}: expected ±{figure_text(h)}{at}; {_decided_when(gate, shown)}"
        if gate.within is not None and gate.within[1] - gate.within[0] <= 2 * holm:
            line += f"; it cannot pass: {_band(*gate.within)} is narrower "
            line += "than the interval"
        out.append(GatePrecision(gate.label, h, holm, line))
    return out


def _band(low: float, high: float) -> str:
    """A gate's band as its rule prints it, with a reader's minus: "[−10, 10]"."""
    return minus(f"[{low:g}, {high:g}]")

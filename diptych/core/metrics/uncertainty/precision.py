"""Precision known before purchase: the expected half-width of a headline figure's interval
for a planned design, the smallest design that reaches a half-width asked for, and the power
of a decision taken on such an interval.

A design is named by its units (:mod:`diptych.core.metrics.uncertainty.resampling`): identities
crossed in scenes (a ``grid`` of R × C cells, or a ``diagonal`` that pairs each row with one column,
as the PST power aspect pairs an occupation's two roles), two lists as strata (``strata``: the
single-person setting), or one kind of unit (``clusters``: images, occupations). What the
interval will be depends on how the figure varies over those units, which is not known before
the run: a :class:`Components` states it — standard deviations of a row unit's and a column
unit's effect on a cell's mean, of the cell's own effect, and of one observation around its
cell's mean — with where it comes from (a paper's published values, an earlier run of the same
probe in the workspace, or a bound).

The expected half-width is measured, not approximated: the cells' means are drawn from the
components and :func:`~diptych.core.metrics.uncertainty.resampling.mean_over_units` — the very
function the analysis calls — makes each replicate's interval, so the variance estimator, its floor,
the crossed design's degrees-of-freedom rule and the t multiplier are the real interval's. (A small
crossed design's df is itself random: 3 × 3 identities give df 2 where identities dominate and
8 where the scenes do, so no single closed form would be right.) The replicates are seeded, so
a plan is reproducible; the Monte Carlo error of each expected half-width is reported with it.
A design balanced over its cells is assumed: a scene's observations (orders, samples, people)
merge into its cell, which is what the resampling does with them.

``bench/validity/figures.py``-style checks live in the tests: a simulation from binary labels with
identity effects checks the predicted half-width against the mean realised one. The design and
its simulation are :mod:`diptych.core.metrics.uncertainty.planned_design`; this module plans a run's
figures.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from diptych.core.digits import figure_text, level_text, minus
from diptych.core.metrics.uncertainty.bootstrap import DEFAULT_CONFIDENCE, json_safe
from diptych.core.metrics.uncertainty.components import Components, components_of
from diptych.core.metrics.uncertainty.planned_design import (
    WANTED_POWER,
    Expected,
    PlannedDesign,
    Shape,
    decision_power,
    expected_interval,
    search_cap,
    smallest_design,
    smallest_powered_design,
    t_multiplier,
)

__all__ = [
    "Components",
    "Expected",
    "FigurePrecision",
    "PlannedDesign",
    "PlannedFigure",
    "FINDING_MIN_UNITS",
    "LOOK_MIN_UNITS",
    "PrecisionPlan",
    "Shape",
    "WANTED_POWER",
    "components_of",
    "decision_power",
    "expected_interval",
    "few_units_warning",
    "plan_precision",
    "smallest_design",
    "smallest_powered_design",
]

#: The least a look must hold before a release gate tests its figure: this many units of every
#: kind its interval resamples (identities on each side of a crossed design, images, scenarios,
#: image pairs). 3 × 3 identities is the smallest crossed design on which the fixed-design
#: interval's coverage is measured (``bench/validity/figures.py``); below it a look spends
#: nothing (docs/gates.md). A look is never read on the figure's own interval:
#: ``diptych.core.audit.sequential.look_interval`` reads the t interval of the same units, its
#: spread made unbiased and its degrees of freedom capped by its fewest units.
LOOK_MIN_UNITS = 3
#: The least units a side for a figure's own interval to state a finding, one more than a
#: gate's test needs: below it the interval's degrees of freedom can fall to 2 or fewer (t
#: multiplier 4.3 or more), and a percentile interval of so few units is too short. Such a
#: design is warned about, and such a figure is a quick look (``core/report/quick_look.py``);
#: on 3 a side both say it is enough for a gate's test, never "too few to decide anything".
FINDING_MIN_UNITS = 4


@dataclass(frozen=True)
class PlannedFigure:
    """A headline figure as a probe plans it: its design, how it is assumed to vary, the
    range it can take, and how far its lists can grow (None: without limit)."""

    name: str
    design: PlannedDesign
    components: Components
    low: float
    high: float
    max_size: int | None = None
    #: How to ask for a larger design, e.g. "name more identities (masculine=..., feminine=...)".
    grow: str = ""

    @property
    def bounds(self) -> tuple[float, float]:
        return (self.low, self.high)


@dataclass(frozen=True)
class FigurePrecision:
    """A planned figure's expected precision, its warnings and, when a half-width was asked
    for, the smallest design reaching it."""

    name: str
    design: PlannedDesign
    expected: Expected
    components: Components
    low: float
    high: float
    warnings: list[str] = field(default_factory=list)
    target: PlannedDesign | None = None
    target_expected: Expected | None = None
    #: Why no target design is given (out of the lists' reach), or None.
    target_note: str | None = None

    def line(self) -> str:
        """``occupation: STS paired: ±48.1 (3 masculine × 3 feminine identities crossed in scenes,
        df 2, t 4.30)``: what it resamples said as every surface says it; every figure by
        the rule of digits (:func:`~diptych.core.digits.figure_text`), ±11.0, never ±11."""
        e = self.expected
        if not (math.isfinite(e.half_width) and math.isfinite(e.t)):
            return f"{self.name}: no interval ({self.design.resamples()}: {self.why_none()})"
        design = f"{self.design.resamples()}, df {e.df:g}, t {figure_text(e.t)}"
        return f"{self.name}: ±{figure_text(e.half_width)} ({design})"

    def why_none(self) -> str:
        """Why the design gives no interval, in words (never a df of 0 or a t of inf)."""
        d = self.design
        few = [(u, n) for u, n in zip(d.units, d.sizes, strict=True) if n < 2]
        if few:
            unit, n = few[0]
            count = "one" if n == 1 else "no"
            return f"{count} {unit}, nothing to resample over"
        return "too few units to resample over"

    def target_line(self, width: float) -> str | None:
        if self.target is not None and self.target_expected is not None:
            return (
                f"{self.name}: ±{figure_text(width)} needs {self.target.resamples()} "
                f"(expected ±{figure_text(self.target_expected.half_width)})"
            )
        if self.target_note:
            return f"{self.name}: {self.target_note}"
        return None

    def to_dict(self) -> dict[str, Any]:
        e = self.expected
        out: dict[str, Any] = {
            "figure": self.name,
            "design": self.design.to_dict(),
            "half_width": e.half_width,
            "mc_error": e.mc_error,
            "df": e.df,
            "t": e.t,
            "se": e.se,
            "range": [self.low, self.high],
            "variance": self.components.to_dict(),
            "warnings": list(self.warnings),
        }
        if self.target is not None and self.target_expected is not None:
            out["target_design"] = self.target.to_dict()
            out["target_half_width"] = self.target_expected.half_width
        if self.target_note:
            out["target_note"] = self.target_note
        return json_safe(out)


@dataclass(frozen=True)
class PrecisionPlan:
    """The precision of every headline figure a run would give, at ``confidence``."""

    figures: list[FigurePrecision]
    confidence: float = DEFAULT_CONFIDENCE
    target_width: float | None = None
    #: :func:`few_units_warning`'s line for the design, or None.
    design_warning: str | None = None

    @property
    def warnings(self) -> list[str]:
        """The design's line, then each figure's."""
        first = [self.design_warning] if self.design_warning else []
        return first + [w for f in self.figures for w in f.warnings]

    @property
    def sources(self) -> list[str]:
        """The variance assumptions, each once, in the figures' order."""
        return list(dict.fromkeys(f.components.source for f in self.figures))

    def lines(self) -> list[str]:
        """The plan as a front end prints it: a heading, one line per figure, the target
        designs, the assumptions, then one line per warning."""
        if not self.figures:
            return []
        pct = level_text(self.confidence)
        out = [f"expected half-width of each {pct} interval (per model):"]
        out += [f"  {f.line()}" for f in self.figures]
        if self.target_width is not None:
            out += [
                f"  {line}"
                for f in self.figures
                if (line := f.target_line(self.target_width)) is not None
            ]
        out += [f"  variance: {s}" for s in self.sources]
        out += [f"warning: {w}" for w in self.warnings]
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "confidence": self.confidence,
            "target_width": self.target_width,
            "figures": [f.to_dict() for f in self.figures],
            "warnings": self.warnings,
        }


# --- a plan ------------------------------------------------------------------------------


def few_units_warning(figures: Sequence[PlannedFigure]) -> str | None:
    """The one line a design too small to decide anything is warned with, the same before a
    dry run and before a real run: the first figure whose lists are under
    :data:`FINDING_MIN_UNITS` a side (the figures share the lists, so one fix serves them all). None
    when every figure has enough units a side."""
    for fig in figures:
        d = fig.design
        if d.smallest_side >= FINDING_MIN_UNITS:
            continue
        grow = f" ({fig.grow})" if fig.grow else ""
        if d.smallest_side < 2:
            return f"{d.resamples()} give {fig.name} no interval at all; use at least 2{grow}"
        df = d.least_df()
        # On enough units for a gate's test the interval is wide, not empty of meaning: a
        # gate may still decide there, on a t interval made for few units.
        said = (
            "enough for a gate's test but too wide for a finding"
            if d.smallest_side >= LOOK_MIN_UNITS
            else "too wide to say anything"
        )
        return (
            f"{d.resamples()} leave {fig.name} a t interval with {df} degree"
            f"{'s' if df != 1 else ''} of freedom "
            f"(t {figure_text(t_multiplier(df, DEFAULT_CONFIDENCE))}): "
            f"{said}; use at least {FINDING_MIN_UNITS} per list{grow}"
        )
    return None


def design_warnings(fig: PlannedFigure, expected: Expected) -> list[str]:
    """At most one line for a figure with enough units a side (fewer are
    :func:`few_units_warning`'s, which already says the interval is too wide): an interval
    whose t·se would be wider than the figure's whole range."""
    d = fig.design
    if d.smallest_side < FINDING_MIN_UNITS or 2 * expected.t_half_width <= fig.high - fig.low:
        return []
    return [
        f"{fig.name}: {d.resamples()} give t·se ±{figure_text(expected.t_half_width)}, wider "
        f"than the range {minus(f'[{fig.low:g}, {fig.high:g}]')}, so the interval would say "
        "little beyond the range"
    ]


def figure_precision(
    fig: PlannedFigure,
    *,
    target_width: float | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> FigurePrecision:
    """One figure's expected precision, its warnings and the design reaching ``target_width``
    (a half-width on the figure's scale)."""
    expected = expected_interval(
        fig.design, fig.components, bounds=fig.bounds, confidence=confidence
    )
    out = FigurePrecision(
        fig.name, fig.design, expected, fig.components, fig.low, fig.high,
        design_warnings(fig, expected),
    )  # fmt: skip
    if target_width is None:
        return out
    target = smallest_design(
        fig.design, fig.components, target_width, bounds=fig.bounds, confidence=confidence
    )
    if target is None:
        return replace(
            out,
            target_note=f"±{figure_text(target_width)} is out of reach even with "
            f"{fig.design.resized(search_cap(fig.design)).resamples()} under this variance",
        )
    note = None
    if fig.max_size is not None and target.smallest_side > fig.max_size:
        note = (
            f"±{figure_text(target_width)} needs {target.resamples()}, more than the "
            f"{fig.max_size} the list offers" + (f" ({fig.grow})" if fig.grow else "")
        )
        return replace(out, target_note=note)
    return replace(
        out,
        target=target,
        target_expected=expected_interval(
            target, fig.components, bounds=fig.bounds, confidence=confidence
        ),
    )


def plan_precision(
    figures: Sequence[PlannedFigure],
    *,
    target_width: float | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PrecisionPlan:
    """The precision of each planned figure (see :func:`figure_precision`)."""
    if target_width is not None and not 0 < target_width < math.inf:
        raise ValueError(f"a target half-width must be a number above 0, not {target_width:g}")
    return PrecisionPlan(
        [figure_precision(f, target_width=target_width, confidence=confidence) for f in figures],
        confidence,
        target_width,
        few_units_warning(figures),
    )

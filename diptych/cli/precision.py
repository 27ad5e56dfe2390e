"""How the CLI states a plan's precision (``diptych run --dry-run``, ``diptych audit check``):
the lines of :meth:`~diptych.core.metrics.uncertainty.precision.PrecisionPlan.lines`, warnings in
colour."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import typer

from diptych.core.digits import figure_text

if TYPE_CHECKING:
    from diptych.cli.console import SafeConsole
    from diptych.core.metrics.uncertainty.precision import PrecisionPlan


def half_width(value: float | None) -> float | None:
    """``--target-width``: a half-width above 0 on the figures' own scale."""
    if value is not None and not 0 < value < math.inf:
        raise typer.BadParameter(f"{value:g} is not a half-width above 0, e.g. 10 (STS points)")
    return value


def print_precision(console: SafeConsole, plan: PrecisionPlan | None, indent: str = "") -> None:
    """The plan's lines (nothing when the probe plans no figure)."""
    if plan is None:
        return
    from rich.text import Text

    for line in plan.lines():
        if line.startswith("warning: "):
            console.print(Text.assemble(indent, ("warning:", "yellow"), line[8:]))
        else:
            console.print(Text(indent + line))


def few_units_warning(probe: object) -> str | None:
    """One line before a run is bought whose design leaves a headline figure's t interval so
    few degrees of freedom that it cannot say anything (the first such figure, naming the
    fix); None when every planned figure has enough units a side, or the probe plans none."""
    from diptych.core.metrics.uncertainty.precision import (
        DEFAULT_CONFIDENCE,
        FEW_UNITS,
        t_multiplier,
    )

    planned = getattr(probe, "planned_figures", None)
    for fig in planned() if planned is not None else []:
        d = fig.design
        if d.smallest_side >= FEW_UNITS:
            continue
        grow = f" ({fig.grow})" if fig.grow else ""
        if d.smallest_side < 2:
            return f"warning: {d.resamples()} give no interval at all; use at least 2{grow}"
        df = d.least_df()
        return (
            f"warning: {d.resamples()} leave {fig.name} a t interval with {df} degree"
            f"{'s' if df != 1 else ''} of freedom (t "
            f"{figure_text(t_multiplier(df, DEFAULT_CONFIDENCE))}): "
            f"too wide to say anything; use at least {FEW_UNITS} per list{grow}"
        )
    return None

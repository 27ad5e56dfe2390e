"""How the CLI states a plan's precision (``diptych run --dry-run``, ``diptych audit check``):
the lines of :meth:`~diptych.core.metrics.uncertainty.precision.PrecisionPlan.lines`, warnings in
colour."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import typer

from diptych.cli.usage import counts

if TYPE_CHECKING:
    from diptych.cli.console import SafeConsole
    from diptych.core.metrics.uncertainty.precision import PrecisionPlan


@counts("a half-width above 0", 10)
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
    """The line a real run prints before it buys anything: the dry run's design warning
    (:func:`~diptych.core.metrics.uncertainty.precision.few_units_warning`), word for word."""
    from diptych.core.metrics.uncertainty.precision import few_units_warning as warning

    planned = getattr(probe, "planned_figures", None)
    said = warning(planned() if planned is not None else [])
    return None if said is None else f"warning: {said}"

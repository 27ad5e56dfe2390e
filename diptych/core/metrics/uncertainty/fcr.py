"""The interval a Benjamini–Hochberg decision reads, and how every surface names it.

A figure selected by Benjamini–Hochberg (k confirmed of m at false discovery rate ``fdr``) is
read at confidence 1 − max(k, 1)·fdr/m: Benjamini and Yekutieli's false-coverage-rate interval
(2005), which lies above 0 exactly where the q-value confirms. A figure decided so shows this
interval, named with its confidence ("98.75% BH-adjusted interval"), and never its own 95% one
beside it: one figure, one interval. A figure recorded before its confidence was kept reads
"BH-adjusted interval"; one with no adjusted interval shows its own, named "95% interval".
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from diptych.core.digits import level_text
from diptych.core.metrics.uncertainty.intervals import IntervalRecipe

#: The name of an interval Benjamini–Hochberg decided on, after its confidence.
BH_ADJUSTED = "BH-adjusted interval"


def fcr_level(confirmed: int, scored: int, fdr: float) -> float:
    """The confidence matching Benjamini–Hochberg with ``confirmed`` of ``scored`` at ``fdr``."""
    return 1 - max(confirmed, 1) * fdr / scored


def fcr_interval(figure: Mapping[str, Any], level: float) -> list[float] | None:
    """``figure``'s interval at ``level`` by the figure's own method (its range kept); None
    where the figure carries no se and df, or says why it has no interval."""
    se, df = figure.get("se"), figure.get("df")
    if not isinstance(se, int | float) or not isinstance(df, int | float) or not math.isfinite(se):
        return None
    if figure.get("reason"):
        return None
    recipe = IntervalRecipe.from_number(figure)
    if isinstance(recipe, str):
        return None
    return list(recipe.interval(level))


def decided_interval(figure: Mapping[str, Any]) -> tuple[Any, Any, str]:
    """The bounds a decided figure shows and the interval's name: its BH-adjusted interval
    (``ci_adjusted``, at ``ci_adjusted_level``) where it has one, else its own 95% one."""
    adjusted = figure.get("ci_adjusted")
    if isinstance(adjusted, list | tuple) and len(adjusted) == 2:
        level = figure.get("ci_adjusted_level")
        if isinstance(level, int | float) and not isinstance(level, bool):
            return adjusted[0], adjusted[1], f"{level_text(level)} {BH_ADJUSTED}"
        return adjusted[0], adjusted[1], BH_ADJUSTED
    return figure.get("ci_low"), figure.get("ci_high"), f"{level_text(0.95)} interval"

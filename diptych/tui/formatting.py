"""How values are written on screen: short, absolute (never "3 minutes ago") and stable."""

from __future__ import annotations

import math
import time
from typing import Any

from diptych.core.report import fmt
from diptych.core.report.formatting import outward


def timestamp(seconds: float) -> str:
    """Local date and time to the minute; absolute, so a screen does not change by itself."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def number(value: Any) -> str:
    """Scores on the ±100 scale with one decimal, smaller numbers with two (as the CLI)."""
    if isinstance(value, float) and math.isfinite(value) and abs(value) >= 10:
        return f"{value:.1f}"
    return fmt(value)


def interval(low: Any, high: Any) -> str:
    """``[low, high]``; one narrower than its printed digits has its ends rounded outward (as
    the report's), so that it never reads as a point."""
    if low is None and high is None:
        return "—"
    ends = number(low), number(high)
    finite = all(isinstance(x, int | float) and math.isfinite(x) for x in (low, high))
    if ends[0] == ends[1] and finite and high > low:
        down, up = outward(float(low), float(high))
        ends = down.replace(",", ""), up.replace(",", "")
    return f"[{ends[0]}, {ends[1]}]"


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, with an ellipsis when cut."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def percent(part: int, whole: int) -> str:
    if whole <= 0:
        return "—"
    return f"{math.floor(100 * part / whole)}%"


def dollars(value: float) -> str:
    return f"${value:,.2f}"

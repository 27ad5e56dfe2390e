"""How values are written on screen: short, absolute (never "3 minutes ago") and stable."""

from __future__ import annotations

import math
import time
from typing import Any

from diptych.core.report import fmt


def timestamp(seconds: float) -> str:
    """Local date and time to the minute; absolute, so a screen does not change by itself."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def number(value: Any) -> str:
    """Scores on the ±100 scale with one decimal, smaller numbers with two (as the CLI)."""
    if isinstance(value, float) and math.isfinite(value) and abs(value) >= 10:
        return f"{value:.1f}"
    return fmt(value)


def interval(low: Any, high: Any) -> str:
    if low is None and high is None:
        return "—"
    return f"[{number(low)}, {number(high)}]"


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, with an ellipsis when cut."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def percent(part: int, whole: int) -> str:
    if whole <= 0:
        return "—"
    return f"{math.floor(100 * part / whole)}%"


def dollars(value: float) -> str:
    return f"${value:,.2f}"

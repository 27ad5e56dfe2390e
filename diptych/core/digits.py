"""The rule of digits every surface prints a figure by (report, CLI, terminal app): one decimal
from 10 up, two below. Its home is this leaf module so that the core's own sentences (a plan's
expected half-widths) print by it too; the report reaches it through
:mod:`diptych.core.report.formatting`, which re-exports it."""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "INFINITE",
    "figure_text",
    "level_text",
    "minus",
    "p_text",
    "percent_text",
    "signed_text",
]

#: How an infinite value reads: a reader's symbol, never a program's ``inf``.
INFINITE = {"inf": "∞", "-inf": "−∞", "Infinity": "∞", "-Infinity": "−∞"}


def figure_text(value: Any) -> str:
    """A figure as every surface prints it — findings, gates, the tables of figures, charts,
    actions, the CLI and the terminal app — so that one figure reads the same digits wherever
    it stands: one decimal from 10 up, two below; ``—`` for none; ``∞`` / ``−∞`` for an
    infinite value (a skew of a group absent from the top K). A whole number stays whole."""
    if isinstance(value, str) and value in INFINITE:
        return INFINITE[value]
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "—" if value is None else str(value)
    if isinstance(value, int):
        return minus(f"{value:,}")
    number = float(value)
    if not math.isfinite(number):
        return "—" if math.isnan(number) else ("∞" if number > 0 else "−∞")
    # Rounded first: 9.997 prints "10.0", never "10.00" (two decimals are for values below 10).
    text = f"{number:,.1f}" if abs(round(number, 2)) >= 10 else f"{number:.2f}"
    # A value that rounds to zero prints without a sign: "−0.00" says a direction it lacks.
    return minus(text.lstrip("-") if float(text.replace(",", "")) == 0 else text)


def minus(text: str) -> str:
    """A printed number's sign as a reader's minus (U+2212), never a hyphen: "−15.8"."""
    return text.replace("-", "−")


def signed_text(value: Any) -> str:
    """A figure read as a change, by :func:`figure_text` with its sign always shown: "+1.25",
    "−0.40"; a value that rounds to zero has none."""
    text = figure_text(value)
    if isinstance(value, bool) or not isinstance(value, int | float) or text[0] in "−∞—":
        return text
    return text if text.strip("0.,") == "" else f"+{text}"


def percent_text(share: Any) -> str:
    """A measured share (1,424 of 6,560) as a percent by the same rule of digits as every other
    figure: "21.7%", "10.0%", "4.17%", "100.0%". A round share keeps its decimal, so that "10%"
    beside "78.3%" never reads as a coarser figure; a level or threshold someone set is
    :func:`level_text`."""
    if isinstance(share, bool) or not isinstance(share, int | float):
        return figure_text(share)
    return f"{figure_text(float(share) * 100)}%"


def level_text(level: float) -> str:
    """A level or threshold as it was set, not measured — a confidence level (0.95), a cut-off
    (0.05): "95%", "97.5%" (Holm-adjusted), "5%". It keeps the digits it was given."""
    return f"{level * 100:.4g}%"


def p_text(p: Any) -> str:
    """A p- or q-value, read against 0.05: three decimals, ``< 0.001`` below that."""
    if isinstance(p, bool) or not isinstance(p, int | float) or not math.isfinite(p):
        return "—"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"

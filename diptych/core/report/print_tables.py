"""Wide tables on an A4 page: split into parts of columns that fit, each repeating the row's
name, rather than shrinking the whole page (Chromium scales a page down to its widest element,
which put the body text at 7 pt) or losing the last columns at the page's edge.

A screen keeps the whole table in a box that scrolls sideways; a printed page shows the parts,
one under another. Widths are estimated at the printed table's size (9 pt, the report's
smallest print) with the same generous glyph widths the charts are laid out with; the PDF
test measures the printed page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from diptych.core.probe import Table
from diptych.core.report.chart_svg import text_width
from diptych.core.report.formatting import fmt

#: The width a printed table may take: A4 less the page's 14 mm margins, in CSS px.
PRINT_WIDTH = 680.0
#: A table of at most this many rows takes under a third of a page: it prints on one page,
#: moving whole to the next rather than leaving a few rows behind.
SHORT_TABLE = 10
#: Printed table text (9 pt) in CSS px, and a cell's padding and rule (8 px and 1 px), with room
#: for the glyph estimate's error now that no number or interval wraps on paper.
PRINT_FONT = 12.0
CELL_PADDING = 12.0
#: The widest a column of words is laid out before its text wraps.
TEXT_COLUMN = 170.0
_INTERVAL_CELL = re.compile(r"^\s*\[[^\]]*,[^\]]*\]\s*$")


def numeric_cell(cell: Any) -> bool:
    """A number or an interval ``[low, high]``: right-aligned and never wrapped."""
    if isinstance(cell, bool):
        return False
    return isinstance(cell, int | float) or (
        isinstance(cell, str) and _INTERVAL_CELL.match(cell) is not None
    )


def _column_width(table: Table, j: int) -> float:
    header = str(table.columns[j])
    # A header wraps between its words; a number or an interval stays on one line.
    widest_word = max((text_width(w, PRINT_FONT) for w in header.split()), default=0.0)
    cells = [row[j] for row in table.rows if j < len(row)]
    width = widest_word
    for cell in cells:
        text = fmt(cell)
        if numeric_cell(cell):
            width = max(width, text_width(text, PRINT_FONT))
        else:
            words = max((text_width(w, PRINT_FONT) for w in text.split()), default=0.0)
            width = max(width, min(text_width(text, PRINT_FONT), max(words, TEXT_COLUMN)))
    return width + CELL_PADDING


@dataclass(frozen=True)
class TablePart:
    """Some of a table's columns (always its first), as one printed part shows them."""

    columns: list[int]
    index: int
    count: int

    def cells(self, row: list[Any]) -> list[Any]:
        return [row[j] if j < len(row) else "" for j in self.columns]

    def headers(self, table: Table) -> list[str]:
        return [str(table.columns[j]) for j in self.columns]


def _units(table: Table) -> list[list[int]]:
    """Columns that print together: a figure and its interval (``… 95% CI``) beside it."""
    units: list[list[int]] = []
    for j in range(1, len(table.columns)):
        if units and "CI" in str(table.columns[j]).split() and len(units[-1]) == 1:
            units[-1].append(j)
        else:
            units.append([j])
    return units


def print_parts(table: Table, width: float = PRINT_WIDTH) -> list[TablePart]:
    """The table's columns in parts that each fit ``width`` when printed; one part when the
    whole table fits."""
    if not table.columns:
        return [TablePart([], 1, 1)]
    widths = [_column_width(table, j) for j in range(len(table.columns))]
    groups: list[list[int]] = []
    current: list[int] = []
    used = widths[0]
    for unit in _units(table):
        need = sum(widths[j] for j in unit)
        if current and used + need > width:
            groups.append(current)
            current, used = [], widths[0]
        current += unit
        used += need
    groups.append(current)
    return [TablePart([0, *g], i, len(groups)) for i, g in enumerate(groups, 1)]

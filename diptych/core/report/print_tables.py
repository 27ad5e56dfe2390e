"""Wide tables on an A4 page: whole when their columns fit the page's width, their words
wrapped where they must; else split into parts of columns that fit, each repeating the row's
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
from diptych.core.report.charts.svg import text_width
from diptych.core.report.formatting import fmt

#: The width a printed table may take: A4 less the page's 14 mm margins (182 mm, 687.9 CSS px),
#: less 4 px of rounding. A table whose columns fit it prints whole, every column side by side.
PRINT_WIDTH = 684.0
#: A table of at most this many rows takes under a third of a page: it prints on one page,
#: moving whole to the next rather than leaving a few rows behind.
SHORT_TABLE = 10
#: Printed table text (9 pt) in CSS px, and a cell's padding (4 px a side) and 1 px of rounding.
#: The glyph estimate is an upper one summed over a table's columns (a word of many "m"s may
#: print a few px wider than estimated, a number or an interval narrower): 3 px more a cell
#: once cut the demo's 11 columns (676 px in Chromium) into two parts of half a page's width.
#: The paper check measures every printed table against the page.
PRINT_FONT = 12.0
CELL_PADDING = 9.0
#: The widest a column of words is laid out before its text wraps.
TEXT_COLUMN = 170.0
#: A band of rows of a table printed in parts of columns (every part of those rows, one under
#: another) is kept on one page, and takes as much of half of one (A4 less its 16 mm margins is
#: 1001 CSS px) as it can: it fits under whatever a page already holds when that is under half
#: (nothing kept whole takes more), and two bands fill a page. A part takes its header (two
#: lines of 9 pt), its one-line caption and its margins, 52 px as Chromium prints them, with
#: 8 px for rounding, and a row of one line 23 px: bands of 8 rows in two parts print 472 px
#: high. (Bands of under half that once left pages to the parts' headers: 6 rows, 380 px.)
BAND_HEIGHT = 500.0
PART_FRAME = 60.0
PRINT_ROW = 23.0
#: The most of a page (A4 less its 16 mm margins, 1001 CSS px) a table may take and still be
#: kept whole: about half a page (20 rows of one line), so that with the headings kept above it
#: it moves whole to the next page rather than leave a few rows behind, and leaves the page
#: it leaves at least a third full; a taller one breaks between its rows (or its bands).
PAGE_TABLE = 540.0
_INTERVAL_CELL = re.compile(r"^\s*\[[^\]]*,[^\]]*\]\s*$")


def numeric_cell(cell: Any) -> bool:
    """A number or an interval ``[low, high]``: right-aligned and never wrapped."""
    if isinstance(cell, bool):
        return False
    return isinstance(cell, int | float) or (
        isinstance(cell, str) and _INTERVAL_CELL.match(cell) is not None
    )


def _column_width(table: Table, j: int, *, wrapped: bool = False) -> float:
    """The printed width of column ``j``: its words laid out up to :data:`TEXT_COLUMN`, or,
    ``wrapped``, as narrow as its widest word (a number or an interval never wraps)."""
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
            whole = words if wrapped else min(text_width(text, PRINT_FONT), max(words, TEXT_COLUMN))
            width = max(width, whole)
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
    whole table fits, its words wrapped where they must (a page in landscape is no option: a
    reader holds A4 upright). A table split in parts has as few as fit, as even as they can
    be, and never a part of one column beside its first while another part has more."""
    if not table.columns:
        return [TablePart([], 1, 1)]
    units = _units(table)
    widths = [_column_width(table, j) for j in range(len(table.columns))]
    if sum(widths) <= width:
        return [TablePart(list(range(len(table.columns))), 1, 1)]
    # Too wide as laid out: with its words wrapped, each column as narrow as its widest word.
    widths = [_column_width(table, j, wrapped=True) for j in range(len(table.columns))]
    if sum(widths) <= width:
        return [TablePart(list(range(len(table.columns))), 1, 1)]
    need = [sum(widths[j] for j in unit) for unit in units]
    groups = _even_groups(need, width - widths[0])
    out = []
    start = 0
    for i, size in enumerate(groups, 1):
        columns = [j for unit in units[start : start + size] for j in unit]
        out.append(TablePart([0, *columns], i, len(groups)))
        start += size
    return out


def _even_groups(need: list[float], room: float) -> list[int]:
    """How many units each part takes, in order: the fewest parts in which every part fits
    ``room`` (a unit wider than the room takes a part alone), the units spread as evenly as
    those parts allow, so that the last part is not the one column left over."""
    parts = 1
    while True:
        sizes = _split(need, parts, room)
        if sizes is not None:
            return sizes
        parts += 1


def _split(need: list[float], parts: int, room: float) -> list[int] | None:
    """``need`` cut into ``parts`` runs of units that each fit ``room`` (a unit alone may
    exceed it), with the widest run as narrow as it can be; None when they cannot fit."""
    n = len(need)
    if parts > n:
        return None
    # Cuts in order that keep each run's width under a bound, the smallest bound that works.
    bounds = sorted({sum(need[a:b]) for a in range(n) for b in range(a + 1, n + 1)})
    for bound in bounds:
        sizes: list[int] = []
        used, count = 0.0, 0
        for k, w in enumerate(need):
            left = n - k
            # Leave at least one unit for each part still to come.
            if count and (used + w > bound or left == parts - len(sizes) - 1):
                sizes.append(count)
                used, count = 0.0, 0
            used += w
            count += 1
        sizes.append(count)
        if len(sizes) != parts:
            continue
        starts = [sum(sizes[:i]) for i in range(parts)]
        runs = [sum(need[a : a + c]) for a, c in zip(starts, sizes, strict=True)]
        if all(r <= room or c == 1 for r, c in zip(runs, sizes, strict=True)):
            return sizes
    return None


def fits_page(table: Table | int, parts: int = 1) -> bool:
    """Whether ``table`` (or a table of that many rows), printed in ``parts`` parts of columns,
    fits on one page (:data:`PAGE_TABLE`): it is then kept whole. Its height is a lower
    estimate (every row of one line, as a row of numbers prints), so that a table which does
    fit is always kept."""
    rows = table if isinstance(table, int) else len(table.rows)
    return rows <= SHORT_TABLE or parts * (PART_FRAME + rows * PRINT_ROW) <= PAGE_TABLE


def row_bands(table: Table, parts: int) -> list[range]:
    """The table's rows in bands, as even as they can be, of as many rows as fit
    :data:`BAND_HEIGHT` printed in ``parts`` parts of columns (two rows at least): a reader
    finds every column of a row on one page, not each part running over pages of its own. A
    table that fits on one page (:func:`fits_page`) is one band, kept whole."""
    n = len(table.rows)
    if n == 0:
        return [range(0, 0)]
    if fits_page(table, parts):
        return [range(0, n)]
    fit = max(2, int((BAND_HEIGHT - parts * PART_FRAME) // (parts * PRINT_ROW)))
    count = max(1, -(-n // fit))
    size = -(-n // count)
    return [range(i, min(n, i + size)) for i in range(0, n, size)]

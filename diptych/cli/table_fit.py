"""A table's columns fitted to the console's width by wrapping between words: rich narrows the
widest columns first, down to a width that folds a word or cuts it; here no column is narrowed
below its longest word while another has room to give. Where the longest words of all columns
do not fit side by side, the rows are stacked (each row's first cell, then one line for each
other cell under its column's name), so that no word or id is ever broken inside itself: an
id is what a user copies into the next command."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.padding import Padding
from rich.styled import Styled
from rich.table import Table
from rich.text import Text

#: Wide enough to measure any table unclamped.
_UNCLAMPED = 10_000

#: Set on a table whose column widths were set here (and are measured again when it is fitted
#: again), not by its author.
_FITTED = "_fitted_to_width"

#: How far a stacked row's cells stand in under its first cell.
_STACK_INDENT = 2


def fit_table(table: Table, console: Console) -> RenderableType:
    """``table`` fitted to ``console.width`` without breaking a word (:func:`fit_columns`), or
    its rows stacked where even the columns' longest words do not fit side by side."""
    fitted = _fitted_widths(table, console)
    if fitted is None:
        # Closer first: no edges, one space between columns, before its rows are stacked.
        edge, pad_edge, collapse = table.show_edge, table.pad_edge, table.collapse_padding
        table.show_edge, table.pad_edge, table.collapse_padding = False, False, True
        fitted = _fitted_widths(table, console)
        if fitted is None:
            table.show_edge, table.pad_edge, table.collapse_padding = edge, pad_edge, collapse
            return stacked(table)
    _set_widths(table, fitted)
    return table


def fit_columns(table: Table, console: Console) -> Table:
    """``table`` with each column's width set so that the table fits ``console.width`` and no
    word is folded, when it can (the longest words of all columns fit side by side); otherwise
    the table as it was, for rich to narrow."""
    fitted = _fitted_widths(table, console)
    if fitted is not None:
        _set_widths(table, fitted)
    return table


def _set_widths(table: Table, widths: list[int | None]) -> None:
    for column, width in zip(table.columns, widths, strict=True):
        if width is not None:
            column.width = width
            setattr(table, _FITTED, True)


def _fitted_widths(table: Table, console: Console) -> list[int | None] | None:
    """Each column's width (None: as rich measures it) for the table to fit the console, or
    None when the longest words of all columns cannot stand side by side."""
    options = console.options.update_width(_UNCLAMPED)
    # Measured afresh each time: a table fitted once and printed again is fitted the same way.
    # A width its author gave a column is kept.
    if getattr(table, _FITTED, False):
        for column in table.columns:
            column.width = None
    shortest: list[int] = []
    widest: list[int] = []
    for column in table.columns:
        if column.width is not None:
            shortest.append(column.width)
            widest.append(column.width)
            continue
        cells = [column.header, *column.cells]
        sizes = [Measurement.get(console, options, cell) for cell in cells]
        low = max((s.minimum for s in sizes), default=0)
        high = max((s.maximum for s in sizes), default=0)
        if column.no_wrap:
            low = high
        if column.max_width is not None:
            high = min(high, max(column.max_width, low))
        low = max(low, min(column.min_width or 0, high))
        shortest.append(low)
        widest.append(max(high, low))
    # Padding and rules: what the whole table measures beyond its columns' content.
    frame = table.__rich_measure__(console, options).maximum - sum(widest)
    room = console.width - frame
    if sum(widest) <= room:
        return [None] * len(widest)
    if sum(shortest) > room:
        return None
    widths = list(widest)
    while sum(widths) > room:
        # Narrow the column with the most to give, one character at a time: a long cost or
        # list of models wraps over lines before a short cell is touched.
        j = max(range(len(widths)), key=lambda i: (widths[i] - shortest[i], widths[i]))
        widths[j] -= 1
    return list(widths)


def stacked(table: Table) -> RenderableType:
    """The table's rows one under another: a row's first cell on a line of its own, then each
    other cell that holds something on a line under its column's name, a blank line between
    rows; the title above them all."""
    columns = table.columns
    parts: list[RenderableType] = []
    if table.title:
        title = table.title
        parts.append(Styled(title, "bold"))
    cells = [list(c.cells) for c in columns]
    for i in range(table.row_count):
        if i or parts:
            parts.append(Text())
        parts.append(Styled(cells[0][i], "bold"))
        rest = Table.grid(padding=(0, 2), pad_edge=False)
        rest.add_column(no_wrap=True)
        rest.add_column()
        for column, column_cells in zip(columns[1:], cells[1:], strict=True):
            cell = column_cells[i]
            if cell == "" or (isinstance(cell, Text) and not cell.plain):
                continue
            # A header set over lines to keep a narrow column narrow reads as one name here.
            header = column.header
            rest.add_row(header.replace("\n", " ") if isinstance(header, str) else header, cell)
        if rest.row_count:
            parts.append(Padding(rest, (0, 0, 0, _STACK_INDENT)))
    return Group(*parts)

"""A table's columns fitted to the console's width by wrapping between words: rich narrows the
widest columns first, down to a width that folds a word or cuts it; here no column is narrowed
below its longest word while another has room to give."""

from __future__ import annotations

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

#: Wide enough to measure any table unclamped.
_UNCLAMPED = 10_000


def fit_columns(table: Table, console: Console) -> Table:
    """``table`` with each column's width set so that the table fits ``console.width`` and no
    word is folded, when it can (the longest words of all columns fit side by side); otherwise
    the table as it was, for rich to narrow."""
    options = console.options.update_width(_UNCLAMPED)
    shortest: list[int] = []
    widest: list[int] = []
    for column in table.columns:
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
    if sum(widest) <= room or sum(shortest) > room:
        return table
    widths = list(widest)
    while sum(widths) > room:
        # Narrow the column with the most to give, one character at a time: a long cost or
        # list of models wraps over lines before a short cell is touched.
        j = max(range(len(widths)), key=lambda i: (widths[i] - shortest[i], widths[i]))
        widths[j] -= 1
    for column, width in zip(table.columns, widths, strict=True):
        column.width = width
    return table

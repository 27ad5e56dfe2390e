"""Tables that fit the terminal's width with every number whole.

A decision is read off a value and its interval, so a table never cuts a number to fit: when
a table is wider than its room, it first wraps the headers of its number columns
(``STS single`` over two lines), then its long texts (a name, a figure's title), widest
first; then it sets each interval under its value (``-50.0`` over ``[-100.0, 50.0]``, one
column instead of two), and leaves out a column empty in every row (no value measured yet).
A table that still does not fit sets each row as one cell of ``header: value`` items packed
on lines (``PASS · gate: below 95`` over ``value: 59.0 · interval: [52.1, 65.9]``), rather
than break a status or a rule or hide a value to the right. Only where a number is wider than
the table do the short texts wrap, and failing that the table keeps its natural widths and
scrolls sideways (with a scrollbar, never silently cut).

:func:`plan_columns` decides the layout from the cells' text alone, so it is tested without a
terminal; :class:`FitTable` lays its rows out again whenever its width changes.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from textual import events

from diptych.tui.widgets.tables import ListTable, matches

#: A number as the screens write it: a sign, a dollar, thousands commas, a percent; ``inf``.
_NUMBER = r"[+\-−]?(?:\$?\d[\d,]*(?:\.\d+)?%?|inf|nan)"
NUMBER = re.compile(rf"{_NUMBER}|—|-|")
#: What an empty cell shows.
EMPTY = ("", "—", "-")
#: ``[low, high]`` (or with parentheses) and ``low to high``.
INTERVAL = re.compile(rf"[\[(]\s*{_NUMBER}\s*,\s*{_NUMBER}\s*[\])]|{_NUMBER} to {_NUMBER}")
#: A text column is never narrower than this (or its longest word, if shorter): a name folded
#: into pieces of a few letters is no longer read as a name.
MIN_TEXT = 12
#: A text this short (a status, a verdict, a rule) wraps only when nothing else is left.
SHORT_TEXT = 16
#: The look a gate decided at ("look 1 of 10", or "look 1/10" where a narrow pane names it in
#: fewer words; "look 2" where it read the whole design): wrapped as one word, since "look 1"
#: over "of 10" reads as the first look of an unknown number, and "look" over "1/10)" or "2" as
#: a word cut from its number.
LOOK = re.compile(r"\blook [\d,]+(?:(?: of |/)[\d,]+)?")
#: What joins a look's words while a cell is wrapped (no space textwrap breaks at).
_JOIN = "\x1f"
#: Cell padding on each side, as the DataTable draws it.
PADDING = 1


def is_number(cell: str) -> bool:
    cell = cell.strip()
    return NUMBER.fullmatch(cell) is not None or INTERVAL.fullmatch(cell) is not None


def is_interval(cell: str) -> bool:
    return INTERVAL.fullmatch(cell.strip()) is not None


def _joined(text: str) -> str:
    return LOOK.sub(lambda look: look.group(0).replace(" ", _JOIN), text)


def _longest_word(text: str) -> int:
    return max((len(word) for word in _joined(text).split()), default=0)


@dataclass(frozen=True)
class ColumnPlan:
    """How the columns are drawn: ``groups`` are the source columns each drawn column shows
    (an interval under its value: two), ``widths`` their widths, ``wrap`` whether a drawn
    column's cells wrap (text) or stay whole (numbers)."""

    headers: list[str]
    groups: list[tuple[int, ...]]
    widths: list[int]
    wrap: list[bool]
    #: False when even the narrowest layout is too wide: natural widths, scrolled sideways.
    fits: bool
    #: Each row one cell of ``header: value`` items, packed on lines (see :func:`stack_row`).
    stacked: bool = False

    @property
    def merged(self) -> bool:
        return any(len(group) > 1 for group in self.groups)


def _interval_pairs(headers: Sequence[str], columns: Sequence[Sequence[str]]) -> set[int]:
    """Indexes of the interval columns that stand right after their value's column."""
    out: set[int] = set()
    for i in range(1, len(headers)):
        cells = [c for c in columns[i] if c.strip() not in EMPTY]
        value = [c for c in columns[i - 1] if c.strip()]
        if (
            cells
            and all(is_interval(c) for c in cells)
            and value
            and all(is_number(c) and not is_interval(c) for c in value)
            and i - 1 not in out
        ):
            out.add(i)
    return out


def _merged_header(value: str, interval: str) -> str:
    """``STS single`` over ``single 95% CI`` is ``STS single`` over ``95% CI``."""
    known = set(value.split())
    rest = [w for w in interval.split() if w not in known]
    return f"{value}\n{' '.join(rest) or interval}"


def _shrink(widths: list[int], minimum: list[int], movable: list[int], excess: int) -> int:
    """Take ``excess`` cells from the ``movable`` columns, widest first, none below its
    minimum; return what could not be taken."""
    while excess > 0:
        candidates = [i for i in movable if widths[i] > minimum[i]]
        if not candidates:
            break
        widest = max(candidates, key=lambda i: (widths[i], -i))
        widths[widest] -= 1
        excess -= 1
    return excess


def plan_columns(
    headers: Sequence[str], rows: Sequence[Sequence[str]], width: int, *, merge: bool = True
) -> ColumnPlan:
    """The layout of a table of ``rows`` under ``headers`` in ``width`` cells: the first of
    these that fits, each giving up a little more than the one before."""
    n = len(headers)
    columns = [[row[i] for row in rows] for i in range(n)]
    pairs = _interval_pairs(headers, columns) if merge else set()
    empty = {i for i in range(n) if all(c.strip() in EMPTY for c in columns[i])}
    none: set[int] = set()
    stages = ((none, none), (pairs, none), (none, empty), (pairs, empty))
    for merged, dropped in stages:
        plan = _plan(headers, columns, width, merged, dropped, short_too=False)
        if plan.fits:
            return plan
    # No columns fit without breaking a status or a rule: each row becomes one cell of
    # "header: value" items, as long as every number still fits on a line.
    room = width - 2 * PADDING
    numbers = [c for column in columns for c in column if is_number(c)]
    if all(len(c) <= room for c in numbers) and room >= MIN_TEXT:
        return ColumnPlan([""], [tuple(range(n))], [room], [True], fits=True, stacked=True)
    for merged, dropped in stages:
        plan = _plan(headers, columns, width, merged, dropped, short_too=True)
        if plan.fits:
            return plan
    # Nothing fits: every column at its natural width, and the table scrolls sideways.
    natural = _plan(headers, columns, width, set(), set(), short_too=True)
    return ColumnPlan(
        natural.headers,
        natural.groups,
        [_natural(headers[g[0]], columns[g[0]]) for g in natural.groups],
        natural.wrap,
        fits=False,
    )


def _natural(header: str, cells: Sequence[str]) -> int:
    lines = [len(line) for cell in cells for line in cell.splitlines()]
    return max([len(header), *lines])


def _plan(
    headers: Sequence[str],
    columns: Sequence[Sequence[str]],
    width: int,
    pairs: set[int],
    dropped: set[int],
    *,
    short_too: bool,
) -> ColumnPlan:
    """Widths for the columns (``pairs``: the interval columns set under their values;
    ``dropped``: columns left out, each empty in every row): headers of number columns wrap
    first, then long texts (a name, a figure's title) at spaces down to MIN_TEXT, and only
    with ``short_too`` the short ones (a status, a rule) and long words (folded)."""
    groups: list[tuple[int, ...]] = []
    shown: list[str] = []
    for i, header in enumerate(headers):
        if i in pairs or i in dropped:
            continue
        if i + 1 in pairs and i + 1 not in dropped:
            groups.append((i, i + 1))
            shown.append(_merged_header(header, headers[i + 1]))
        else:
            groups.append((i,))
            shown.append(header)
    natural: list[int] = []
    minimum: list[int] = []
    #: How far a long text goes before the short ones wrap: never inside a word.
    unbroken: list[int] = []
    wrap: list[bool] = []
    for group, header in zip(groups, shown, strict=True):
        cells = [c for i in group for c in columns[i]]
        numbers = all(is_number(c) for c in cells)
        longest_cell = max((len(line) for c in cells for line in c.splitlines()), default=0)
        header_words = max(_longest_word(line) for line in header.splitlines())
        whole = max(len(line) for line in header.splitlines())
        natural.append(max(longest_cell, whole))
        if numbers:
            minimum.append(max(longest_cell, header_words, 1))
            unbroken.append(minimum[-1])
        else:
            longest_word = max([header_words, *(_longest_word(c) for c in cells)])
            minimum.append(max(1, min(longest_word, MIN_TEXT, natural[-1])))
            unbroken.append(min(natural[-1], max(longest_word, MIN_TEXT)))
        wrap.append(not numbers)
    room = width - 2 * PADDING * len(groups)
    widths = list(natural)
    excess = sum(widths) - room
    number_columns = [i for i, w in enumerate(wrap) if not w]
    long_text = [i for i, w in enumerate(wrap) if w and natural[i] > SHORT_TEXT]
    # A taller header costs one line for the whole table; a wrapped cell, a line per row.
    excess = _shrink(widths, minimum, number_columns, excess)
    excess = _shrink(widths, unbroken, long_text, excess)
    if short_too:
        excess = _shrink(widths, minimum, [i for i, w in enumerate(wrap) if w], excess)
    return ColumnPlan(shown, groups, widths, wrap, fits=excess <= 0)


def wrap_cell(text: str, width: int) -> str:
    """``text`` on lines of at most ``width``, broken at spaces (a longer word is folded), a
    gate's look kept whole."""
    lines: list[str] = []
    for line in text.splitlines() or [""]:
        lines += textwrap.wrap(_joined(line), width, break_on_hyphens=False) or [""]
    return "\n".join(lines).replace(_JOIN, " ")


#: A column name that says which of a pair a value is, not what it is ("A", "B").
_ROLE = re.compile(r"[A-Z]")


def stack_row(headers: Sequence[str], row: Sequence[str], width: int) -> str:
    """A row as one cell: its first value, then ``header: value`` items packed on lines of
    ``width`` with `` · `` between them; an item breaks only when it is wider than a line, and
    then inside its text, never inside a number (an empty value is left out). The first value
    stands alone as the row's name, unless its column's name is a role, not a kind (the "A" of
    an "A"/"B" pair): then it is named like the rest, or the row would name B and not A."""
    first = " ".join(headers[0].split()) if headers else ""
    items = [f"{first}: {row[0]}" if _ROLE.fullmatch(first) else row[0]] if row else []
    items += [
        f"{' '.join(h.split())}: {cell}"
        for h, cell in zip(headers[1:], row[1:], strict=True)
        if cell.strip() not in EMPTY
    ]
    lines: list[str] = []
    for item in items:
        if lines and len(lines[-1]) + 3 + len(item) <= width:
            lines[-1] += f" · {item}"
        elif len(item) <= width:
            lines.append(item)
        else:
            head, _, value = item.partition(": ")
            if value and is_number(value):
                lines += [wrap_cell(f"{head}:", width), value]
            else:
                lines.append(wrap_cell(item, width))
    return "\n".join(lines)


def lay_out(plan: ColumnPlan, row: Sequence[str], headers: Sequence[str] = ()) -> list[str]:
    """One row's cells as the plan draws them (``headers``: the source columns', which a
    stacked row names its values by)."""
    if plan.stacked:
        return [stack_row(headers, row, plan.widths[0])]
    out = []
    for group, width, wraps in zip(plan.groups, plan.widths, plan.wrap, strict=True):
        cell = "\n".join(row[i] for i in group)
        out.append(wrap_cell(cell, width) if wraps and plan.fits else cell)
    return out


class FitTable(ListTable):
    """A table whose columns fit its width (see the module): laid out again on a resize."""

    DEFAULT_CSS = """
    FitTable {
        /* The vertical scrollbar's room is kept whether or not it shows, so that rows that
           grow the table do not change the width the columns were fitted to; one cell of it
           is enough. */
        scrollbar-gutter: stable;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(
        self, headers: Sequence[str], rows: Sequence[Sequence[Any]] = (), **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.headers = [str(h) for h in headers]
        #: (key, cells) of every row, as given.
        self.source: list[tuple[str | None, list[str]]] = [
            (None, [str(c) for c in row]) for row in rows
        ]
        self.plan: ColumnPlan | None = None
        self._laid_out_width = -1

    def set_rows(self, rows: Sequence[tuple[str | None, Sequence[Any]]]) -> None:
        """Replace every row (``key`` None: an unkeyed row)."""
        self.source = [(key, [str(c) for c in cells]) for key, cells in rows]
        self._relayout()

    def upsert(self, key: str, cells: Sequence[Any]) -> None:
        """Add the row ``key``, or replace its cells."""
        new = [str(c) for c in cells]
        for i, (known, _) in enumerate(self.source):
            if known == key:
                self.source[i] = (key, new)
                break
        else:
            self.source.append((key, new))
        self._relayout()

    def on_mount(self) -> None:
        self._relayout()

    def on_resize(self, event: events.Resize) -> None:
        self.refit()
        # The width a resize leaves is settled once the page around it is laid out again (a
        # scrollbar shown or hidden there moves it): look again then.
        self.call_after_refresh(self.refit)

    def refit(self) -> None:
        """Lay the rows out again where the table's width is no longer the one they were laid
        out for."""
        if self.is_mounted and self._width_now() != self._laid_out_width:
            self._relayout()

    def _width_now(self) -> int:
        return self.scrollable_content_region.width or self.app.size.width

    def filter_rows(self, text: str) -> None:
        self.filter_text = text
        self._relayout()

    def _relayout(self) -> None:
        if not self.is_mounted:
            return
        width = self._laid_out_width = self._width_now()
        cells = [c for _, c in self.source]
        plan = plan_columns(self.headers, cells, width)
        self.plan = plan
        cursor = self.cursor_row
        self.clear(columns=True)
        # A stacked row names each of its values: a header over it would say nothing.
        self.show_header = not plan.stacked
        self.header_height = max(h.count("\n") + 1 for h in plan.headers) if plan.headers else 1
        for header, group, width_ in zip(plan.headers, plan.groups, plan.widths, strict=True):
            label = wrap_cell(header, width_) if plan.fits else header.replace("\n", " ")
            self.header_height = max(self.header_height, label.count("\n") + 1)
            self.add_column(label, width=width_, key=str(group[0]))
        for key, row in self.source:
            if not matches(tuple(row), self.filter_text):
                continue
            shown = lay_out(plan, row, self.headers)
            height = max(cell.count("\n") + 1 for cell in shown) if shown else 1
            self.add_row(*shown, key=key, height=height)
        if self.row_count:
            self.move_cursor(row=min(cursor, self.row_count - 1), animate=False)

"""Tables and lists that move like the terminal tools auditors know: Home/End and g/G go to
the first and last row, and ``/`` narrows every table of a screen to the rows that match."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable, Input, OptionList
from textual.widgets.data_table import RowKey

from diptych.core.safe_text import escape_controls, has_controls

JUMP_BINDINGS: list[BindingType] = [
    Binding("home,g", "first", "first row", show=False),
    Binding("end,G", "last", "last row", show=False),
]


def matches(cells: tuple[Any, ...], text: str) -> bool:
    """Whether any cell holds ``text`` (any case)."""
    wanted = text.strip().lower()
    if not wanted:
        return True
    return any(wanted in (c.plain if isinstance(c, Text) else str(c)).lower() for c in cells)


def shown(cell: Any) -> Any:
    """``cell`` with terminal control characters escaped: names come from files and models, and
    Textual passes an ``ESC`` through to the terminal as it is."""
    if isinstance(cell, str):
        return escape_controls(cell)
    if isinstance(cell, Text) and has_controls(cell.plain):
        return Text(escape_controls(cell.plain), style=cell.style, justify=cell.justify)
    return cell


class ListTable(DataTable[Any]):
    """A row-cursor DataTable with jump keys, whose rows a filter narrows (and widens back)."""

    BINDINGS: ClassVar[list[BindingType]] = JUMP_BINDINGS

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("cursor_type", "row")
        super().__init__(**kwargs)
        #: Every row added, with its key, so that a filter can bring them back.
        self.all_rows: list[tuple[tuple[Any, ...], str | None, int | None]] = []
        self.filter_text = ""

    def add_row(
        self,
        *cells: Any,
        height: int | None = 1,
        key: str | None = None,
        label: Any = None,
    ) -> RowKey:
        cells = tuple(shown(c) for c in cells)
        self.all_rows.append((cells, key, height))
        return super().add_row(*cells, height=height, key=key, label=label)

    def clear(self, columns: bool = False) -> ListTable:
        self.all_rows = []
        super().clear(columns)
        return self

    def filter_rows(self, text: str) -> None:
        """Show only the rows with a cell that holds ``text``; "" shows them all."""
        self.filter_text = text
        rows = list(self.all_rows)
        DataTable.clear(self)
        self.all_rows = []
        for cells, key, height in rows:
            self.all_rows.append((cells, key, height))
            if matches(cells, text):
                DataTable.add_row(self, *cells, height=height, key=key)

    def action_select_cursor(self) -> None:
        if not self.row_count:
            # No row to select: the key goes on to the screen, which says why (a table still
            # being filled took Enter and did nothing).
            raise SkipAction()
        super().action_select_cursor()

    def action_first(self) -> None:
        if self.row_count:
            self.move_cursor(row=0)

    def action_last(self) -> None:
        if self.row_count:
            self.move_cursor(row=self.row_count - 1)


class JumpOptionList(OptionList):
    """An OptionList with g/G beside Home/End."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("g", "first", "first row", show=False),
        Binding("G", "last", "last row", show=False),
    ]


class TitlesList(JumpOptionList):
    """A JumpOptionList of titles that may wrap: scrolled to a later one, its top line is the
    start of a title, never the cut-off tail of one above ("and 15)")."""

    def scroll_to_highlight(self, top: bool = False) -> None:
        super().scroll_to_highlight(top)
        lines, chosen = self._lines, self.highlighted
        y = round(self.scroll_y)
        if chosen is None or y >= len(lines) or lines[y][1] == 0:
            return
        starts, heights = self._index_to_line, self._heights
        cut = lines[y][0]
        end = starts[chosen] + heights[chosen]
        # Up to the cut title's start where the chosen one still shows whole under it; else
        # down to the next title's start, which the chosen one is at or under.
        room = self.scrollable_content_region.height
        to = starts[cut] if end - starts[cut] <= room else starts.get(cut + 1, y)
        self.scroll_to(y=to, animate=False, immediate=True)


class FilterBar(Input):
    """The ``/`` line under a screen's tables: typing narrows them, Escape clears and hides."""

    DEFAULT_CSS = """
    FilterBar {
        dock: bottom;
        display: none;
        height: 1;
        border: none;
        padding: 0 1;
        margin-bottom: 1;
    }
    FilterBar.-shown {
        display: block;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "clear filter", show=False),
    ]

    class Filtered(Message):
        """The filter's text changed (``""``: no filter)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("placeholder", "filter: type to narrow the table, Escape clears")
        super().__init__(compact=True, **kwargs)

    def open(self) -> None:
        self.add_class("-shown")
        self.focus()
        # What a key said before is done with once the user types a filter; left shown, it
        # would stand where the bar opens. (By its name: the said line's module reads the
        # tables' own numbers, so this one does not import it.)
        for line in self.screen.query("SaidLine"):
            line.unsay_all()  # type: ignore[attr-defined]

    def action_close(self) -> None:
        self.clear_filter()
        self.screen.focus_next()

    def clear_filter(self) -> bool:
        """No filter any more, the line hidden (where the focus is stays there); whether
        there was one to clear."""
        had = bool(self.value) or self.has_class("-shown")
        self.value = ""
        self.remove_class("-shown")
        self.post_message(self.Filtered(""))
        return had

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Filtered(event.value))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        # Enter keeps the filter and goes back to the table.
        event.stop()
        self.screen.focus_next()

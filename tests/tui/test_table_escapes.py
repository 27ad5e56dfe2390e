"""Textual passes an ESC in a cell through to the terminal: the TUI's tables escape it."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult

from diptych.tui.widgets.tables import ListTable, shown


def test_cells_are_shown_with_control_characters_escaped() -> None:
    assert shown("pi\x1b[2Jlot") == "pi\\x1b[2Jlot"
    styled = shown(Text("a\x1bb", style="bold"))
    assert isinstance(styled, Text) and styled.plain == "a\\x1bb" and styled.style == "bold"
    assert shown(3.5) == 3.5


async def test_a_list_table_stores_and_filters_the_escaped_name() -> None:
    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield ListTable(id="t")

    app = One()
    async with app.run_test():
        table: Any = app.query_one("#t", ListTable)
        table.add_columns("identity")
        table.add_row("pi\x1b[2Jlot", key="r")
        assert table.get_row("r") == ["pi\\x1b[2Jlot"]
        table.filter_rows("2j")
        assert table.row_count == 1

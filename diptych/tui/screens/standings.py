"""The Standings screen: every audited model of the workspace side by side on the paired STS
(``diptych standings``) — each with its interval and a rank with its interval, the pairwise
differences with Holm-corrected tests, one design at a time — reached from the Runs screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Label, Static

from diptych.core.report.standings_tables import PAIR_COLUMNS, RANK_COLUMNS, standings_text
from diptych.tui.messages import StandingsLoaded
from diptych.tui.widgets.fit_table import FitTable
from diptych.tui.widgets.footer import KeysFooter
from diptych.tui.workers import load_standings


class PageTable(FitTable):
    """A table of the page: Up on its first row, or Home, brings the heading above it (the
    design line: what was compared, on which figure) back into view, as a page reads."""

    def _heading_into_view(self) -> None:
        body = self.screen.query_one("#body", VerticalScroll)
        children = list(body.children)
        k = children.index(self) if self in children else 0
        heading = children[k - 1] if k > 0 else None
        if heading is None or k == 1:
            body.scroll_home(animate=False)
        else:
            body.scroll_to_widget(heading, top=True, animate=False)

    def action_first(self) -> None:
        super().action_first()
        self._heading_into_view()

    def action_cursor_up(self) -> None:
        if self.cursor_row <= 0:
            self._heading_into_view()
            return
        super().action_cursor_up()


class StandingsScreen(Screen[None]):
    """Every audited model ranked on one figure, with intervals."""

    CSS_PATH = "standings.tcss"
    HELP_PURPOSE = (
        "Standing among models: every audited model's paired STS with its interval, a rank "
        "with its interval, and which pairs differ (Holm-corrected), one table per design; "
        "the papers' figures beside them as another design, never ranked."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("f5", "reload", "Reload"),
    ]

    def __init__(self, store_path: Path) -> None:
        super().__init__()
        self.store_path = store_path
        #: What was loaded last (a ``Standings``), for tests and a reload.
        self.standings: Any = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield VerticalScroll(Static("Ranking the models…", id="standings-status"), id="body")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        self.action_reload()

    def action_reload(self) -> None:
        # Said again at once: a key pressed shows it was heard while the models are ranked.
        for status in self.query("#standings-status").results(Static):
            status.update("Ranking the models…")
        self._load(self.store_path)

    @work(thread=True, exclusive=True, exit_on_error=False, group="standings")
    def _load(self, store_path: Path) -> None:
        self.post_message(load_standings(store_path))

    @on(StandingsLoaded)
    async def _loaded(self, message: StandingsLoaded) -> None:
        body = self.query_one("#body", VerticalScroll)
        await body.remove_children()
        self.standings = message.standings
        if message.standings is None:
            await body.mount(Static(message.error or "nothing to rank", id="standings-status"))
            return
        widgets: list[Any] = []
        for k, table in enumerate(message.standings.tables, start=1):
            text = standings_text(table)
            # Static wraps: a design's words are never cut at the right edge.
            widgets.append(Static(text.title, classes="heading"))
            ranks = [row[:4] + row[5:] for row in text.ranks]  # the run is in the title's table
            columns = RANK_COLUMNS[:4] + RANK_COLUMNS[5:]
            widgets.append(PageTable(columns, ranks, id=f"ranks-{k}", classes="ranks"))
            if text.pairs:
                widgets.append(Label("pairwise differences (B − A)", classes="heading"))
                widgets.append(PageTable(PAIR_COLUMNS, text.pairs, id=f"pairs-{k}"))
            notes = [
                *text.successions,
                *(f"published: {line}" for line in text.references),
                *text.notes,
            ]
            runs = ", ".join(f"#{i} {row[4]}" for i, row in enumerate(text.ranks, start=1))
            widgets.append(Static("\n".join([f"runs: {runs}", *notes]), classes="note"))
        widgets.append(Static(message.standings.method, classes="note"))
        await body.mount_all(widgets)
        first = self.query(FitTable)
        if first:
            # The page stays at its top: focusing the table would scroll the design line
            # above it (what was compared, on which figure) out of a short terminal.
            first.first().focus(scroll_visible=False)

    def action_back(self) -> None:
        self.dismiss(None)

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
from textual.timer import Timer
from textual.widgets import Header, Label, Static

from diptych.core.report.standings_tables import PAIR_COLUMNS, RANK_COLUMNS, standings_text
from diptych.core.workspace.standings import DEFAULT_FIGURE
from diptych.tui.messages import StandingsLoaded
from diptych.tui.widgets.fit_table import FitTable
from diptych.tui.widgets.footer import KeysFooter
from diptych.tui.workers import load_standings


class PageTable(FitTable):
    """A table of the page, read with the arrow keys alone as a page is read: Down on its
    last row reads on (the page scrolls a few lines, and the next table takes the keys once
    its top is in view), Up on its first row brings the heading above it (the design line:
    what was compared, on which figure) back into view, then reads back up the same way. Home
    and End go to the page's first and last table row from whichever table has the keys."""

    #: Lines the page moves for a key pressed past a table's end: a note stays readable.
    STEP = 3

    def _body(self) -> VerticalScroll:
        return self.screen.query_one("#body", VerticalScroll)

    def _heading_into_view(self) -> None:
        body = self._body()
        children = list(body.children)
        k = children.index(self) if self in children else 0
        heading = children[k - 1] if k > 0 else None
        if heading is None or k == 1:
            body.scroll_home(animate=False)
        else:
            body.scroll_to_widget(heading, top=True, animate=False)

    def _heading_in_view(self) -> bool:
        body = self._body()
        children = list(body.children)
        k = children.index(self) if self in children else 0
        top = children[k - 1] if k > 0 else self
        return body.scroll_y == 0 or top.region.y >= body.region.y

    def _neighbour(self, step: int) -> PageTable | None:
        tables = list(self.screen.query(PageTable))
        k = tables.index(self) + step
        return tables[k] if 0 <= k < len(tables) else None

    def _read_on(self) -> None:
        body = self._body()
        after = self._neighbour(+1)
        middle = body.region.y + body.region.height // 2
        if after is not None and after.region.height and after.region.y <= middle:
            after.focus(scroll_visible=False)
            after.move_cursor(row=0, scroll=False)
            return
        body.scroll_relative(y=self.STEP, animate=False)

    def _read_back(self) -> None:
        if not self._heading_in_view():
            self._heading_into_view()
            return
        body = self._body()
        before = self._neighbour(-1)
        if before is not None and before.region.height and before.region.bottom > body.region.y:
            before.focus(scroll_visible=False)
            before.move_cursor(row=max(before.row_count - 1, 0), scroll=False)
            return
        body.scroll_relative(y=-self.STEP, animate=False)

    def action_first(self) -> None:
        # Home reads the page, not the table it is pressed on: the first row of the first
        # table, under the design line, wherever the keys are.
        first = self.screen.query(PageTable).first()
        if first is not self:
            first.focus(scroll_visible=False)
            first.action_first()
            return
        super().action_first()
        self._heading_into_view()

    def action_last(self) -> None:
        # End likewise: the last row of the page's last table, the table in view from the
        # heading above it, what follows it (the notes, the method) below as far as it goes.
        last = self.screen.query(PageTable).last()
        if last is not self:
            last.focus(scroll_visible=False)
            last.action_last()
            return
        super().action_last()
        self._heading_into_view()

    def action_cursor_up(self) -> None:
        if self.cursor_row <= 0:
            self._read_back()
            return
        super().action_cursor_up()

    def action_cursor_down(self) -> None:
        if self.cursor_row >= self.row_count - 1:
            self._read_on()
            return
        super().action_cursor_down()


class StandingsScreen(Screen[None]):
    """Every audited model ranked on one figure, with intervals."""

    CSS_PATH = "standings.tcss"
    HELP_PURPOSE = (
        "Standing among models: every audited model's paired STS with its interval, a rank "
        "with its interval, and which pairs differ (Holm-corrected), one table per design; "
        "the papers' figures beside them as another design, never ranked. f ranks the next "
        "figure the runs have (STS single …); while a run is running the screen ranks again "
        "when it finishes."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("f", "next_figure", "Figure"),
        Binding("f5", "refresh", "Reload"),
    ]

    def __init__(self, store_path: Path) -> None:
        super().__init__()
        self.store_path = store_path
        #: What was loaded last (a ``Standings``), for tests and a reload.
        self.standings: Any = None
        #: The figure ranked, and those the runs can be ranked on (``f`` steps through them).
        self.figure = DEFAULT_FIGURE
        self.figures: list[str] = []
        #: The runs running when the ranking was read; while any is, the screen looks every
        #: refresh interval and ranks again once one has finished.
        self.running: list[str] = []
        self._watch: Timer | None = None
        #: What the page said when F5 asked again: a reading that changes nothing says so.
        self._asked: str | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield VerticalScroll(Static("Ranking the models…", id="standings-status"), id="body")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        self.action_reload()

    def on_resize(self) -> None:
        # Each table fits itself to its width as it is resized; once the page is laid out at
        # the new size (its scrollbar shown or not), every table looks at its width again.
        self.call_after_refresh(self._refit_tables)

    def _refit_tables(self) -> None:
        for table in self.query(FitTable):
            table.refit()

    def action_reload(self) -> None:
        # Said again at once: a key pressed shows it was heard while the models are ranked.
        for status in self.query("#standings-status").results(Static):
            status.update(f"Ranking the models on {self.figure}…")
        self._load(self.store_path, self.figure)

    def action_refresh(self) -> None:
        """F5: read the workspace again now, and say so where nothing has changed."""
        self._asked = self._page_text()
        self.action_reload()

    def _page_text(self) -> str:
        return "\n".join(str(w.render()) for w in self.query("#body Static").results(Static))

    async def action_next_figure(self) -> None:
        """Rank the next of the figures the runs have (the first again after the last)."""
        choices = self.figures or [DEFAULT_FIGURE]
        at = choices.index(self.figure) if self.figure in choices else -1
        self.figure = choices[(at + 1) % len(choices)]
        # The tables ranked on the figure before go with the key, the line that names the new
        # one in their place until it is ranked: never a line naming a figure over a table
        # ranked on another.
        body = self.query_one("#body", VerticalScroll)
        await body.remove_children()
        await body.mount(Static("", id="standings-status"))
        self.action_reload()

    @work(thread=True, exclusive=True, exit_on_error=False, group="standings")
    def _load(self, store_path: Path, figure: str) -> None:
        self.post_message(load_standings(store_path, figure))

    def _watch_running(self) -> None:
        """While a run is running, look every refresh interval whether one has finished."""
        if self.running and self._watch is None:
            every = float(getattr(self.app, "refresh_interval", 1.0))
            self._watch = self.set_interval(every, self._look)
        elif not self.running and self._watch is not None:
            self._watch.stop()
            self._watch = None

    @work(thread=True, exclusive=True, exit_on_error=False, group="standings-watch")
    def _look(self) -> None:
        from diptych.core.workspace import Workspace

        with Workspace.open(self.store_path, read_only=True) as ws:
            still = {s.run.id for s in ws.runs.list() if s.run.status == "running"}
        if any(run not in still for run in self.running):
            self.app.call_from_thread(self._finished)

    def _finished(self) -> None:
        """A run watched has finished: rank once. The watch stops until the ranking read
        says what still runs: looking on meanwhile started a ranking at every look until one
        came back, and on a busy machine those rankings, run together, took a minute."""
        if self._watch is None:
            return  # an earlier look saw it first
        self._watch.stop()
        self._watch = None
        self.running = []
        self.action_reload()

    @on(StandingsLoaded)
    async def _loaded(self, message: StandingsLoaded) -> None:
        if message.figure and message.figure != self.figure:
            return  # read before f chose another figure: that one's ranking is on its way
        body = self.query_one("#body", VerticalScroll)
        await body.remove_children()
        self.standings = message.standings
        self.figures = message.figures or self.figures
        self.running = list(message.running)
        self._watch_running()
        waiting = (
            f"{'1 run is' if len(self.running) == 1 else f'{len(self.running)} runs are'} still "
            "running: ranked again when one finishes (F5 now)"
            if self.running
            else ""
        )
        if message.standings is None:
            said = message.error or "nothing to rank"
            if waiting and "still running" not in said:
                said = f"{said}; {waiting}"
            await body.mount(Static(said, id="standings-status"))
            self._said_again()
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
                text.units,
            ]
            runs = ", ".join(f"#{i} {row[4]}" for i, row in enumerate(text.ranks, start=1))
            widgets.append(Static("\n".join([f"runs: {runs}", *notes]), classes="note"))
        widgets.append(Static(message.standings.method, classes="note"))
        if waiting:
            widgets.insert(0, Static(waiting, classes="note", id="standings-waiting"))
        await body.mount_all(widgets)
        self._said_again()
        first = self.query(FitTable)
        if first:
            # The page stays at its top: focusing the table would scroll the design line
            # above it (what was compared, on which figure) out of a short terminal.
            first.first().focus(scroll_visible=False)

    def _said_again(self) -> None:
        """After F5: where the page reads as before, say that it was read again."""
        asked, self._asked = self._asked, None
        if asked is not None and asked == self._page_text():
            self.notify("read again: nothing has changed", timeout=3)

    def action_back(self) -> None:
        self.dismiss(None)

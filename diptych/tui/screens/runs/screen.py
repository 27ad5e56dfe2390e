"""The Runs screen: every run of the workspace, its progress and outcomes; the app's home.

The runs an agent session made stand behind one row of the session, their outcomes added up:
enter on that row shows them under it (and hides them again), ``e`` shows every session's.
What a row holds is :mod:`.rows`; the keys that act on the highlighted run, :mod:`.controls`.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.timer import Timer
from textual.widgets import DataTable, Header, Static
from textual.worker import Worker, WorkerState

from diptych.core.workspace import RunSummary, Workspace
from diptych.core.workspace.search_runs import SearchRuns
from diptych.core.workspace.sessions import session_label
from diptych.tui.formatting import clip, percent, timestamp
from diptych.tui.jobs import JobState
from diptych.tui.messages import JobsChanged, RunsLoaded
from diptych.tui.progress import run_progress
from diptych.tui.screens.runs.rows import (
    COLUMNS,
    DROPPED_FIRST,
    MIN_MODELS,
    SESSION_KEY,
    STATUS_STYLE,
    WIDENED,
    model_ids,
    no_run_matches,
    session_key,
    session_members,
    table_chrome,
)
from diptych.tui.screens.runs.session_rows import SessionRows
from diptych.tui.widgets.footer import KeysFooter
from diptych.tui.widgets.jobs_panel import JobsPanel
from diptych.tui.widgets.said import say
from diptych.tui.widgets.store_reads import StoreReads
from diptych.tui.widgets.tables import FilterBar, ListTable, matches
from diptych.tui.workers import load_runs, load_searches


class RunsScreen(SessionRows):
    """Every run in the workspace: probe, models, status, progress and outcome counts."""

    CSS_PATH = "runs.tcss"
    HELP_PURPOSE = (
        "Home: every run of the workspace with its status, progress and outcome counts. Open a "
        "run's figures (enter), start a new run (n), review the people its flags point at (r), or "
        "go to the Agent (a), Audit (A) and Standings (s) screens. Columns: prog is the "
        "progress, ref the trials refused, fail those failed, flag the people flagged for review."
    )
    #: Left to Help first where the footer has no room for every key (widgets/footer.py).
    FOOTER_SPARE: ClassVar[tuple[str, ...]] = ("plugins", "filter", "standings", "stop")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_run", "Detail"),
        Binding("n", "new_run", "New run"),
        Binding("u", "resume", "Resume"),
        Binding("p", "pause", "Pause", tooltip="pause a running run; on a paused one, go on"),
        Binding(
            "c",
            "stop",
            "Stop",
            tooltip="stop a running run: its trials so far are kept, u resumes it",
        ),
        Binding("r", "review", "Review"),
        Binding("i", "plugins", "Plugins"),
        Binding("slash", "filter", "Filter"),
        Binding("escape", "clear_filter", "Clear filter", show=False),
        Binding("m", "full_models", "Full model ids", show=False),
        Binding(
            "e",
            "session_runs",
            "Agent runs",
            show=False,
            tooltip="show or hide the runs of every agent session under its row",
        ),
        Binding("f5", "reload_now", "Reload now", show=False),
        # The other screens' keys: in the footer where it has room, else Help's "+N keys".
        Binding("a", "app.push_screen('agent')", "Agent"),
        Binding("A", "app.push_screen('audit')", "Audit"),
        Binding("s", "standings", "Standings"),
    ]

    def __init__(self) -> None:
        super().__init__(classes="-no-rows")  # until the first read of the workspace lands
        self.rows: dict[str, RunSummary] = {}
        self.searches: dict[str, SearchRuns] = {}
        self._timer: Timer | None = None
        #: When the jobs bar was last drawn: the highlighted run's line reads its rate then.
        self._drawn_at: float | None = None
        self._reads = StoreReads(self, lambda: self._load(self.diptych.store_path))
        self.full_models = False
        self.filter_text = ""
        self._models_width = 13
        self._run_width = 8
        self._probe_width = 8
        #: Each column of counts (and the status) as wide as its widest cell (_wanted_count_widths).
        self._count_widths: dict[str, int] = {k: w for k, _, w in COLUMNS if k in WIDENED}
        #: The keys of the columns shown (see DROPPED_FIRST).
        self._shown_columns: tuple[str, ...] = tuple(key for key, _, _ in COLUMNS)
        self._load_error: str | None = None
        #: A run to put the cursor on once it appears (the one just started).
        self._follow_job: int | None = None
        #: Sessions whose runs are shown under their row; ``e`` shows every session's.
        self.expanded: set[str] = set()
        self.all_session_runs = False
        #: The row to put the cursor back on once the rows are laid out again.
        self._restore_cursor: str | None = None
        #: The footer's labels of the keys that act on the highlighted run, as last shown.
        self._footer_shown: dict[str, str | None] | None = None
        #: Loads whose rows and footer are both drawn (the screen's next frame shows them).
        self.loads_shown = 0

    def compose(self) -> ComposeResult:
        yield Header()
        table = ListTable(id="runs")
        self._add_columns(table)
        yield table
        # Until the first read of the workspace lands: the screen is drawn at once, then filled.
        yield Static("loading the workspace …", id="empty")
        yield Static(id="selected")
        yield JobsPanel(id="jobs")
        yield FilterBar(id="filter")
        yield KeysFooter()

    def _add_columns(self, table: DataTable[Any]) -> None:
        for key, label, width in COLUMNS:
            if key in self._shown_columns:
                width = {
                    "models": self._models_width,
                    "run": self._run_width,
                    "probe": self._probe_width,
                    **self._count_widths,
                }.get(key, width)
                table.add_column(label, key=key, width=width)

    def _wanted_run_width(self) -> int:
        """Room for every run's name whole (a session's run is set under it, after "· ")."""
        names = [len(r.name) + (2 if r.session else 0) for r in self.rows.values()]
        names += [len(session_label(s)) + 2 for s in session_members(self.rows)]
        return max([COLUMNS[0][2], *names])

    def _wanted_probe_width(self) -> int:
        """Room for every run's probe name whole: it is what a user types to start another."""
        return max([COLUMNS[1][2], *(len(r.run.probe) for r in self.rows.values())])

    def _wanted_count_widths(self) -> dict[str, int]:
        """Room for every count whole, in each column of counts (of every run and session, shown
        or filtered out): a count cut reads as another number ("1,21" for 1,212 failed); and room
        for every status whole, in the status column. Where a session's runs differ in status
        ("4 complete, 1 stale") and the columns kept to the last (ref, fail, flag) would not fit,
        its row says "mixed" and the line under the table says the rest."""
        self.short_session_status = False
        widths = self._widest_cells()
        kept = [key for key, _, _ in COLUMNS if key not in DROPPED_FIRST]
        need = self._wanted_run_width() + sum(widths.get(k, 0) for k in kept)
        if need + table_chrome(len(kept)) > self.size.width and self.searches:
            self.short_session_status = True
            widths = self._widest_cells()
        return widths

    def _widest_cells(self) -> dict[str, int]:
        widths = {key: width for key, _, width in COLUMNS if key in WIDENED}
        rows = [self._cells(row) for row in self.rows.values()]
        rows += [self._session_cells(session) for session in session_members(self.rows)]
        for cells in rows:
            for (key, _, _), cell in zip(COLUMNS, cells, strict=True):
                if key in widths:
                    widths[key] = max(widths[key], cell_len(str(cell)))
        return widths

    def _wanted_columns(self) -> tuple[tuple[str, ...], int]:
        """The columns that fit the screen's width, and the models column's width: it takes
        what the others leave, and is given up first when that is too little."""
        keys = [key for key, _, _ in COLUMNS]
        widths = {key: width for key, _, width in COLUMNS}
        widths["run"] = self._wanted_run_width()
        widths["probe"] = self._wanted_probe_width()
        widths.update(self._wanted_count_widths())
        longest = max((len(model_ids(row)) for row in self.rows.values()), default=13)
        for dropped in range(len(DROPPED_FIRST) + 1):
            shown = [k for k in keys if k not in DROPPED_FIRST[:dropped]]
            fixed = sum(widths[k] for k in shown if k != "models") + table_chrome(len(shown))
            room = self.size.width - fixed
            if "models" in shown and room >= MIN_MODELS:
                return tuple(shown), max(room, longest) if self.full_models else room
            if "models" not in shown and (room >= 0 or dropped == len(DROPPED_FIRST)):
                return tuple(shown), 0
        raise AssertionError("unreachable: the last choice is always taken")

    def on_resize(self) -> None:
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Give the models column the width the others leave (all of each id with ``m``),
        leaving out the columns a narrow terminal has no room for."""
        shown, width = self._wanted_columns()
        run_width, probe_width = self._wanted_run_width(), self._wanted_probe_width()
        counts = self._wanted_count_widths()
        wanted = (shown, width, run_width, probe_width, counts)
        now = (self._shown_columns, self._models_width, self._run_width, self._probe_width)
        if wanted == (*now, self._count_widths):
            return
        self._shown_columns, self._models_width = shown, width
        self._run_width, self._probe_width = run_width, probe_width
        self._count_widths = counts
        table = self.query_one(ListTable)
        current = self.current_run_id()
        table.clear(columns=True)
        self._add_columns(table)
        self._show()
        if current is not None and current in self._shown_ids():
            table.move_cursor(row=table.get_row_index(current))

    def on_mount(self) -> None:
        self.query_one(ListTable).focus()
        self._timer = self.set_interval(self.diptych.refresh_interval, self.action_reload)
        self.action_reload()

    def on_screen_suspend(self) -> None:
        if self._timer is not None:
            self._timer.pause()

    def on_screen_resume(self) -> None:
        if self._timer is not None:
            self._timer.resume()
        self.action_reload()

    # --- loading --------------------------------------------------------------------------

    def action_reload_now(self) -> None:
        """Read the workspace again now, saying so: the rows may well be the same."""
        say(self, "Reading the workspace again now.")
        self.action_reload()

    def action_reload(self) -> None:
        self._reads.ask()

    @work(thread=True, exclusive=True, exit_on_error=False, group="runs-load")
    def _load(self, store_path: Path) -> None:
        # The plugins load here, off the UI thread, the first time (the rows name probes):
        # loading them before the first frame left the terminal blank for seconds.
        Workspace.plugins.registry()
        rows = load_runs(store_path)
        self.post_message(RunsLoaded(rows, load_searches(store_path, rows)))

    @on(RunsLoaded)
    async def _loaded(self, message: RunsLoaded) -> None:
        self._load_error = None
        self.rows = {row.run.id: row for row in message.rows}
        self.searches = message.searches
        self.query_one("#empty", Static).update("No runs yet: press n to start one.")
        shown = self._footer_shown
        widths = (self._wanted_run_width(), self._wanted_probe_width(), self._wanted_count_widths())
        if widths != (self._run_width, self._probe_width, self._count_widths):
            self._fit_columns()  # lays the rows out again
        else:
            self._show()
        if self._footer_shown != shown:
            # The highlighted run's keys drawn with its row: the footer's own redraw, on the
            # bindings refreshed, comes a frame or two after the rows.
            await self.query_one(KeysFooter).redraw()
        self.loads_shown += 1
        self._reads.landed()

    @on(JobsChanged)
    def _jobs_changed(self) -> None:
        self._show()
        # Counts come from the store; while runs go on, re-read it a little more often than
        # the timer does, but never continuously, and never miss the last change.
        self._reads.ask(soon=True)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "runs-recall" and event.state == WorkerState.ERROR:
            # n opens nothing: say why, and let it be pressed again.
            self._opening_new_run = False
            self.notify(f"cannot open New run: {event.worker.error}", severity="error")
            return
        if event.worker.group != "runs-load" or event.state != WorkerState.ERROR:
            return
        # A load that failed (the workspace was removed, say) must not block later loads.
        self._reads.landed()
        message = f"cannot read the workspace: {event.worker.error}"
        if message != self._load_error:  # once, not at every refresh
            self._load_error = message
            self.notify(message, severity="error")

    # --- showing --------------------------------------------------------------------------

    def _status(self, row: RunSummary, job: JobState | None) -> str:
        if job is not None:
            return job.state
        if row.run.status == "interrupted" and row.run.id in self.diptych.paused:
            return "paused"
        # A decided run bought on since is no longer at the look that decided it.
        return row.state

    def _matches(self, row: RunSummary) -> bool:
        cells = (row.run.id, row.run.probe, model_ids(row), row.run.status, row.state,
                 row.session or "")  # fmt: skip
        return matches(cells, self.filter_text)

    def _shown_ids(self) -> list[str]:
        """The table's row keys in order: the user's runs, and each agent session's row where
        its first run stands, followed by its runs when it is expanded."""
        members = session_members(self.rows)
        out: list[str] = []
        for run_id, row in self.rows.items():
            if row.session is None:
                if self._matches(row):
                    out.append(run_id)
                continue
            runs = members[row.session]
            if runs[0] is not row:
                continue
            shown = [r.run.id for r in runs if self._matches(r)]
            if not shown and not matches((row.session,), self.filter_text):
                continue
            out.append(session_key(row.session))
            if self.all_session_runs or row.session in self.expanded:
                out += shown
        return out

    def _cells(self, row: RunSummary) -> list[str | Text]:
        run, counts = row.run, row.counts
        job = self.diptych.job_for_run(run.id)
        status = self._status(row, job)
        progress = run_progress(counts, run.n_trials, job)
        # A session's run is set under its session's row. The name is never cut: it is what
        # a user types to name the run in every command.
        return [
            f"· {row.name}" if row.session else row.name,
            run.probe,
            clip(model_ids(row), self._models_width),
            Text(status, style=STATUS_STYLE.get(status, "")),
            Text(percent(progress.done, progress.total), justify="right"),
            Text(f"{counts['done']:,}", justify="right"),
            Text(f"{counts['refused']:,}", justify="right"),
            Text(f"{counts['failed']:,}", justify="right"),
            Text(f"{row.flagged:,}", justify="right"),
        ]

    def _row_cells(self, key: str) -> list[str | Text]:
        """The cells of the columns shown."""
        if key.startswith(SESSION_KEY):
            cells = self._session_cells(key.removeprefix(SESSION_KEY))
        else:
            cells = self._cells(self.rows[key])
        return [
            cell
            for (column, _, _), cell in zip(COLUMNS, cells, strict=True)
            if column in self._shown_columns
        ]

    def _show(self) -> None:
        table = self.query_one(ListTable)
        shown = self._shown_ids()
        order = [key.value for key in table.rows if key.value is not None]
        present = set(order)
        kept = [key for key in order if key in shown]
        if shown[: len(kept)] != kept:
            # A session's runs opened or closed between rows: a DataTable only appends, so
            # the rows are laid out again, the cursor kept on its row.
            current = self._current_key()
            table.clear()
            present = set()
            self._restore_cursor = current
        else:
            for key in present - set(shown):
                table.remove_row(key)
        for key in shown:
            cells = self._row_cells(key)
            if key in present:
                for column, value in zip(self._shown_columns, cells, strict=True):
                    table.update_cell(key, column, value)
            else:
                table.add_row(*cells, key=key)
        restore, self._restore_cursor = self._restore_cursor, None
        if restore is not None and restore in shown:
            table.move_cursor(row=table.get_row_index(restore))
        self._follow_started_run(table)
        # A run being started is known before the store records it (the jobs' line shows it
        # starting, then its bar): "No runs yet" beside it would say there is none.
        starting = not self.rows and bool(self.diptych.active_jobs)
        self.set_class(not shown and not starting, "-no-rows")
        if self.rows and not shown:
            self.query_one("#empty", Static).update(no_run_matches(self.filter_text))
        # The jobs bar and the highlighted run's line read one run alike: from the same
        # stored counts, at the same moment.
        self._drawn_at = time.monotonic()
        stored = {key: (row.counts, row.run.n_trials) for key, row in self.rows.items()}
        self.query_one(JobsPanel).show_jobs(self.diptych.active_jobs, stored, self._drawn_at)
        self._show_selected()

    def _follow_started_run(self, table: ListTable) -> None:
        if self._follow_job is None:
            return
        job = self.diptych.jobs.get(self._follow_job)
        if job is None or job.run_id is None or job.run_id not in self._shown_ids():
            return
        self._follow_job = None
        table.move_cursor(row=table.get_row_index(job.run_id))

    @on(DataTable.RowHighlighted)
    def _show_selected(self) -> None:
        labels = self.footer_labels()
        if labels != self._footer_shown:
            # The footer offers the keys the highlighted run takes (controls.py).
            self._footer_shown = labels
            self.refresh_bindings()
        self._show_run_line()

    def _show_run_line(self) -> None:
        row = self.rows.get(self.current_run_id() or "")
        selected = self.query_one("#selected", Static)
        key = self._current_key() or ""
        if key.startswith(SESSION_KEY):
            selected.update(self._session_line(key.removeprefix(SESSION_KEY)))
            return
        if row is None:
            selected.update("")
            return
        run = row.run
        job = self.diptych.job_for_run(run.id)
        progress = run_progress(row.counts, run.n_trials, job, self._drawn_at)
        if job is None and row.said != run.status:
            # Stopped by a sequential audit: the look it stopped at and what that saved.
            selected.update(f"{run.id} · {model_ids(row)}\n{row.said}")
            return
        parts = [f"progress {progress.text()}", row.flagged_words, "created "
                 + timestamp(run.created_at)]  # fmt: skip
        selected.update(f"{run.id} · {model_ids(row)}\n" + " · ".join(p for p in parts if p))

    @on(DataTable.RowSelected)
    def action_open_run(self) -> None:
        key = self._current_key() or ""
        if key.startswith(SESSION_KEY):
            if self.all_session_runs:  # every session open by ``e``: enter closes this one
                self.all_session_runs, self.expanded = False, set(session_members(self.rows))
            self.expanded ^= {key.removeprefix(SESSION_KEY)}
            self._show()
            return
        row = self._current()
        if row is not None:
            from diptych.tui.screens.runs.detail import RunDetailScreen

            self.app.push_screen(RunDetailScreen(row.run.id))

    def action_filter(self) -> None:
        self.query_one(FilterBar).open()

    def action_clear_filter(self) -> None:
        if not self.query_one(FilterBar).clear_filter():
            say(self, "No filter to clear: / narrows the runs to those that match.")

    @on(FilterBar.Filtered)
    def _filtered(self, message: FilterBar.Filtered) -> None:
        self.filter_text = message.text
        self._show()

    def action_full_models(self) -> None:
        """Widen the models column to every model id in full (the table scrolls sideways)."""
        before = self._wanted_columns()
        self.full_models = not self.full_models
        if self._wanted_columns() == before:
            # Nothing the user would see changes: say why rather than keep quiet.
            self.full_models = not self.full_models
            if "models" not in before[0]:
                say(self, "The models column is left out at this width: widen the terminal.")
            else:
                say(self, "Every model id is whole already.")
            return
        self._fit_columns()

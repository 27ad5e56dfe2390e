"""The Run-detail screen: the probe's analysis of one run, and its report on request.

Headline figures with their intervals, each table of the analysis, the figures the report
writes and the probe's notes (drawn by :mod:`.sections`); ``w`` asks for a directory
(:mod:`.report_dir`) and writes the report (Markdown, JSON, figures) there.
The analysis runs in a worker thread with its own Workspace: a large run takes a while to score.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, VerticalScroll
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import (
    ContentSwitcher,
    Header,
    LoadingIndicator,
    OptionList,
    Static,
)
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from diptych.core.audit.run_status import outcome_words
from diptych.core.errors import DiptychError
from diptych.core.probe import ProbeResult
from diptych.tui.formatting import timestamp
from diptych.tui.jobs import JobHost, job_host
from diptych.tui.messages import AnalysisReady, JobsChanged, ReportWritten
from diptych.tui.progress import run_progress
from diptych.tui.screens.runs.report_dir import ReportDirScreen
from diptych.tui.screens.runs.sections import (
    NARROW,
    figures_widget,
    floor_line,
    notes_text,
    numbers_rows,
    numbers_widget,
    table_widget,
)
from diptych.tui.widgets.fit_table import FitTable
from diptych.tui.widgets.footer import KeysFooter
from diptych.tui.widgets.retrieved_images import RetrievedImages, retrieved_queries
from diptych.tui.widgets.said import say
from diptych.tui.widgets.tables import FilterBar, ListTable, TitlesList
from diptych.tui.widgets.whole_numbers import WholeNumbers
from diptych.tui.workers import analyze_run, write_run_report

# The sections and the report dialog live beside this module; their names are read from here too.
__all__ = [
    "floor_line",
    "ReportDirScreen",
    "RunDetailScreen",
    "notes_text",
    "numbers_rows",
    "numbers_widget",
    "table_widget",
]

#: Lines of section titles above the chosen section, at most (a title may take two).
SECTION_LINES = 4

#: What a reading of a run is compared on: its status and its trials' counts by status.
Reading = tuple[str, dict[str, int]]


def read_again_words(before: Reading, after: Reading) -> str:
    """What F5 found, in one line: the trials stored since the last reading, the run's new
    status, or that nothing has changed."""
    stored = [sum(n for k, n in counts.items() if k != "pending") for _, counts in (before, after)]
    new = stored[1] - stored[0]
    if new > 0:
        return f"read again: {new:,} new {'trial' if new == 1 else 'trials'}"
    if before == after:
        return "read again: nothing has changed"
    return f"read again: the run is {after[0]} now"


class RunDetailScreen(Screen[None]):
    """One run: its status and counts, and its probe's analysis."""

    CSS_PATH = "detail.tcss"
    HELP_PURPOSE = (
        "Read one run's results: its headline figures with their 95% intervals, each table of its "
        "analysis, its figures and notes, section by section; w writes its report."
    )
    # The sections stand beside the chosen one only where a table keeps the room it needs.
    HORIZONTAL_BREAKPOINTS = [
        (0, "-narrow"),
        (70, "-wide"),
        (100, "-sections-beside"),
    ]
    #: Left to Help first where the footer has no room for every key (widgets/footer.py).
    FOOTER_SPARE: ClassVar[tuple[str, ...]] = ("reload", "toggle_sidebar")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("w", "write_report", "Write report"),
        Binding("r", "review", "Review"),
        Binding("s", "toggle_sidebar", "Sections", tooltip="show or hide the list of sections"),
        Binding("slash", "filter", "Filter", show=False),
        # Off the footer: at 60 columns it cut "Sections" to "Sec"; Help lists it.
        Binding("f5", "reload", "Reload", show=False),
    ]

    def __init__(self, run_id: str) -> None:
        super().__init__()
        self.run_id = run_id
        self.result: ProbeResult | None = None
        #: Where the report was last written (its HTML page, the one a reader opens): said
        #: above the footer until the user moves on.
        self.report_path: Path | None = None
        #: The reading shown, and the one shown when F5 asked again (None: not asked).
        self._read: Reading | None = None
        self._asked: Reading | None = None

    @property
    def diptych(self) -> JobHost:
        return job_host(self.app)

    def compose(self) -> ComposeResult:
        yield Header()
        # Wrapped only at plain spaces: a count stays with its label (joined by no-break spaces).
        yield WholeNumbers(self.run_id, id="summary")
        with Container(id="body"):
            yield TitlesList(id="sections")
            with ContentSwitcher(id="content", initial="loading"):
                yield LoadingIndicator(id="loading")
        yield Static("", id="status")
        yield FilterBar(id="filter")
        # Compact: its keys and their names whole at 60 columns ("s Sec" was cut).
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        self.action_reload()

    # --- loading --------------------------------------------------------------------------

    def action_reload(self) -> None:
        self._asked = self._read
        self.query_one("#content", ContentSwitcher).current = "loading"
        self._analyze(self.diptych.store_path, self.run_id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="analysis")
    def _analyze(self, store_path: Path, run_id: str) -> None:
        self.post_message(analyze_run(store_path, run_id))

    @on(AnalysisReady)
    async def _analyzed(self, message: AnalysisReady) -> None:
        run, counts = message.run, message.counts
        self.run_id = run.id
        models = ", ".join(m["model_id"] for m in run.models)
        # Each label and its count joined by no-break spaces: a wrapped line parts two counts,
        # never a label from its count ("flagged" / "0").
        counted = [*outcome_words(run.status, counts).items(), ("flagged", message.flagged)]
        outcome = " · ".join(f"{label} {n:,}".replace(" ", "\u00a0") for label, n in counted)
        self.query_one("#summary", WholeNumbers).update(
            Text.assemble(
                (run.id, "bold"),
                f" · {run.probe} v{run.probe_version} · ",
                # In ``diptych show``'s words: a run stopped by a sequential audit names the look
                # it stopped at and what that saved, or what it holds now where bought on since.
                (message.status_text or run.status, "bold"),
                f"\n{models} · created {timestamp(run.created_at)}\n{outcome}",
                (f"\n{message.builds_note}" if message.builds_note else "", "yellow"),
            )
        )
        self.result = message.result
        self._observation = message.observation
        await self._show_sections(message.result, message.flagged, message.error)
        asked, self._asked = self._asked, None
        self._read = (run.status, dict(counts))
        if asked is not None:
            # Said, as Standings' F5 does: a page redrawn the same reads as a key not heard.
            self.notify(read_again_words(asked, self._read), timeout=3)

    async def _show_sections(
        self, result: ProbeResult | None, flagged: int, error: str | None
    ) -> None:
        content = self.query_one("#content", ContentSwitcher)
        sections = self.query_one("#sections", OptionList)
        await content.query_children().exclude("#loading").remove()
        sections.clear_options()
        if result is None:
            await content.mount(Static(Text(str(error), style="red"), id="section-error"))
            sections.add_option(Option("Error", id="section-error"))
            self._select("section-error")
            return
        self._narrow = self._is_narrow()
        headline = numbers_widget(result, self._narrow, self._observation)
        widgets: list[tuple[str, Widget]] = [("Headline figures", headline)]
        for i, table in enumerate(result.tables):
            widgets.append((table.title, table_widget(table, f"section-table-{i}")))
        widgets.append((f"Figures ({len(result.figures)})", figures_widget(result)))
        if retrieved_queries(result):
            retrieved = RetrievedImages(result, self.diptych.store_path, id="section-retrieved")
            widgets.append(("Retrieved images", retrieved))
        widgets.append(
            (
                "Flags and notes",
                VerticalScroll(Static(notes_text(result, flagged)), id="section-notes"),
            )
        )
        for title, widget in widgets:
            # Hidden until chosen: the switcher only hides children it had when it switched.
            widget.display = False
            await content.mount(widget)
            sections.add_option(Option(title, id=widget.id))
        self._select("section-headline")
        self.call_after_refresh(self._fit_sections)

    def _fit_sections(self) -> None:
        """End the list of sections above the chosen one at a whole title: a title wrapped
        over two lines whose second lay under the list's edge read as cut ("(cf. PST Tables
        14" at 60 columns). Beside the section (100 columns and more) the list has the height."""
        sections = self.query_one("#sections", OptionList)
        if self.has_class("-sections-beside"):
            sections.styles.max_height = None
            return
        room = SECTION_LINES
        lines = [index for index, _ in getattr(sections, "_lines", [])]
        shown = 0
        for index in dict.fromkeys(lines):
            height = lines.count(index)
            if shown + height > room:
                break
            shown += height
        # The border under the list takes a line of its own.
        sections.styles.max_height = (shown or room) + 1

    def _select(self, section: str) -> None:
        sections = self.query_one("#sections", OptionList)
        sections.highlighted = sections.get_option_index(section)
        self.query_one("#content", ContentSwitcher).current = section
        sections.focus()

    @on(OptionList.OptionHighlighted, "#sections")
    def _section_chosen(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None:
            self.query_one("#content", ContentSwitcher).current = event.option.id

    @on(OptionList.OptionSelected, "#sections")
    def _section_entered(self, event: OptionList.OptionSelected) -> None:
        # enter on a section moves into it (to scroll a long table with the keys).
        if event.option.id is not None:
            section = self.query_one(f"#{event.option.id}")
            # The headline figures' section holds its table and a note: the table it is.
            inner = [w for w in section.query("*") if w.focusable]
            (section if section.focusable or not inner else inner[0]).focus()

    async def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # A probe's own bug in its analysis (or a report that cannot be written) is shown
        # where the result would have been, not left as a spinner.
        if event.state != WorkerState.ERROR:
            return
        error = event.worker.error
        text = f"{type(error).__name__}: {error}"
        if event.worker.group == "analysis":
            await self._show_sections(None, 0, f"the analysis failed: {text}")
        elif event.worker.group == "report":
            self.post_message(ReportWritten(None, text))

    @on(JobsChanged)
    def _jobs_changed(self) -> None:
        job = self.diptych.job_for_run(self.run_id)
        status = self.query_one("#status", Static)
        if job is not None:
            # The figure of the Runs table and the jobs bar; the header's counts are those
            # of the analysis shown (f5 analyses again).
            progress = run_progress(None, 0, job)
            status.update(f"running: {progress.text()} trials (f5 reloads)")

    def action_toggle_sidebar(self) -> None:
        self.toggle_class("-no-sidebar")

    def action_filter(self) -> None:
        self.query_one(FilterBar).open()

    @on(FilterBar.Filtered)
    def _filtered(self, message: FilterBar.Filtered) -> None:
        for table in self.query(ListTable):
            table.filter_rows(message.text)

    # --- actions --------------------------------------------------------------------------

    def action_back(self) -> None:
        self.dismiss(None)

    def action_write_report(self) -> None:
        default = Path(f"diptych-report-{self.run_id}")
        self.app.push_screen(ReportDirScreen(default), self._write)

    def _write(self, out_dir: Path | None) -> None:
        if out_dir is None:
            return
        say(self, f"writing the report to {out_dir}…", stays=True)
        self._write_report(self.diptych.store_path, self.run_id, out_dir)

    @work(thread=True, exclusive=True, exit_on_error=False, group="report")
    def _write_report(self, store_path: Path, run_id: str, out_dir: Path) -> None:
        try:
            written = write_run_report(store_path, run_id, out_dir)
        except (DiptychError, OSError) as error:
            self.post_message(ReportWritten(None, str(error)))
            return
        self.post_message(written)

    @on(ReportWritten)
    def _written(self, message: ReportWritten) -> None:
        if message.path is None:
            say(self, f"the report was not written: {message.error}", severity="error", stays=True)
            return
        # Said on the line above the footer, not in a toast: a toast covered the figures and
        # cut the path. It stays until the user moves on (the next key, or the next thing
        # said): a user opens the folder elsewhere and comes back to copy the path; gone after
        # a reading time, it was not there any more. The line wraps the path after a "/".
        self.report_path = message.path
        said = [f"report written to {message.path}"]
        said += [line[:1].upper() + line[1:] + "." for line in message.stale]
        severity: SeverityLevel = "warning" if message.stale else "information"
        say(self, "\n".join(said), severity=severity, stays=True)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_sections)
        if self.result is not None and self._is_narrow() != self._narrow:
            # A gate's interval named in fewer words under 80 columns, at length above.
            self._narrow = self._is_narrow()
            for table in self.query("#section-numbers").results(FitTable):
                table.set_rows(numbers_rows(self.result, self._narrow, self._observation))

    #: Whether the headline names a gate's interval in fewer words (numbers_rows).
    _narrow = False
    #: What the run's probe observes: what the headline's n counts (numbers_rows).
    _observation = "observation"

    def _is_narrow(self) -> bool:
        return (self.size.width or self.app.size.width) < NARROW

    def action_review(self) -> None:
        try:
            # Imported here: the Review screen is written separately and may be absent.
            from diptych.tui.review.screen import ReviewScreen
            from diptych.tui.review.view import open_review
        except ImportError as error:
            self.notify(f"the Review screen is not available ({error})", severity="error")
            return
        open_review(self.app, ReviewScreen(self.diptych.store_path, self.run_id))

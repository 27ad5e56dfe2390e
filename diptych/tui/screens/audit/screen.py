"""The Audit screen: open an audit file, see its parts and their progress, run it, get its report.

The plan and the run are headless Workspace calls in thread workers (each opens its own
Workspace; the run's in :mod:`.buying`, started by the keys of :mod:`.keys`); results come
back as messages, so no widget is touched from a thread.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Header, Input, Label, LoadingIndicator, OptionList
from textual.widgets.option_list import Option

from diptych.agent.audit_search import plan_placebos
from diptych.audit import AuditPlan, plan_audit
from diptych.audit.status_words import audit_words
from diptych.core.audit.record import AuditRecord
from diptych.core.errors import DiptychError
from diptych.core.report.formatting import dollars, plan_counts
from diptych.core.report.gates import GateLine
from diptych.core.workspace import Workspace
from diptych.tui.jobs import JobControl
from diptych.tui.screens.audit.buying import REFRESH_EVERY
from diptych.tui.screens.audit.keys import AuditKeys, Source, page_words, report_page
from diptych.tui.screens.audit.messages import (
    AuditFailed,
    AuditFinished,
    AuditGates,
    AuditPartChanged,
    AuditPlanned,
    AuditReplanned,
    AuditsRecorded,
)
from diptych.tui.screens.audit.path_field import PathField
from diptych.tui.screens.audit.rows import (
    RecordedFound,
    gate_table,
    moved_line,
    part_rows,
    recorded_found,
    recorded_lines,
    recorded_words,
    runs_said,
    shown_path,
)
from diptych.tui.screens.audit.verdicts import GateVerdicts
from diptych.tui.screens.audit.watch import AuditStoreRead, StoreMark, read_mark, store_mark
from diptych.tui.widgets.fit_table import FitTable
from diptych.tui.widgets.footer import KeysFooter
from diptych.tui.widgets.whole_numbers import WholeNumbers

#: Each count with its unit, in the table and a part's card alike: trials planned and stored,
#: and the requests a run of the file would ask (for a part its gates decided, those its stop
#: saved, as its status says), which are not the trials left (a request may ask several).
COLUMNS = ("part", "kind", "probe", "trials", "trials stored", "requests to run", "cost", "status")
#: The gates table, verdict first: what a release decision reads; its intervals named by how
#: they were made, as ``diptych audit gate`` names them (:func:`.rows.gate_headers`).
GATE_COLUMNS = ("verdict", "gate", "figure", "value", "interval", "level", "rule")


#: The audit-level line of an audit whose last run was stopped (Ctrl-C, a quit, a fault):
#: ``diptych audit list``'s word, and the key that goes on, asking only what is not stored.
INTERRUPTED = "interrupted: ^r runs it on from where it stopped"


class AuditScreen(AuditKeys):
    """One audit file: its parts with trials, stored results and cost, each part's status
    while it runs, and the report when it is written."""

    CSS_PATH = "audit.tcss"
    # Under 24 rows the gates' table scrolls in fewer rows, under their heading.
    VERTICAL_BREAKPOINTS = [(0, "-short"), (24, "-tall")]
    HELP_PURPOSE = (
        "Run an audit file, or open one the workspace recorded, and read its verdict: its parts "
        "with their trials, cost and status, and its gates' verdicts with the value, interval and "
        "rule each rests on; Down and End (End from the file's field too) scroll to every part. "
        "^r runs it, ^g buys it until its gates are decided, ^o opens its report."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        # Short names, the footer compact: every key whole at 60 columns, ^g among them.
        Binding("ctrl+r", "run", "Run", tooltip="run the audit file whole"),
        Binding(
            "ctrl+g",
            "run_until_decided",
            "Until decided",
            tooltip="buy only the parts the gates read, in batches, and stop once every gate "
            "is decided",
        ),
        Binding("ctrl+o", "report", "Report"),
    ]
    #: At 60 columns, with the file's field taking the letters (Help and Quit shown as f1 and
    #: ^q), the footer has no room for every key: Back goes first (escape goes back on every
    #: screen, and Help lists it), the audit's own keys stay.
    FOOTER_SPARE: ClassVar[tuple[str, ...]] = ("back",)

    def __init__(self, store_path: Path | None = None, file: Path | None = None) -> None:
        super().__init__()
        self._store_path = store_path
        self._file: Source | None = file
        self.plan: AuditPlan | None = None
        self.status: dict[str, str] = {}
        self.report: Path | None = None
        self.gates: list[GateLine] = []
        self.gates_note = ""
        #: Each look's gates, in order, while the audit is bought until decided (ctrl+g).
        self.looks: list[list[GateLine]] = []
        #: The requests the plan had left to run when the last run began.
        self._asked = 0
        #: The stop of the audit this screen runs (None: none run yet).
        self._control: JobControl | None = None
        #: The run whose end the screen has said (its worker about to return).
        self._ended: JobControl | None = None
        #: The audit's record and runs as last read (:mod:`.watch`), and whether they were.
        self._mark: StoreMark | None = None
        self._marked = False
        self._opened_as = str(file or "")
        self._reading: str | None = None
        self._left = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Label("Audit file", classes="heading")
        yield PathField(
            value=str(self._file or ""),
            placeholder="path/to/audit.yaml, Enter (empty: audits here)",
            id="file",
            # Focused again with a path in it, the cursor at its end: a key typed mends the
            # path, never replaces it whole.
            select_on_focus=False,
        )
        # The gates and the parts scroll together, whole, in the room the summary leaves them
        # (the body takes the keys: Down, Page Down, End reach the last part's status at any
        # size); the summary (why an audit bought until decided stopped, where its report is)
        # is read whole at any size, never pushed under the footer.
        # Shown while an audit file is read and planned (seconds for a large one).
        yield LoadingIndicator(id="reading")
        with VerticalScroll(id="body"):
            # The audits this workspace recorded, to open one without typing its path.
            yield OptionList(id="recorded")
            # Each gate's verdict, value, interval and rule first, on a few lines: in view as
            # the audit opens, with the heading under them, at 60x20 too (the table's header
            # and wrapped figure names took the rows and pushed them under the summary).
            yield GateVerdicts(id="verdicts")
            # The gates' heading (the audit's id, how many pass, why it stopped early) wraps on
            # lines of its own: as the table's title it was cut at the frame's end.
            yield WholeNumbers("", id="gates-note")
            # Fitted too: a part's status and cost are never scrolled off to the right.
            yield FitTable(COLUMNS, id="parts", zebra_stripes=True)
            # The gates again with the part and figure each reads, after the parts: fitted to
            # the width, the figure's name wraps, the value, interval and rule whole.
            yield FitTable(GATE_COLUMNS, id="gates", zebra_stripes=True)
        yield WholeNumbers("", id="summary")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        gates = self.query_one("#gates", FitTable)
        gates.display = False  # shown only for an audit that states gates
        for table in self.query(FitTable):
            # Drawn whole, they scroll with the body, which has the keys: a table with the
            # focus would move a cursor the body does not follow.
            table.can_focus = False
        self.query_one("#gates-note").display = False
        self.query_one("#reading").display = False
        self.query_one("#verdicts").display = False
        recorded = self.query_one("#recorded", OptionList)
        recorded.display = False
        recorded.border_title = "audits recorded here (enter opens one)"
        if self._file is not None:
            self._load(self._file)
        else:
            self.query_one("#file", Input).focus()
        # Work another process does on the open audit (a resume, a run in another shell) is
        # read as it lands, not only when the app starts again.
        self.set_interval(REFRESH_EVERY, self._watch)

    @on(events.ScreenResume)
    def _shown(self) -> None:
        # Each time the screen is shown (it is installed once, and shown again on A) with no
        # audit open, the audits recorded by then, the newest one under the focus for Enter;
        # with one open, that audit read again where the store moved meanwhile (a dialog
        # closed over it leaves what it said in place).
        if self._left:
            self._returned()
        if self._file is None and not self.query_one("#file", Input).value.strip():
            self._list_recorded()
        else:
            self._watch()

    def _returned(self) -> None:
        """Shown again by ``A`` after escape: the field holds the path of the audit shown (or
        being read), or nothing where none is, never a path typed and not opened; and it has
        the focus, so that what is typed next is a path, never a key of the screen's."""
        self._left = False
        field = self.query_one("#file", Input)
        field.value = self._opened_as if self._file is not None else ""
        field.cursor_position = len(field.value)
        field.focus()

    @on(Input.Submitted, "#file")
    def _submitted(self, event: Input.Submitted) -> None:
        if not event.value.strip():
            recorded = self.query_one("#recorded", OptionList)
            if recorded.display and recorded.highlighted is not None:
                recorded.action_select()  # Enter opens the row shown, from the field too
                return
            self._list_recorded()
            return
        self._open(Path(event.value.strip()))

    def _open(self, file: Source) -> None:
        if self._buying():  # the audit running keeps the screen: its rows and gates are its own
            return
        self._file = file
        self._opened_as = self.query_one("#file", Input).value.strip()
        recorded = self.query_one("#recorded", OptionList)
        if recorded.has_focus:  # the body takes it once the plan is shown
            self.query_one("#file", Input).focus()
        recorded.display = False
        self._load(file)

    @on(OptionList.OptionSelected, "#recorded")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self._find_recorded(str(event.option.id or ""))

    @on(RecordedFound)
    def _recorded_found(self, message: RecordedFound) -> None:
        field = self.query_one("#file", Input)
        field.value = shown_path(message.file or message.audit.file_path)
        field.cursor_position = len(field.value)
        # A file gone or moved: the audit as it ran, from the text the workspace recorded.
        self._open(message.file or message.audit)

    # --- workers ------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="audit-list")
    def _list_recorded(self) -> None:
        try:
            with Workspace.open(self.store_path) as ws:
                # Each in its parts' runs' status now, as ``diptych audit list`` says it.
                worded = [audit_words(ws, a) for a in ws.audits.list()]
                audits = [replace(w.audit, status=w.status) for w in worded]
        except DiptychError as error:
            self.app.call_from_thread(self.post_message, AuditFailed(str(error)))
            return
        listed = recorded_lines(audits)
        self.app.call_from_thread(self.post_message, AuditsRecorded(listed))

    @work(thread=True, exclusive=True, exit_on_error=False, group="audit-list")
    def _find_recorded(self, audit_id: str) -> None:
        try:
            with Workspace.open(self.store_path) as ws:
                found = recorded_found(ws, audit_id)  # by its id: never its file's newest
        except DiptychError as error:
            self.app.call_from_thread(self.post_message, AuditFailed(str(error)))
            return
        self.app.call_from_thread(self.post_message, found)

    def _watch(self) -> None:
        """Read whether the open audit moved in the store (not while this screen runs it: its
        own run reads the store as it goes)."""
        if self.plan is None or not self.is_current or self._runs_it():
            return
        self._read_mark(self.plan.id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="audit-watch")
    def _read_mark(self, audit_id: str) -> None:
        read = read_mark(self.store_path, audit_id)
        if read is not None:
            self.post_message(read)

    @on(AuditStoreRead)
    def _store_read(self, message: AuditStoreRead) -> None:
        if self._file is None or self.plan is None or message.audit_id != self.plan.id:
            return  # another audit opened since
        if self._runs_it():
            return
        if not self._marked:  # after this screen's own run: what it left is what is shown
            self._mark, self._marked = message.mark, True
            return
        if message.mark != self._mark:
            self._mark = message.mark
            self._load(self._file, again=self.plan.id)

    def _load(self, file: Source, again: str = "") -> None:
        """Plan ``file`` in a worker (``again``: the id of the audit shown, read again as the
        store moved). A file opened says so at once: reading, planning and checking a large
        audit against the store takes seconds, and a screen unchanged meanwhile reads as
        Enter not taken."""
        if not again:
            where = file.file_path if isinstance(file, AuditRecord) else file
            self._reading = shown_path(where)
            self._say(f"Reading {self._reading}…")
            self.query_one("#reading").display = True
            self._clear()
        self._plan(file, again)

    def _clear(self) -> None:
        """Take the audit shown off the screen as another is read: its gates left in view read
        as the new file's, and a file that fails to open leaves none behind."""
        self.plan, self.report, self.status = None, None, {}
        self.gates, self.gates_note, self.looks = [], "", []
        for shown in ("#gates", "#verdicts", "#gates-note"):
            self.query_one(shown).display = False
        self._fill()

    @work(thread=True, exclusive=True, exit_on_error=False, group="audit-plan")
    def _plan(self, file: Source, again: str = "") -> None:
        """Plan ``file`` and read its record as the store holds it."""
        try:
            with Workspace.open(self.store_path) as ws:
                # Read first where the audit is known: what moves after it is read next time.
                mark = store_mark(ws, again) if again else None
                plan = plan_placebos(ws, plan_audit(ws, file))
                mark = mark if again else store_mark(ws, plan.id)
                recorded = {a.id: a for a in ws.audits.list()}.get(plan.id)
                # The parts as ``diptych audit list`` lists them: a run bought on past the look
                # that stopped it is in its own status ("interrupted"), not at that look.
                worded = audit_words(ws, recorded) if recorded else None
                now = worded.audit if worded else None
                said = runs_said(ws, recorded.parts) if recorded else {}
                told = worded.status if worded else ""
                try:
                    written = ws.audits.report_path(recorded) if recorded else None
                except DiptychError:
                    written = None  # the gates' line below says where the report went missing
        except DiptychError as error:
            self.app.call_from_thread(self.post_message, AuditFailed(str(error)))
            return
        # A report written by `diptych audit run` (to its recorded path) is opened from here.
        report = written if written is not None and written.is_file() else None
        if now is not None and now.status == "interrupted" and told == now.status:
            # Stopped, its parts' rows say where; the line says so and what goes on from there.
            told = INTERRUPTED
        told = told if now is not None and told != now.status else ""
        parts = recorded.parts if recorded else []
        rows = recorded_words(plan, parts, now.parts if now else None, said)
        # "reused (session …)", and a part no run recorded "waiting" while the audit runs (its
        # turn not come yet) or "not run": the words of ``diptych audit list``, from its function.
        rows.update(worded.unrecorded if worded else {})
        rows.update(worded.kept if worded else {})
        planned = AuditPlanned(plan, report, told, mark=mark, again=bool(again), status=rows)
        self.app.call_from_thread(self.post_message, planned)
        self.gates_for(file, plan, recorded is not None and bool(recorded.report))

    # --- messages -----------------------------------------------------------------------------

    @on(AuditPlanned)
    def _planned(self, message: AuditPlanned) -> None:
        self.plan = message.plan
        self.report = message.report
        self.status = dict(message.status)
        self.query_one("#reading").display = False
        self._reading = None
        self._mark, self._marked = message.mark, True
        self._fill()
        if not message.again and self.query_one("#file", Input).has_focus:
            # Down and Page Down then scroll the gates and the parts.
            self.query_one("#body", VerticalScroll).focus()
        p = message.plan
        budget = p.audit.budget.max_cost
        moved = f"{moved_line(self._file)} · " if isinstance(self._file, AuditRecord) else ""
        # An incomplete audit says so first, as `diptych audit list` does: its failed trials
        # and what asks them again (its parts' rows say only "incomplete").
        told = f"audit {message.said}\n" if message.said else ""
        self._say(
            f"{told}{moved}{p.audit.name}: {plan_counts(p.planned, p.cached, p.to_run)}, "
            f"estimated cost {dollars(p.cost)}"
            # Ctrl+R is in the footer: a third line here would push the gates off a small screen.
            + (f" of {dollars(budget)}" if budget is not None else "")
        )

    @on(AuditsRecorded)
    def _recorded_listed(self, message: AuditsRecorded) -> None:
        if self.query_one("#file", Input).value.strip():
            return  # a path typed meanwhile: the user chose already
        recorded = self.query_one("#recorded", OptionList)
        recorded.clear_options()
        if not message.audits:
            self._say("no audit recorded here yet: type an audit file's path, then Enter")
            return
        recorded.add_options([Option(line, id=path) for line, path in message.audits])
        recorded.display = True
        recorded.highlighted = 0
        recorded.focus()
        self._say(f"{len(message.audits):,} recorded here: Enter opens one, or type a path above")

    @on(AuditReplanned)
    def _replanned(self, message: AuditReplanned) -> None:
        self.plan = message.plan
        self._fill()

    @on(AuditPartChanged)
    def _part_changed(self, message: AuditPartChanged) -> None:
        self.status[message.name] = message.status
        self._fill()

    @on(AuditFinished)
    def _finished(self, message: AuditFinished) -> None:
        self._ended = self._control
        self.report = message.report
        # The page ^o opens, named as ^o names it: the run's report.json beside it is data.
        report = message.report
        where = f" · report {page_words(report_page(report))} (^o)" if report else ""
        # A run that had nothing to ask ends as the last one did: it says so, not the same line.
        again = " · every trial was stored already: report written again" if not self._asked else ""
        cost = f"{' · ' if ':' in message.status else ': '}cost {dollars(message.spent)}"
        self._say(f"audit {message.status}{cost}{message.stopped}{again}{where}")

    @on(AuditFailed)
    def _failed(self, message: AuditFailed) -> None:
        # One line, and the path's field keeps the focus, its whole text and the cursor at its
        # end: what is typed next mends the path.
        first, *more = message.error.splitlines() or [""]
        also = f" (+{len(more):,} more problems)" if more else ""
        self.query_one("#reading").display = False
        if self._reading is not None:
            # The file did not open: none is, and the field keeps its text to be mended.
            self._reading, self._file = None, None
        self._say(f"error: {first}{also}")
        field = self.query_one("#file", Input)
        field.focus()
        field.cursor_position = len(field.value)

    @on(AuditGates)
    def _gates_shown(self, message: AuditGates) -> None:
        self.gates = message.lines
        self.gates_note = message.note
        if message.note.startswith("look "):
            self.looks.append(message.lines)
        table = self.query_one("#gates", FitTable)
        table.headers, rows = gate_table(GATE_COLUMNS, message.lines, message.rows, message.look)
        table.display = True
        table.set_rows(rows)
        table.border_title = "gates"
        verdicts = self.query_one("#verdicts", GateVerdicts)
        verdicts.display = True
        verdicts.show(message.lines, message.rows, message.look)
        note = self.query_one("#gates-note", WholeNumbers)
        note.display = True
        note.update(message.note)

    # --- drawing ------------------------------------------------------------------------------

    def _fill(self) -> None:
        self.query_one("#parts", FitTable).set_rows(part_rows(self.plan, self.status))

"""The Audit screen's keys and the run they start: ^r runs the audit (asking first where its
gates decided a part on part of its design), ^g buys it until its gates are decided, ^o opens
its report; the run is a thread worker the app stops on quit, its trials so far kept.

:class:`AuditKeys` is the base of :class:`~diptych.tui.screens.audit.screen.AuditScreen`: the
screen opens and draws the audit; this acts on what it opened.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual import on, work
from textual.screen import Screen
from textual.widgets import Input

from diptych.audit import AuditPlan
from diptych.core.audit.record import AuditRecord
from diptych.core.errors import DiptychError
from diptych.core.report.gates import GateLine
from diptych.tui.jobs import JobControl, JobHost
from diptych.tui.screens.audit.buying import buy
from diptych.tui.screens.audit.decided import gates_of
from diptych.tui.screens.audit.messages import AuditFailed
from diptych.tui.screens.audit.rest import AuditRestAsked, decided_rests
from diptych.tui.widgets.whole_numbers import WholeNumbers

#: An audit file, or a recorded audit opened from the text it recorded (its file moved).
Source = Path | AuditRecord


#: The report's pages a person reads, the first written opened by ^o; report.json is data.
PAGES = ("report.html", "report.md")
#: What ^r, ^g and ^o say with no audit open: a recorded audit opens from the list as well as
#: a file by its path, whichever key was pressed.
OPEN_FIRST = "open an audit first (type its path, or choose one recorded here)"


def report_page(report: Path) -> Path:
    """The file ^o opens for an audit whose run wrote ``report`` (its ``report.json``): the HTML
    page beside it, else the Markdown one where the audit's ``report.formats`` wrote no HTML,
    else the JSON itself; as an absolute path."""
    data = report.resolve()
    return next((p for p in (data.with_name(n) for n in PAGES) if p.is_file()), data)


def page_words(page: Path) -> str:
    """``page`` as a line names it: from the directory diptych was started in, marked so
    (``./audit-x/report.html``), where it is under it; else whole. A temporary or home path
    said whole took two more lines of a 60-column screen."""
    try:
        return f"./{page.relative_to(Path.cwd())}"
    except ValueError:
        return str(page)


class AuditKeys(Screen[None]):
    """What the Audit screen's keys do to the audit it shows (the subclass opens and draws it)."""

    _store_path: Path | None
    _file: Source | None
    plan: AuditPlan | None
    report: Path | None
    #: Each look's gates, in order, while the audit is bought until decided (ctrl+g).
    looks: list[list[GateLine]]
    #: The requests the plan had left to run when the last run began.
    _asked: int
    #: The stop of the audit this screen runs (None: none run yet).
    _control: JobControl | None
    #: The run whose end the screen has said (its worker about to return).
    _ended: JobControl | None
    #: Whether the audit's record and runs were read since this screen's own run (:mod:`.watch`).
    _marked: bool
    #: The field's text when the audit shown was opened: the keys act on it while it reads so.
    _opened_as: str
    #: The file being read and planned, as the screen names it (None: none).
    _reading: str | None
    #: Whether the screen was left (escape), so that its next showing is a return by ``A``.
    _left: bool

    @property
    def store_path(self) -> Path:
        return self._store_path or Path(getattr(self.app, "store_path", ".diptych"))

    def gates_for(self, file: Source, plan: AuditPlan, recorded: bool) -> None:
        """Decide the audit's gates (in the calling worker) where it has run to a report."""
        gates = gates_of(self.store_path, file, plan, recorded)
        if gates is not None:
            self.app.call_from_thread(self.post_message, gates)

    def action_back(self) -> None:
        self._left = True
        self.app.pop_screen()

    def _not_open(self) -> str:
        """Why ^r, ^g and ^o have no audit to act on ("": they have the one shown). They act on
        the audit whose path the field shows: one typed over it and not yet opened is named,
        rather than the audit under it run in its stead."""
        if self._reading is not None:
            return f"reading {self._reading}… the keys act on it once it is shown"
        typed = self.query_one("#file", Input).value.strip()
        if typed and typed != self._opened_as:
            return f"press Enter to open {typed} first"
        if self._file is None or self.plan is None or not typed:
            return OPEN_FIRST
        return ""

    def action_run(self) -> None:
        if said := self._not_open():
            self._say(said)
            return
        assert self.plan is not None
        if self._buying():
            return
        # A decided part's rest is bought on purpose only: asked first, as u asks of its run.
        self._ask_rest(self.plan)

    @work(thread=True, exclusive=True, exit_on_error=False, group="audit-rest")
    def _ask_rest(self, plan: AuditPlan) -> None:
        try:
            asked = decided_rests(self.store_path, plan)
        except DiptychError as error:
            self.post_message(AuditFailed(str(error)))
            return
        self.post_message(asked)

    @on(AuditRestAsked)
    def _rest_asked(self, message: AuditRestAsked) -> None:
        from diptych.tui.screens.runs.confirm import ConfirmResume

        def answered(buy: bool | None) -> None:
            if not buy:
                left = f"; {message.left}" if message.left else ""
                self._say(f"nothing bought: the decided parts are left as they are{left}")
            elif self._file is not None and self.plan is not None and not self._buying():
                self._say(f"running {self.plan.audit.name} …")
                self._asked = self.plan.to_run
                self._start(self._file)

        if message.held:
            self._say(message.held)
        elif not message.questions:
            answered(True)
        else:
            self.app.push_screen(ConfirmResume(" ".join(message.questions)), answered)

    def action_run_until_decided(self) -> None:
        """Buy the gated parts batch by batch until every gate is decided."""
        if said := self._not_open():
            self._say(said)
            return
        assert self._file is not None and self.plan is not None
        gates = self.plan.audit.gates
        if gates is None or not gates.checks:
            self._say("this audit states no gates: run it whole (^r)")
            return
        if self._buying():
            return
        # The parts no gate reads are left out of this run: said at once, with why, as
        # ``diptych audit run --until-decided`` says it.
        read = {g.part for g in gates.checks}
        left = [p.part.name for p in self.plan.parts if p.part.name not in read]
        why = ""
        if left:
            verb, them = ("is", "it") if len(left) == 1 else ("are", "them")
            why = f" · {', '.join(left)} {verb} not run: no gate reads {them} (^r runs it whole)"
        self._say(f"running {self.plan.audit.name} until its gates are decided …{why}")
        self.looks = []
        self._asked = self.plan.to_run
        self._start(self._file, until_decided=True)

    def action_report(self) -> None:
        if said := self._not_open():  # a recorded audit's report is its own
            self._say(said)
            return
        if self.report is None:
            self._say("no report yet: run the audit to the end (^r)")
            return
        # The page opened is named, not its folder: where no browser opens (over ssh), the
        # path said is the one to open by hand.
        page = report_page(self.report)
        self.app.open_url(page.as_uri())
        self._say(f"report: {page}")

    # --- the run ------------------------------------------------------------------------------

    def _runs_it(self) -> bool:
        """Whether this screen runs its audit now: not once it has said the run ended (its
        worker's last word), though the worker's thread may not have returned yet."""
        if self._control is None or self._control is self._ended:
            return False
        return not self._control.finished.is_set()

    def _buying(self) -> bool:
        """Whether this screen's audit is buying now (then said, and nothing else starts)."""
        if not self._runs_it():
            return False
        self._say("the audit is running: q stops it, its trials so far kept")
        return True

    def _start(self, file: Source, until_decided: bool = False) -> None:
        """Run the audit in a worker the app stops on quit (its trials so far are kept)."""
        self._control = JobControl()
        self._marked = False  # its own run's end is not another process's work
        if isinstance(self.app, JobHost):
            self.app.stoppable.add(self._control)
        self._execute(file, self._control, until_decided)

    @work(thread=True, exclusive=True, exit_on_error=False, group="audit-run")
    def _execute(self, file: Source, control: JobControl, until_decided: bool = False) -> None:
        control.started.set()
        try:
            buy(self, file, control, until_decided)
        except asyncio.CancelledError:
            # Stopped (quitting): the engine stored what finished and left the run
            # interrupted. Posted, never waited on: the app may be waiting for this thread.
            self.post_message(AuditFailed("stopped: its trials so far are kept (^r goes on)"))
        finally:
            control.detach()

    def _say(self, text: str) -> None:
        self.query_one("#summary", WholeNumbers).update(text)

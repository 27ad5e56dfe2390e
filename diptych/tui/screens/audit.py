"""The Audit screen: open an audit file, see its parts and their progress, run it, get its report.

The plan and the run are headless Workspace calls in thread workers (each opens its own
Workspace); results come back as messages, so no widget is touched from a thread.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Label, Static

from diptych.audits import AuditPlan, plan_audit, run_audit
from diptych.core.audit.gates import exit_code
from diptych.core.errors import DiptychError
from diptych.core.report.gates import RULES, GateLine, gate_lines, gates_heading
from diptych.core.workspace import Workspace

COLUMNS = ("part", "kind", "probe", "planned", "stored", "to run", "cost", "status")
#: The gates table, verdict first: what a release decision reads.
GATE_COLUMNS = ("verdict", "gate", "figure", "value", "interval", "level", "rule")


@dataclass
class AuditPlanned(Message):
    plan: AuditPlan


@dataclass
class AuditPartChanged(Message):
    name: str
    status: str


@dataclass
class AuditFinished(Message):
    status: str
    spent: float
    report: Path | None


@dataclass
class AuditFailed(Message):
    error: str


@dataclass
class AuditGates(Message):
    """The audit's gates: decided (``lines``), or stated but not decidable yet (``rows``:
    gate, figure and rule with why), and a line for the summary."""

    lines: list[GateLine]
    rows: list[tuple[str, str, str, str]]
    note: str


class AuditScreen(Screen[None]):
    """One audit file: its parts with trials, stored results and cost, each part's status
    while it runs, and the report when it is written."""

    CSS_PATH = "audit.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("ctrl+r", "run", "Run audit"),
        Binding("ctrl+o", "report", "Report"),
    ]

    def __init__(self, store_path: Path | None = None, file: Path | None = None) -> None:
        super().__init__()
        self._store_path = store_path
        self._file = file
        self.plan: AuditPlan | None = None
        self.status: dict[str, str] = {}
        self.report: Path | None = None
        self.gates: list[GateLine] = []
        self.gates_note = ""

    @property
    def store_path(self) -> Path:
        return self._store_path or Path(getattr(self.app, "store_path", ".diptych"))

    def compose(self) -> ComposeResult:
        yield Header()
        yield Label("Audit file", classes="heading")
        yield Input(
            value=str(self._file or ""), placeholder="path/to/audit.yaml, then Enter", id="file"
        )
        yield DataTable(id="gates", cursor_type="row", zebra_stripes=True)
        yield DataTable(id="parts", cursor_type="row", zebra_stripes=True)
        yield Static("", id="summary")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#parts", DataTable).add_columns(*COLUMNS)
        gates = self.query_one("#gates", DataTable)
        gates.add_columns(*GATE_COLUMNS)
        gates.display = False  # shown only for an audit that states gates
        if self._file is not None:
            self._load(self._file)
        else:
            self.query_one("#file", Input).focus()

    @on(Input.Submitted, "#file")
    def _submitted(self, event: Input.Submitted) -> None:
        self._file = Path(event.value.strip())
        self._load(self._file)

    # --- workers ------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="audit-plan")
    def _load(self, file: Path) -> None:
        try:
            with Workspace.open(self.store_path) as ws:
                plan = plan_audit(ws, file)
                recorded = {a.id: a for a in ws.audits.list()}.get(plan.id)
        except DiptychError as error:
            self.app.call_from_thread(self.post_message, AuditFailed(str(error)))
            return
        self.app.call_from_thread(self.post_message, AuditPlanned(plan))
        for part in recorded.parts if recorded else []:
            self.app.call_from_thread(self.post_message, AuditPartChanged(part.name, part.status))
        self._gates(file, plan, recorded is not None and bool(recorded.report))

    @work(thread=True, exclusive=True, exit_on_error=False, group="audit-run")
    def _execute(self, file: Path) -> None:
        def on_part(name: str, status: str, detail: dict[str, Any]) -> None:
            self.app.call_from_thread(self.post_message, AuditPartChanged(name, status))

        from diptych.agent.audit_search import run_search

        try:
            with Workspace.open(self.store_path) as ws:
                outcome = asyncio.run(run_audit(ws, file, on_part=on_part, searches=run_search))
        except DiptychError as error:
            self.app.call_from_thread(self.post_message, AuditFailed(str(error)))
            return
        self.app.call_from_thread(
            self.post_message, AuditFinished(outcome.status, outcome.spent, outcome.report)
        )
        if self.plan is not None:
            self._gates(file, self.plan, outcome.report is not None)

    def _gates(self, file: Path, plan: AuditPlan, recorded: bool) -> None:
        """Decide the audit's gates (in the calling worker) where it has run to a report."""
        gates = plan.audit.gates
        if gates is None or not gates.checks:
            return
        if not recorded:
            rows = [
                (g.label, f"{g.part} · {g.figure}", _rule(g), "not run yet") for g in gates.checks
            ]
            note = "gates decided when the audit has run (ctrl+r)"
            self.app.call_from_thread(self.post_message, AuditGates([], rows, note))
            return
        try:
            with Workspace.open(self.store_path) as ws:
                report = ws.audits.gates(file)
        except DiptychError as error:
            rows = [
                (g.label, f"{g.part} · {g.figure}", _rule(g), "not decided") for g in gates.checks
            ]
            self.app.call_from_thread(self.post_message, AuditGates([], rows, str(error)))
            return
        code = exit_code(report.results)
        note = f"{gates_heading(report)} audit gate would exit {code}"
        self.app.call_from_thread(self.post_message, AuditGates(gate_lines(report), [], note))

    # --- messages -----------------------------------------------------------------------------

    @on(AuditPlanned)
    def _planned(self, message: AuditPlanned) -> None:
        self.plan = message.plan
        self.status = {}
        self._fill()
        p = message.plan
        budget = p.audit.budget.max_cost
        self._say(
            f"{p.audit.name}: {p.planned} trials, {p.cached} stored, {p.to_run} to run, "
            f"${p.cost:.2f} estimated"
            + (f" of ${budget:.2f}" if budget is not None else "")
            + " · ctrl+r runs it"
        )

    @on(AuditPartChanged)
    def _part_changed(self, message: AuditPartChanged) -> None:
        self.status[message.name] = message.status
        self._fill()

    @on(AuditFinished)
    def _finished(self, message: AuditFinished) -> None:
        self.report = message.report
        where = f" · report {message.report} (ctrl+o)" if message.report else ""
        self._say(f"audit {message.status}: spent ${message.spent:.2f}{where}")

    @on(AuditFailed)
    def _failed(self, message: AuditFailed) -> None:
        self._say(f"error: {message.error}")

    @on(AuditGates)
    def _gates_shown(self, message: AuditGates) -> None:
        self.gates = message.lines
        self.gates_note = message.note
        table = self.query_one("#gates", DataTable)
        table.clear()
        for g in message.lines:
            table.add_row(g.verdict.upper(), g.label, f"{g.part} · {g.figure}", g.value,
                          g.interval, g.level, g.rule)  # fmt: skip
        for label, figure, rule, why in message.rows:
            table.add_row(why, label, figure, "—", "—", "—", rule)
        table.border_title = message.note
        table.display = True

    # --- actions ------------------------------------------------------------------------------

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_run(self) -> None:
        if self._file is None or self.plan is None:
            self._say("open an audit file first (type its path, then Enter)")
            return
        self._say(f"running {self.plan.audit.name} …")
        self._execute(self._file)

    def action_report(self) -> None:
        if self.report is None:
            self._say("no report yet: run the audit to the end (ctrl+r)")
            return
        self.app.open_url(self.report.resolve().with_name("report.html").as_uri())
        self._say(f"report: {self.report.parent}")

    # --- drawing ------------------------------------------------------------------------------

    def _fill(self) -> None:
        table = self.query_one("#parts", DataTable)
        table.clear()
        if self.plan is None:
            return
        for p in self.plan.parts:
            e = p.estimate
            cells = (
                (str(e.planned), str(e.cached), str(e.to_run), f"${e.cost:.2f}")
                if e
                else ("agent", "—", "—", "≤ budget")
            )
            status = self.status.get(p.part.name, "planned")
            table.add_row(p.part.name, p.part.kind, p.part.probe or "", *cells, status)

    def _say(self, text: str) -> None:
        self.query_one("#summary", Static).update(text)


def _rule(gate: Any) -> str:
    return f"{RULES.get(gate.rule, gate.rule)} {gate.limit_text}"

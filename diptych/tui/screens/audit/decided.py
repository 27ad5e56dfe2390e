"""What the Audit screen's workers decide of an audit, headless: its gates' verdicts where it has
run to a report, what a part's finish changes while the audit runs on, and the words of why an
audit bought until decided stopped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.message import Message

from diptych.agent.audit_search import plan_placebos
from diptych.audit import AuditPlan, plan_audit
from diptych.audit.sequential import SequentialOutcome
from diptych.core.audit.gates import exit_code
from diptych.core.audit.record import AuditRecord
from diptych.core.audit.sequential import (
    STOP_TEXT,
    PartLooks,
    bought_words,
    look_at,
    rest_note,
)
from diptych.core.cost import Cost, answered
from diptych.core.errors import DiptychError
from diptych.core.report.formatting import percent_text
from diptych.core.report.gates import gate_lines, gates_heading
from diptych.core.workspace import Workspace
from diptych.tui.screens.audit.messages import AuditGates, AuditPartChanged, AuditReplanned
from diptych.tui.screens.audit.rows import look_of, recorded_words, rule, runs_said


def gates_of(
    store_path: Path, file: Path | AuditRecord, plan: AuditPlan, recorded: bool
) -> AuditGates | None:
    """The audit's gates (thread body): decided where it has run to a report, else each
    stated with why it is not (None: the audit states no gates)."""
    gates = plan.audit.gates
    if gates is None or not gates.checks:
        return None
    if not recorded:
        rows = [(g.label, f"{g.part} · {g.figure}", rule(g), "not run yet") for g in gates.checks]
        return AuditGates([], rows, "gates decided when the audit has run (^r)")
    try:
        with Workspace.open(store_path) as ws:
            # A recorded audit's gates are its recorded text's, by its id; a file's are those of
            # the record its plan shows (not the newest of its records, which may be another).
            report = ws.audits.gates(file.id if isinstance(file, AuditRecord) else plan.id)
    except DiptychError as error:
        rows = [(g.label, f"{g.part} · {g.figure}", rule(g), "not decided") for g in gates.checks]
        return AuditGates([], rows, str(error))
    code = exit_code(report.results)
    note = f"{gates_heading(report)} audit gate would exit {code}"
    return AuditGates(gate_lines(report), [], note, look_of(report))


def part_news(store_path: Path, file: Path | AuditRecord, name: str) -> list[Message]:
    """What part ``name``'s finish changes on the screen while the audit runs on (thread body):
    the plan again, its counts as stored now (what is left to run); the part's row in the
    words its record is listed in (a part bought whole since its gates stopped it, at its last
    look, the whole design); and the gates as the store decides them now. Nothing where the
    workspace cannot say: the run's end redraws them all."""
    news: list[Message] = []
    try:
        with Workspace.open(store_path) as ws:
            plan = plan_placebos(ws, plan_audit(ws, file))
            rec = {a.id: a for a in ws.audits.list()}.get(plan.id)
            part = rec.part(name) if rec is not None else None
            if part is not None and PartLooks.of(part.detail) is not None:
                words = recorded_words(plan, [part], said=runs_said(ws, [part]))
                news.append(AuditPartChanged(name, words[name]))
    except DiptychError:
        return []
    gates = gates_of(store_path, file, plan, rec is not None and bool(rec.report))
    return [AuditReplanned(plan), *news, *([gates] if gates is not None else [])]


def stopped_words(
    sequential: SequentialOutcome | None, asked: float | None = None, said: str = ""
) -> str:
    """Why an audit bought until decided stopped, what it bought and what stopping saved, as
    the command line says it ("" for an audit run whole); with ``asked`` (what this run of it
    asked, :attr:`~diptych.audit.AuditOutcome.asked`) none, its requests are said read from the
    store, nothing bought. Where the audit's status (``said``) names the look and what
    stopping there saved already, only why it stopped is said: never the same twice."""
    if sequential is None or sequential.summary is None:
        return ""
    summary = sequential.summary
    if said.startswith("decided at look "):
        return f" · stopped: {STOP_TEXT[sequential.stop]}"
    stopped = (
        f" · stopped: {STOP_TEXT[sequential.stop]}; "
        + bought_words(summary.bought, summary.planned, asked)
        if isinstance(asked, Cost) and not answered(asked)
        else f" · stopped: {STOP_TEXT[sequential.stop]} after {summary.bought:,} of "
        f"{summary.planned:,} requests ({percent_text(summary.bought / summary.planned)})"
    )
    if summary.saved > 0:
        share = percent_text(summary.saved / summary.planned)
        stopped += f"; saved {summary.saved:,} requests ({share})"
    return stopped


def look_note(batch: int, batches: int, report: Any) -> str:
    """What one look of an audit bought until decided says while it runs: the look's result
    and, its gates not all decided, what is bought next: the next batch ("look 1 of 10:
    inconclusive; buying batch 2 of 10"), or the rest of the design where the looks' share of
    the level is spent and no look short of it can decide. Never why the audit stopped: it has
    not, and the run's end says why it did."""
    at = look_at(batch, batches, report)
    verdicts = [r.verdict for r in report.results]
    decided = sum(v != "inconclusive" for v in verdicts)
    if decided == len(verdicts):
        return f"{at}: every gate decided"
    result = "inconclusive" if not decided else f"{decided:,} of {len(verdicts):,} gates decided"
    rest, every = rest_note(report)
    if every:
        return f"{at}: {result}; {rest}"
    if batch >= batches or not at.startswith("look"):
        return f"{at}: {result}"
    buying = f"buying batch {batch + 1:,} of {batches:,}"
    return f"{at}: {result}; {buying}" + (f"; {rest}" if rest else "")

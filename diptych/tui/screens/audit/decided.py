"""What the Audit screen's workers decide of an audit, headless: its gates' verdicts where it has
run to a report, and the words of why an audit bought until decided stopped."""

from __future__ import annotations

from pathlib import Path

from diptych.audit import AuditPlan
from diptych.audit.sequential import SequentialOutcome
from diptych.core.audit.gates import exit_code
from diptych.core.audit.record import AuditRecord
from diptych.core.audit.sequential import STOP_TEXT
from diptych.core.errors import DiptychError
from diptych.core.report.formatting import percent_text
from diptych.core.report.gates import gate_lines, gates_heading
from diptych.core.workspace import Workspace
from diptych.tui.screens.audit.messages import AuditGates
from diptych.tui.screens.audit.rows import look_of, rule


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
        return AuditGates([], rows, "gates decided when the audit has run (ctrl+r)")
    try:
        with Workspace.open(store_path) as ws:
            # A recorded audit's gates are its recorded text's, by its id.
            report = ws.audits.gates(file.id if isinstance(file, AuditRecord) else file)
    except DiptychError as error:
        rows = [(g.label, f"{g.part} · {g.figure}", rule(g), "not decided") for g in gates.checks]
        return AuditGates([], rows, str(error))
    code = exit_code(report.results)
    note = f"{gates_heading(report)} audit gate would exit {code}"
    return AuditGates(gate_lines(report), [], note, look_of(report))


def stopped_words(sequential: SequentialOutcome | None) -> str:
    """Why an audit bought until decided stopped, what it bought and what stopping saved, as
    the command line says it ("" for an audit run whole)."""
    if sequential is None or sequential.summary is None:
        return ""
    summary = sequential.summary
    stopped = (
        f" · stopped: {STOP_TEXT[sequential.stop]} after {summary.bought:,} of "
        f"{summary.planned:,} requests ({percent_text(summary.bought / summary.planned)})"
    )
    if summary.saved > 0:
        share = percent_text(summary.saved / summary.planned)
        stopped += f"; saved {summary.saved:,} requests ({share})"
    return stopped

"""``diptych show AUDIT``: a recorded audit's id, as ``audit list``, ``audit run`` and the terminal
app print it, is taken by ``show`` as a run's is: the audit in the words every listing says it,
its parts with their runs, its report and its gates' verdicts as ``audit gate`` decides them
(without its exit code, which is for CI)."""

from __future__ import annotations

import typer

from diptych.audit.status_words import audit_words
from diptych.core.audit.record import AuditRecord
from diptych.core.errors import DiptychError
from diptych.core.workspace import Workspace


def recorded_audit(ws: Workspace, ref: str) -> AuditRecord | None:
    """The recorded audit ``ref`` names by its id or a unique start of it; None where none
    does (a name is not taken here: ``show`` takes ids)."""
    try:
        audit = ws.audits.get(ref)
    except DiptychError:
        return None
    return audit if audit.id.startswith(ref) else None


def print_audit(ws: Workspace, audit: AuditRecord) -> None:
    """The audit, its parts and its gates, one fact a line."""
    from diptych.cli.verdict_formats import gate_line, verdict_width

    worded = audit_words(ws, audit)
    typer.echo(f"audit {audit.id} ({audit.name})  status {worded.status}")
    typer.echo(f"file {audit.file_path}  sha256 {audit.file_hash[:12]}")
    runs = {p.name: p.run_id for p in audit.parts}
    for name, words in worded.parts.items():
        run = runs.get(name)
        typer.echo(f"part {name}: " + (f"run {run}, {words}" if run else words))
    if audit.report:
        typer.echo(f"report {audit.report}")
    try:
        report = ws.audits.gates(audit.id)
    except DiptychError as error:
        typer.echo(f"gates: {error}")
        return
    if not report.results:
        typer.echo("gates: none in its file")
        return
    if report.sequential is not None:
        typer.echo(report.sequential.sentence())
    width = verdict_width(report.results)
    look = report.sequential.at if report.sequential is not None else ""
    for r in report.results:
        typer.echo(gate_line(r, width, look))
    typer.echo(f"'diptych audit gate {audit.id}' decides them with an exit code, for CI")

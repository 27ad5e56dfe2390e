"""An audit's report as its runner writes it: the runs of its parts with the audit's scope (its
file, its --set overrides, its parts and searches, its gates), where ``--out`` or the file's
``report.out`` says."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from diptych.audit.plan import AuditPlan
from diptych.core.audit import PartRecord
from diptych.core.audit.schema import AuditFile
from diptych.core.audit.stopped import read_as
from diptych.core.report.reproduce import shown_overrides
from diptych.core.workspace import Workspace


def report_dir(audit: AuditFile) -> Path:
    """Where an audit's report is written unless ``--out`` says: the file's ``report.out``,
    else ``audit-NAME`` in the directory the audit is run from."""
    return Path(audit.report.out or f"audit-{audit.name}")


def write_report(
    ws: Workspace,
    plan: AuditPlan,
    audit_id: str,
    run_ids: list[str],
    parts: list[PartRecord],
    spent: float,
    out_dir: Path | None,
    extra: dict[str, Any] | None = None,
) -> tuple[Path, dict[str, Path]]:
    """The audit's report, written: the file ``audit gate`` and ``audit diff`` read, and every
    file written."""
    audit = plan.audit
    out = out_dir or report_dir(audit)
    later = ws.audits.bought_on(audit_id)
    scope = {
        "audit": audit.name,
        "audit_id": audit_id,
        "file_hash": plan.file_hash,
        # The file as it was named, for the report's command that runs the audit again.
        "file": ws.audits.get(audit_id).file_path,
        "overrides": shown_overrides(plan.overrides),
        "spent_usd": round(spent, 6),
        "max_cost": audit.budget.max_cost,
        # A part bought on since its gates stopped it is read as `diptych report` reads it.
        "parts": [
            {"name": p.name, "kind": p.kind, "run": p.run_id, "status": p.status}
            | {"bought_on": p.name in later}
            for p in parts
        ],
        "searches": {p.name: p.detail for p in parts if p.kind == "search"},
        # The gates as this run decides them (its --set overrides applied): the report shows
        # their verdicts beside its own.
        "gates": audit.gates.model_dump(mode="json") if audit.gates else None,
        **(extra or {}),
    }
    draft = audit.report.draft_with
    formats = list(audit.report.formats)
    # Its runs read at its own looks, however far another audit bought them since.
    with read_as(audit_id):
        files = ws.analysis.report_files(
            run_ids,
            out,
            formats=formats,
            label_policy=audit.labels.policy,
            draft_with=(audit.models[draft].plugin, audit.models[draft].plugin_params())
            if draft
            else None,
            scope=scope,
            gates=ws.audits.report_gates,
            frameworks=frameworks_files(audit.report.frameworks, scope.get("file")),
            # A search scores runs of its own, which are not the audit's parts: its findings
            # are listed by its session.
            agent_sessions=[
                str(p.detail["session"])
                for p in parts
                if p.kind == "search" and p.detail.get("session")
            ],
        )
    # The report JSON where one is written (what `audit diff` and `audit gate` read), else the
    # Markdown, else the first file written.
    main = files.get("json") or files.get("md") or next(iter(files.values()))
    return main, files


def frameworks_files(files: list[str], audit_file: object) -> list[Path]:
    """The report's framework files, a relative one read from the audit file's directory."""
    base = Path(str(audit_file)).parent if audit_file else Path.cwd()
    return [Path(f) if Path(f).is_absolute() else base / f for f in files]

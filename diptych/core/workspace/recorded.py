"""Recorded audits as the Workspace reads them: one by reference, its report JSON, and the
diff of two audits (:mod:`diptych.core.audit.diff` sets the figures side by side)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from diptych.core.audit import diff as _diff
from diptych.core.audit import record
from diptych.core.audit.overrides import apply_overrides
from diptych.core.audit.schema import AuditFile, file_hash, load_audit
from diptych.core.audit.stopped import stopped_look, stopped_name
from diptych.core.errors import InputFileError, UsageError
from diptych.core.json_input import parse_json

if TYPE_CHECKING:
    from diptych.core.store import Store
    from diptych.core.workspace.analysis import Analysis


def get(store: Store, ref: str) -> record.AuditRecord:
    found = record.get_audit(store, ref)
    if found is None:
        raise UsageError(f"no recorded audit '{ref}'; 'diptych audit list' shows them")
    return found


def newest_of_file(
    store: Store, path: Path, overrides: dict[str, Any] | None = None
) -> tuple[record.AuditRecord, AuditFile, str]:
    """An audit file's newest record here (run with or without ``--set``: each set of them is a
    record of its own), the file, and which record that is where there are several ("gating
    <id>, the newest of 3 records of this file"; "" for one).

    Raises :class:`UsageError` when the file has not run here."""
    audit, _ = load_audit(path)
    found, count = record.newest_named(store, apply_overrides(audit, overrides or {}).name)
    if found is None:
        raise UsageError(
            f"the audit '{audit.name}' has not run in this workspace; run "
            f"'diptych audit run {path}' first"
        )
    chosen = f"gating {found.id}, the newest of {count} records of this file" if count > 1 else ""
    return found, audit, chosen


def report_path(store: Store, rec: record.AuditRecord) -> Path | None:
    """Where the recorded audit's report is: the path recorded (absolute since it is made so
    when recorded), or — for a path an earlier diptych recorded as given, relative to the
    directory the audit ran in — that path from the current directory or from the
    workspace's, whichever holds it. None when the audit has no report.

    Raises :class:`UsageError` for a relative path neither directory holds, saying what to do."""
    if not rec.report:
        return None
    path = Path(rec.report)
    if path.is_absolute():
        return path
    for base in (Path.cwd(), store.path.resolve().parent):
        if (base / path).exists():
            return (base / path).resolve()
    raise UsageError(
        f"audit {rec.id} recorded its report as '{rec.report}', relative to the directory it "
        "ran in, and it is not found from here: run this from that directory, or run the "
        "audit again to record the report's full path"
    )


def audit_file(store: Store, rec: record.AuditRecord) -> Path | None:
    """The recorded audit's file from here: the path recorded (absolute since it is made so
    when the audit runs), or a path an earlier diptych recorded as given, relative to where the
    audit ran, from the current or the workspace's directory where a file there still holds
    the text that ran. None when the file is gone or moved: the audit then opens from the text
    the workspace recorded (``rec``), which a front end says."""
    path = Path(rec.file_path)
    if path.is_absolute():
        return path if path.is_file() else None
    for base in (Path.cwd(), store.path.resolve().parent):
        found = base / path
        try:
            if found.is_file() and file_hash(found.read_bytes()) == rec.file_hash:
                return found.resolve()
        except OSError:
            continue  # unreadable here: the recorded text serves
    return None


def report_json(store: Store, ref: str) -> tuple[str, dict[str, Any], record.AuditRecord | None]:
    """A report JSON (a path to ``report.json`` or its directory) or a recorded audit's."""
    path = Path(ref)
    if path.is_dir():
        path = path / "report.json"
    rec: record.AuditRecord | None = None
    if not path.is_file():
        rec = get(store, ref)
        found = report_path(store, rec)
        if found is None:
            raise UsageError(f"audit {rec.id} has no report yet; run it to the end first")
        path = found if found.suffix == ".json" else found.parent / "report.json"
    try:
        data = parse_json(path.read_text(encoding="utf-8"), f"{path}: ")
    except (OSError, json.JSONDecodeError) as exc:
        raise InputFileError(f"cannot read the report JSON {path}: {exc}") from exc
    return (rec.id if rec else str(path)), data, rec


def diff(analysis: Analysis, store: Store, a: str, b: str) -> _diff.AuditDiff:
    """Every headline figure of A and B with B − A; bootstrap intervals where both audits are
    recorded here and the probe compares runs, else the normal approximation."""
    name_a, report_a, rec_a = report_json(store, a)
    name_b, report_b, rec_b = report_json(store, b)
    fig_a, fig_b = _diff.report_figures(report_a), _diff.report_figures(report_b)
    boot: dict[tuple[str, str], tuple[float, float, float]] = {}
    stops: dict[str, str] = {}
    if rec_a is not None and rec_b is not None:
        for part_a in rec_a.parts:
            part_b = rec_b.part(part_a.name)
            if not (part_a.run_id and part_b is not None and part_b.run_id):
                continue
            boot.update(_bootstrapped(analysis, part_a.name, part_a.run_id, part_b.run_id))
            stops[part_a.name] = stopped_intervals(store, {"A": part_a.run_id, "B": part_b.run_id})
    found = _diff.diff_figures(fig_a, fig_b, name_a=name_a, name_b=name_b, bootstrapped=boot)
    # A bootstrap of both runs' answers is fixed-design: named where a run was stopped early.
    found.rows = [
        replace(r, interval_name=stops.get(r.part, "")) if r.method == "bootstrap" else r
        for r in found.rows
    ]
    return found


def stopped_intervals(store: Store, runs: dict[str, str]) -> str:
    """The name of a fixed-design interval of B − A where an audit's gates stopped a run of
    ``runs`` (by side: "A", "B") early: "fixed-design; does not hold after the stop at look 1
    of 4 of A's run"; empty where neither was."""
    said = []
    for side, run_id in runs.items():
        at = stopped_look(store, run_id)
        if at:
            said.append(f"{stopped_name(at)} of {side}'s run")
    return "; ".join(said)


def _bootstrapped(
    analysis: Analysis, part: str, run_a: str, run_b: str
) -> dict[tuple[str, str], tuple[float, float, float]]:
    """The probe's own comparison of two runs, by the figure names its analysis gives (the
    PST's ``<aspect>: STS <setting>``, with ``<model> · `` when a run has several models)."""
    try:
        result = analysis.compare(run_a, run_b, n_boot=1000, seed=0)
    except UsageError:
        return {}  # the probe does not compare runs: the normal approximation is used
    out: dict[tuple[str, str], tuple[float, float, float]] = {}
    for entry in result.data.get("comparisons", []):
        overall = getattr(entry["comparison"], "overall", None)
        if overall is None or "aspect" not in entry:
            continue  # not an STS comparison (PAIRS): the normal approximation serves
        for setting, d in overall.items():
            value = (float(d.difference), float(d.ci_low), float(d.ci_high))
            for prefix in (f"{entry['aspect']}: ", f"{entry['model_a']} · {entry['aspect']}: "):
                out[(part, f"{prefix}STS {setting}")] = value
    return out

"""The Workspace's audit steps: check an audit file, run it, list recorded audits, diff two.

:class:`~diptych.core.workspace.Workspace` delegates to these; a front end calls the
Workspace's methods (``audit_plan``, ``run_audit``, ``audits``, ``audit_diff``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from diptych.core.audit import diff as _diff
from diptych.core.audit import record
from diptych.core.audit.plan import AuditPlan, plan_audit
from diptych.core.audit.runner import AuditOutcome, PartEvent, SearchRunner, run_audit
from diptych.core.audit.schema import AuditFile, file_hash, load_audit, parse_audit
from diptych.core.engine import Reporter, RunOptions
from diptych.core.errors import InputFileError, UsageError

if TYPE_CHECKING:
    from diptych.core.store import Store
    from diptych.core.workspace.workspace import Workspace


def read(source: str | Path | AuditFile, text: str | None = None) -> tuple[AuditFile, str, str]:
    """The audit, its file's sha256 and text, from a path (or an already parsed file)."""
    if isinstance(source, AuditFile):
        dumped = text if text is not None else json.dumps(source.model_dump(), sort_keys=True)
        return source, file_hash(dumped), dumped
    audit, digest = load_audit(source)
    return audit, digest, Path(source).read_text(encoding="utf-8")


def plan(ws: Workspace, source: str | Path | AuditFile) -> AuditPlan:
    audit, digest, _ = read(source)
    return plan_audit(ws, audit, digest)


async def run(
    ws: Workspace,
    store: Store,
    source: str | Path,
    *,
    options: RunOptions | None,
    reporter: Reporter | None,
    on_part: PartEvent | None,
    searches: SearchRunner | None,
    out_dir: Path | None,
    overrides: dict[str, Any] | None = None,
) -> AuditOutcome:
    audit, digest, text = read(source)
    if overrides:
        audit = apply_overrides(audit, overrides)
    return await run_audit(
        ws,
        store,
        plan_audit(ws, audit, digest),
        path=str(source),
        text=text,
        options=options,
        reporter=reporter,
        on_part=on_part,
        searches=searches,
        out_dir=out_dir,
    )


def apply_overrides(audit: AuditFile, overrides: dict[str, Any]) -> AuditFile:
    """The audit with dotted-path values replaced (``models.dalle3.params.base_url=...``,
    ``probes.0.params.samples_paired=1``), validated again. The recorded hash stays the
    file's: an override is for pointing a file at a test service, not for changing an audit."""
    data = audit.model_dump(exclude_unset=True)
    for dotted, value in overrides.items():
        node: Any = data
        keys = dotted.split(".")
        try:
            for key in keys[:-1]:
                if isinstance(node, list):
                    node = node[_list_index(node, key)]
                elif isinstance(node, dict):
                    node = node.setdefault(key, {})
                else:
                    raise KeyError(key)
            last = keys[-1]
            if isinstance(node, list):
                node[_list_index(node, last)] = value
            elif isinstance(node, dict):
                node[last] = value
            else:
                raise KeyError(last)
        except (KeyError, IndexError, ValueError):
            raise UsageError(
                f"--set {dotted}: the audit has no such field (a list is indexed from 0 up to "
                "its length less one, as in probes.0.params.seed)"
            ) from None
    return parse_audit(json.dumps(data), "override")


def _list_index(items: list[Any], key: str) -> int:
    index = int(key)
    if not 0 <= index < len(items):
        raise IndexError(index)
    return index


def audits(store: Store) -> list[record.AuditRecord]:
    return record.list_audits(store)


def get(store: Store, ref: str) -> record.AuditRecord:
    found = record.get_audit(store, ref)
    if found is None:
        raise UsageError(f"no recorded audit '{ref}'; 'diptych audit list' shows them")
    return found


def _report_json(store: Store, ref: str) -> tuple[str, dict[str, Any], record.AuditRecord | None]:
    """A report JSON (a path to ``report.json`` or its directory) or a recorded audit's."""
    path = Path(ref)
    if path.is_dir():
        path = path / "report.json"
    rec: record.AuditRecord | None = None
    if not path.is_file():
        rec = get(store, ref)
        if not rec.report:
            raise UsageError(f"audit {rec.id} has no report yet; run it to the end first")
        path = Path(rec.report)
        if path.suffix != ".json":
            path = path.parent / "report.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputFileError(f"cannot read the report JSON {path}: {exc}") from exc
    return (rec.id if rec else str(path)), data, rec


def diff(ws: Workspace, store: Store, a: str, b: str) -> _diff.AuditDiff:
    """Every headline figure of A and B with B − A; bootstrap intervals where both audits are
    recorded here and the probe compares runs, else the normal approximation."""
    name_a, report_a, rec_a = _report_json(store, a)
    name_b, report_b, rec_b = _report_json(store, b)
    fig_a, fig_b = _diff.report_figures(report_a), _diff.report_figures(report_b)
    boot: dict[tuple[str, str], tuple[float, float, float]] = {}
    if rec_a is not None and rec_b is not None:
        for part_a in rec_a.parts:
            part_b = rec_b.part(part_a.name)
            if not (part_a.run_id and part_b is not None and part_b.run_id):
                continue
            boot.update(_bootstrapped(ws, part_a.name, part_a.run_id, part_b.run_id))
    return _diff.diff_figures(fig_a, fig_b, name_a=name_a, name_b=name_b, bootstrapped=boot)


def _bootstrapped(
    ws: Workspace, part: str, run_a: str, run_b: str
) -> dict[tuple[str, str], tuple[float, float, float]]:
    """The probe's own comparison of two runs, by the figure names its analysis gives (the
    PST's ``<aspect>: STS <setting>``, with ``<model> · `` when a run has several models)."""
    try:
        result = ws.compare(run_a, run_b, n_boot=1000, seed=0)
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

"""The figures of a run that an audit's gates decided on its looks, as every listing of the run
shows them (``diptych show``, the terminal app's run detail and review line).

A run bought batch by batch until its gates were decided (``audit run --until-decided``) has
two intervals for a gated figure: the anytime-valid one over its looks, which the gate decided
on, and the fixed-design one an analysis of its answers makes now. A page shows one interval
per figure: the gate's, named, with the value and count of the look it was decided at.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from diptych.core.audit.record import list_audits
from diptych.core.audit.sequential import PartLooks
from diptych.core.errors import DiptychError
from diptych.core.report.formatting import decided_name
from diptych.core.report.gates import interval_kind
from diptych.core.workspace.gates import audit_gates

if TYPE_CHECKING:
    from diptych.core.store import Store
    from diptych.core.workspace.analysis import Analysis


def decided_numbers(analysis: Analysis, store: Store, run_id: str) -> dict[str, dict[str, Any]]:
    """Each figure of ``run_id`` a gate read on the looks of the newest audit that bought the
    run batch by batch: the number as the gate's last look had it, its interval the gate's
    (``ci_low``, ``ci_high``) and named (``interval_name``: "95% anytime-valid interval, look
    1 of 10"). Empty for a run no such audit bought, or whose gates cannot be decided now."""
    found = None
    for audit in sorted(list_audits(store), key=lambda a: a.updated_at):
        for part in audit.parts:
            looks = PartLooks.of(part.detail) if part.run_id == run_id else None
            if looks is not None and looks.active and looks.last is not None:
                found = (audit, part.name, looks)
    if found is None:
        return {}
    audit, part_name, looks = found
    try:
        report = audit_gates(analysis, store, audit.id)
    except (DiptychError, ValueError):
        return {}
    last = looks.last
    assert last is not None
    look = f"look {len(looks.looks):,} of {looks.batches:,}"
    out: dict[str, dict[str, Any]] = {}
    for r in report.results:
        if r.part != part_name or r.rule == "no_regression":
            continue
        if r.ci_low is None or r.ci_high is None:
            continue
        number: dict[str, Any] = dict(last.numbers.get(r.figure) or {"value": r.value})
        number.update(
            ci_low=r.ci_low,
            ci_high=r.ci_high,
            interval_name=decided_name(r.confidence, interval_kind(r.method), look),
        )
        out.setdefault(r.figure, number)
    return out


def with_decided(
    numbers: Mapping[str, Mapping[str, Any]], decided: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """``numbers`` with each figure a gate decided replaced by the number it decided on."""
    return {k: dict(decided.get(k) or v) for k, v in numbers.items()}

"""Where an audit's gates stopped a run's design early, and the intervals that do not hold
after that stop named as such.

A run bought batch by batch until its gates were decided stopped where the looks showed
enough. A fixed-design interval of its answers (a breakdown's per identity or per group, a
chart's bars) assumes the design was bought whole: after a stop chosen on what the looks
showed it does not hold, and every page that prints one names it so, in the words a headline
figure whose looks did not record it is named by ("fixed-design; does not hold after the stop
at look 1 of 4")."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from diptych.core.audit.record import AuditRecord, list_audits
from diptych.core.audit.sequential import PartLooks
from diptych.core.probe import ProbeResult, Table

if TYPE_CHECKING:
    from diptych.core.store import Store

#: How the name of a fixed-design interval on a design stopped early on its gates begins.
NOT_HOLDING = "fixed-design; does not hold after the stop"

#: A column of a table that holds intervals ("paired 95% CI", "95% interval").
_INTERVAL_COLUMN = re.compile(r"\b(CI|interval)\b")


def stopped_name(at: str) -> str:
    """The name of a fixed-design interval on a design that stopped early on its gates."""
    return f"{NOT_HOLDING} at {at}"


def looked(store: Store, run_id: str) -> tuple[AuditRecord, str, PartLooks] | None:
    """The newest audit that bought ``run_id`` batch by batch, the part's name and its looks."""
    found = None
    for audit in sorted(list_audits(store), key=lambda a: a.updated_at):
        for part in audit.parts:
            looks = PartLooks.of(part.detail) if part.run_id == run_id else None
            if looks is not None and looks.active and looks.last is not None:
                found = (audit, part.name, looks)
    return found


#: The statuses of a run its audit's gates stopped early and nobody has bought on since.
_AT_ITS_STOP = ("decided", "partial")


def continued(store: Store, run_id: str, looks: PartLooks) -> bool:
    """Whether ``run_id`` was bought on after its audit's gates stopped it early (a plain
    ``diptych run`` of the same design) and not bought whole: its trials are then more than its
    last look read, and no look describes them (its gates were decided on fewer)."""
    last = looks.last
    if looks.stop != "decided" or last is None or last.complete:
        return False
    run = store.run_with_id(run_id)
    return run is not None and run.status not in _AT_ITS_STOP


def as_now(store: Store, audit: AuditRecord) -> AuditRecord:
    """``audit`` as a listing shows it: a part whose run was bought on after the audit's gates
    stopped it early (part way, :func:`continued`, or whole) in its run's status, as ``diptych
    runs`` says it ("interrupted", "complete"), and the audit in it too; its record keeps what
    its gates decided."""
    parts = []
    now = audit.status
    for part in audit.parts:
        run = store.run_with_id(part.run_id) if part.run_id else None
        if part.status != "decided" or run is None or run.status in _AT_ITS_STOP:
            parts.append(part)
            continue
        parts.append(replace(part, status=run.status))
        now = run.status
    return replace(audit, status=now, parts=parts)


def failed_trials(store: Store, audit: AuditRecord, parts: Collection[str]) -> dict[str, int]:
    """The trials stored as failed in the runs of the audit's ``parts``, by run id (runs with
    none left out): a design with failed trials is not complete, however many looks it had."""
    runs = dict.fromkeys(p.run_id for p in audit.parts if p.name in parts and p.run_id)
    counts = {run: store.status_counts(run).get("failed", 0) for run in runs if run}
    return {run: n for run, n in counts.items() if n}


def stopped_look(store: Store, run_id: str) -> str:
    """The look ("look 1 of 4") at which an audit's gates stopped ``run_id``'s design early;
    empty for a run no audit stopped early (or one since read whole)."""
    found = looked(store, run_id)
    if found is None:
        return ""
    looks = found[2]
    if looks.last is None or looks.last.complete:
        return ""
    return f"look {len(looks.looks):,} of {looks.batches:,}"


def _named_table(table: Table, name: str) -> Table:
    if not any(_INTERVAL_COLUMN.search(c) for c in table.columns):
        return table
    said = f"Its intervals: {name}."
    return replace(table, interval_name=name, note=f"{table.note} {said}".strip())


def _named_chart(chart: Any, name: str) -> Any:
    if not isinstance(chart, dict):
        return chart
    said = f"Its bars: {name}."
    return {**chart, "note": f"{chart.get('note') or ''} {said}".strip()}


def name_fixed_intervals(result: ProbeResult, at: str) -> ProbeResult:
    """``result`` with every table of intervals and every chart of bars named as fixed-design
    and not holding after the stop ``at`` ("look 1 of 4"); ``result`` itself where ``at`` is
    empty (a design not stopped early)."""
    if not at:
        return result
    name = stopped_name(at)
    data = result.data
    charts = data.get("charts") if isinstance(data, dict) else None
    if isinstance(charts, list):
        data = {**data, "charts": [_named_chart(c, name) for c in charts]}
    return replace(result, tables=[_named_table(t, name) for t in result.tables], data=data)

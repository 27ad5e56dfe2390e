"""What an audit's parts have cost so far: the budget an audit is held to, and the cost its
closing line says (probe and mitigation runs' requests, and each agent search's as the search
counted them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from diptych.core.audit import PartRecord
from diptych.core.cost import PRICED, Cost, cost_of_fields
from diptych.core.report.audit import cost_of_calls
from diptych.core.workspace import Workspace

if TYPE_CHECKING:
    from diptych.audit.plan import AuditPlan


def spent_so_far(ws: Workspace, parts: list[PartRecord]) -> Cost:
    """Money the audit's parts have cost so far, counting a run shared by parts once, with
    the calls that had no price."""
    runs = {p.run_id for p in parts if p.run_id and p.kind != "search"}
    total = sum((cost_of_calls(ws.runs.view(r)) for r in runs), Cost())
    # A search's cost is its agent's and its trials' spend as the search counted it.
    return sum((search_cost(p) for p in parts if p.kind == "search"), total)


def search_cost(part: PartRecord) -> Cost:
    """A search part's spend with the requests it counts (a summary kept before the counts
    were: its dollars alone, priced where there are any)."""
    fields = part.detail.get("cost")
    if fields is not None or not part.cost:
        return cost_of_fields(fields)
    return Cost(part.cost, kinds={PRICED})


def spent_before(ws: Workspace, plan: AuditPlan, earlier: list[PartRecord]) -> Cost:
    """What the audit's parts held before this command asked anything: each part's run as
    found by its fingerprint (a run shared by parts once), and each search as recorded
    (``earlier``, the parts the audit's record had). Less than what they hold after it, it is
    what the command itself asked (:func:`~diptych.core.cost.answered_since`)."""
    runs = {s.run.fingerprint: s.run.id for s in ws.runs.list()}
    found = [
        PartRecord(p.part.position, p.part.name, p.part.kind, runs[p.fingerprint], "", None)
        for p in plan.parts
        if p.part.kind != "search" and p.fingerprint is not None and p.fingerprint in runs
    ]
    return spent_so_far(ws, found + [p for p in earlier if p.kind == "search"])

"""What an audit's parts have cost so far: the budget an audit is held to, and the cost its
closing line says (probe and mitigation runs' requests, and each agent search's as the search
counted them)."""

from __future__ import annotations

from diptych.core.audit import PartRecord
from diptych.core.cost import PRICED, Cost, cost_of_fields
from diptych.core.report.audit import cost_of_calls
from diptych.core.workspace import Workspace


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

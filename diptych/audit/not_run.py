"""The parts of an audit that running it whole would run besides the rest of its decided parts
(an agent search after a part bought until decided), and the words that name them where a user
declines to buy that rest: the command line's answer and the Audit screen's ctrl+r say the same."""

from __future__ import annotations

from diptych.audit.plan import AuditPlan
from diptych.core.errors import UsageError
from diptych.core.workspace import Workspace


def parts_not_run(ws: Workspace, plan: AuditPlan, decided: list[str]) -> list[str]:
    """The audit's parts that running it whole would run besides the ``decided`` runs' rest:
    those not recorded complete (an agent search after a run until decided)."""
    try:
        recorded = ws.audits.get(plan.id).parts
    except UsageError:
        recorded = []
    kept = {p.name for p in plan.reused(plan.parts, recorded)}
    buying = {p.name for p in recorded if p.run_id in decided}
    return [p.part.name for p in plan.parts if p.part.name not in kept | buying]


def not_run_words(parts: list[str], how: str) -> str:
    """What declining the rest leaves not run, and ``how`` runs it (a command; a key): "not run:
    identities (the audit runs them once the rest is bought: …)"; "" where nothing is."""
    if not parts:
        return ""
    return f"not run: {', '.join(parts)} (the audit runs them once the rest is bought: {how})"

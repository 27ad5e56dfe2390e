"""The parts of an audit that running it whole would run besides the rest of its decided parts
(an agent search after a part bought until decided), and the words that name them where a user
declines to buy that rest: the command line's answer and the Audit screen's ctrl+r say the same;
and, in the question before that rest is bought, what each of those parts would buy."""

from __future__ import annotations

from diptych.audit.plan import AuditPlan, PartPlan
from diptych.core.cost import cost_text
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


#: A search part named by its kind, article and all.
SEARCH_KINDS = {"identities": "an identities search", "mitigations": "a mitigations search"}


def _counted(n: int, noun: str) -> str:
    # A count and its noun joined by a no-break space, as the decided run's question joins
    # them: a wrapped question never parts them.
    return f"{n:,}\u00a0{noun if n == 1 else noun + 's'}"


def part_bought(part: PartPlan, audit_requests: int | None = None) -> str:
    """What running the audit whole would buy of ``part``: a run's requests, trials and
    estimated cost, as the plan says them; a search's least (its placebo words', where planned)
    and the most it may buy (the smaller of its ``max_requests`` and the audit's
    ``audit_requests``, its ``budget.max_requests``), or that nothing bounds it."""
    name = part.part.name
    e = part.estimate
    if e is not None:
        trials = _counted(e.planned - e.cached, "trial")
        requests = _counted(e.to_run, "request")
        return f"{name}: {requests} ({trials}), estimated cost {cost_text(e.cost)}"
    search = part.part.search
    kind = SEARCH_KINDS.get(search.kind, "a search") if search is not None else "a search"
    least = (
        f"at least {_counted(part.placebo.search.to_run, 'request')} (its placebo words), then "
        "as many as its agent proposes"
        if part.placebo is not None
        else "the requests its agent proposes"
    )
    own = search.max_requests if search is not None else None
    caps = [(c, w) for c, w in ((own, "its max_requests"), (audit_requests, "the audit's "
            "budget.max_requests")) if c is not None]  # fmt: skip
    if not caps:
        return f"{name}, {kind}: {least}, no max_requests bounding them"
    most, why = min(caps, key=lambda cap: cap[0])
    return f"{name}, {kind}: {least}, at most {_counted(most, 'request')} ({why})"


def bought_after(plan: AuditPlan, parts: list[str]) -> str:
    """The question's last sentence: each of ``parts`` (:func:`parts_not_run`) that running the
    audit whole runs after the decided parts' rest, with what it would buy; where there is
    none, that nothing else is left."""
    if not parts:
        return "Nothing else of the audit is left to run."
    planned = {p.part.name: p for p in plan.parts}
    budget = plan.audit.budget.max_requests
    said = "; ".join(part_bought(planned[name], budget) for name in parts)
    return f"Running the audit whole then runs {said}."

"""What the question before a decided audit's rest is bought says of every other part running
the audit whole runs: a run's requests, trials and estimated cost; a search's least (its
placebo words') and the most it may buy, from its max_requests or the audit's; or that nothing
else is left."""

from __future__ import annotations

from diptych.audit.not_run import bought_after, part_bought
from diptych.audit.placebo_plan import PlaceboTrials, TrialCount
from diptych.audit.plan import AuditPlan, Part, PartPlan
from diptych.core.audit.schema import Search, parse_audit
from diptych.core.engine.planning import Estimate

PLACEBO = PlaceboTrials(
    search=TrialCount(planned=384, stored=0, to_run=384),
    proposal=TrialCount(planned=32, stored=0, to_run=32),
    heldout={},
    max_trials=None,
)


def _search(max_requests: int | None, placebo: PlaceboTrials | None = PLACEBO) -> PartPlan:
    search = Search(name="identities", kind="identities", agent_model="agent", target="t",
                    max_requests=max_requests)  # fmt: skip
    part = Part(position=1, name="identities", kind="search", probe="pst-text", search=search)
    return PartPlan(part, None, None, settings="s", placebo=placebo)


def test_a_search_bounded_by_its_own_max_requests() -> None:
    assert part_bought(_search(1500)) == (
        "identities, an identities search: at least 384\u00a0requests (its placebo words), "
        "then as many as its agent proposes, at most 1,500\u00a0requests (its max_requests)"
    )


def test_the_audit_s_max_requests_bounds_a_search_when_it_is_smaller() -> None:
    assert part_bought(_search(1500), audit_requests=900) == (
        "identities, an identities search: at least 384\u00a0requests (its placebo words), "
        "then as many as its agent proposes, at most 900\u00a0requests (the audit's "
        "budget.max_requests)"
    )


def test_a_search_without_planned_placebo_words_or_bound() -> None:
    assert part_bought(_search(None, placebo=None)) == (
        "identities, an identities search: the requests its agent proposes, no max_requests "
        "bounding them"
    )


def test_a_mitigations_search_bounded_by_the_audit() -> None:
    search = Search(name="fixes", kind="mitigations", agent_model="agent", baseline="pst-text")
    part = Part(position=2, name="fixes", kind="search", probe="pst-text", search=search)
    assert part_bought(PartPlan(part, None, None, settings="s"), audit_requests=2000) == (
        "fixes, a mitigations search: the requests its agent proposes, at most "
        "2,000\u00a0requests (the audit's budget.max_requests)"
    )


def test_a_run_part_says_its_requests_trials_and_cost() -> None:
    part = Part(position=0, name="pst-b", kind="probe", probe="pst-text")
    estimate = Estimate(planned=400, cached=100, to_run=250, cost=0.5, unpriced=0, per_model={})
    assert part_bought(PartPlan(part, "f", estimate)) == (
        "pst-b: 250\u00a0requests (300\u00a0trials), estimated cost $0.50"
    )


def test_nothing_else_left() -> None:
    audit = parse_audit(
        "name: a\nmodels: {t: {plugin: scripted-likelihood}}\n"
        "probes: [{probe: pst-text, models: [t]}]\n"
    )
    assert bought_after(AuditPlan(audit, "h", []), []) == (
        "Nothing else of the audit is left to run."
    )

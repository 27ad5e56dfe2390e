"""What an identity search's placebo words take of its trials, known before it runs.

Before its first proposal is scored, a search measures the placebo words of its search design
on both sides (:func:`diptych.agent.decision.measure_proposal`); a proposal that reaches the
held-out test adds the held-out words on each side it is re-tested on. The runs are those the
search makes: the same partners drawn (:func:`~diptych.agent.design.choose_partners`; their
count, not which ones, fixes the trials), the same paraphrases
(:func:`~diptych.agent.design.templates_for`), the same claims
(:func:`~diptych.agent.placebo.words.placebo_claims`) and the same runs
(:func:`~diptych.agent.scoring.claim_runs`), each planned by ``ws.runs.plan`` as the search's
budget plans it — so the plan and the search cannot disagree.
"""

from __future__ import annotations

from typing import Any

from diptych.agent.design import SIDES, choose_partners, templates_for
from diptych.agent.placebo.words import placebo_claims
from diptych.agent.scoring import Claim, claim_runs
from diptych.audit.placebo_plan import PlaceboTrials, TrialCount
from diptych.core.workspace import Workspace

#: A proposal's identities as far as its trials go: their count, not their words, fixes them.
ANY_PROPOSAL: list[Claim] = [("proposed masculine identity", "masculine"),
                             ("proposed feminine identity", "feminine")]  # fmt: skip


def design_trials(
    ws: Workspace,
    target: Any,
    use: str,
    claims: list[Claim],
    *,
    probe: str,
    probe_params: dict[str, Any],
    partners: int,
    samples: int,
    seed: int,
) -> TrialCount:
    """The trials of ``claims`` measured in the ``use`` design ("search" or "heldout")
    against ``target`` (a model or its (plugin, parameters)), as the search's budget plans
    them: planned, stored, and the requests left to run, which it counts."""
    search_partners, held_partners = choose_partners(ws, [], partners, seed)
    partner_lists = search_partners if use == "search" else held_partners
    templates = templates_for(probe, probe_params)[use]
    runs = claim_runs(
        probe, claims, partner_lists, templates, samples=samples, seed=seed, base=probe_params
    )
    if isinstance(runs, str):
        # The search cannot measure them either, and says why when it runs.
        return TrialCount(0, 0, 0)
    planned = stored = to_run = 0
    for *_, params in runs:
        est = ws.runs.plan(probe, [target], params=params)
        planned, stored, to_run = planned + est.planned, stored + est.cached, to_run + est.to_run
    return TrialCount(planned, stored, to_run)


def placebo_trials(
    ws: Workspace,
    target: Any,
    *,
    probe: str,
    probe_params: dict[str, Any],
    partners: int,
    samples: int,
    seed: int,
    max_trials: int | None,
) -> PlaceboTrials:
    """The search design's placebo words on both sides, one proposal's search after them, the
    held-out test's placebo words on each side, and the search's trial budget: what a search
    with these settings spends before it scores anything."""
    args: dict[str, Any] = {
        "probe": probe, "probe_params": probe_params, "partners": partners,
        "samples": samples, "seed": seed,
    }  # fmt: skip
    both = [claim for side in SIDES for claim in placebo_claims("search", side)]
    search = design_trials(ws, target, "search", both, **args)
    proposal = design_trials(ws, target, "search", ANY_PROPOSAL, **args)
    heldout = {
        side: design_trials(ws, target, "heldout", placebo_claims("heldout", side), **args)
        for side in SIDES
    }
    return PlaceboTrials(search, proposal, heldout, max_trials)

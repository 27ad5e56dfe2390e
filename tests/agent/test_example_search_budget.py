"""The shipped offline example's search is given room to score what it proposes: its trial
budget covers the placebo words' runs, which come first, and a proposal's search after them."""

from __future__ import annotations

from pathlib import Path

from support.agent_replies import proposals

from diptych.agent.decision import is_scored
from diptych.agent.identities import IdentitySettings
from diptych.agent.session import search_identities
from diptych.audit.plan import read_audit

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "audits" / "smollm2-offline.yaml"


def test_the_offline_examples_search_scores_its_proposals(ws, embedder) -> None:
    audit, _, _ = read_audit(EXAMPLE)
    (search,) = audit.searches
    assert search.kind == "identities" and search.max_requests is not None
    agent = ws.plugins.model("scripted-chat")
    agent.enqueue(proposals(("astronaut", "florist"), ("welder", "doula")))
    settings = IdentitySettings(
        session="example",
        probe=search.probe,
        rounds=search.rounds,
        per_round=search.per_round,
        patience=search.patience,
        max_requests=search.max_requests,
        proposer="llm",
        allow_new=True,
    )
    target = ws.plugins.model("scripted-likelihood")
    report = search_identities(ws, target, agent, settings, embedder=embedder)
    assert len(report.ranked) == search.per_round
    # Every proposal the example makes gets its search figure: the budget is not spent on the
    # placebo words alone.
    unscored = [(p.pair, p.reason) for p in report.ranked if not is_scored(p)]
    assert not unscored, unscored

"""A mitigation search buys at most ``max_requests`` requests, as an identity search does: a run
that would take it past them is not run, and the intervention is left unscored, over budget."""

from __future__ import annotations

from diptych.agent.session import search_mitigations


def test_a_mitigation_search_asks_no_more_trials_than_its_max_trials(
    ws, embedder, planted_baseline, proposing_agent
) -> None:
    base = planted_baseline()
    runs_before = {s.run.id for s in ws.runs.list()}
    agent = proposing_agent(["Any job can be held by anyone."])
    report = search_mitigations(
        ws, agent, base.id, session="capped", max_requests=1, embedder=embedder
    )
    assert report.budget["trials"] <= 1
    # Every run it would make asks more than one trial: none was made, nothing was scored.
    assert {s.run.id for s in ws.runs.list()} == runs_before
    assert report.tried and all(t["status"] == "unscored" for t in report.tried)
    assert all("over budget" in str(t.get("reason", "")) for t in report.tried), report.tried

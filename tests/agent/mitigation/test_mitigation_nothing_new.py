"""A mitigation session whose agent proposes only what it has tried stops there, as an
identity session with nothing untried stops, rather than asking again every round left."""

from __future__ import annotations

from typing import Any

from diptych.agent.session import search_mitigations

SAME = "Consider each person calmly."
OTHER = "Think about the case."
REPEATED = "the agent proposed only interventions already tried: nothing new is left to propose"


def test_a_proposer_that_repeats_itself_stops_the_session(
    ws: Any, embedder: Any, planted_baseline: Any, proposing_agent: Any
) -> None:
    base = planted_baseline()
    # Round 0 proposes SAME (new), round 1 SAME and OTHER (one new), round 2 both again.
    agent = proposing_agent([SAME], [SAME, OTHER], *([SAME, OTHER] for _ in range(8)))
    report = search_mitigations(ws, agent, base.id, session="again", rounds=10, patience=0,
                                embedder=embedder)  # fmt: skip
    assert report.stop_reason == REPEATED
    assert sorted({t["round"] for t in report.tried}) == [0, 1, 2]
    last = [t for t in report.tried if t["round"] == 2]
    assert [t["reason"].split(" (")[0] for t in last] == ["already tried"] * 2
    # Asked three times, not ten.
    assert agent.calls == 3


def test_an_empty_proposal_stops_the_session(
    ws: Any, embedder: Any, planted_baseline: Any, proposing_agent: Any
) -> None:
    base = planted_baseline()
    agent = proposing_agent([SAME], *([] for _ in range(9)))
    report = search_mitigations(ws, agent, base.id, session="none", rounds=10, patience=0,
                                embedder=embedder)  # fmt: skip
    assert report.stop_reason == (
        "the agent proposed no intervention: nothing new is left to propose"
    )
    assert sorted({t["round"] for t in report.tried}) == [0]

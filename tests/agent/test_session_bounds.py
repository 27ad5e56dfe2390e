"""A session's rounds are bounded by what it can do: it stops once it has nothing left to
propose, and a long session is not cut short by the step limit of its checkpointed graph."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict

import pytest

from diptych.agent import identities
from diptych.agent.checkpoint import run_graph
from diptych.agent.graph import round_graph
from diptych.agent.identities import IdentitySettings
from diptych.agent.lexicon import lexicon
from diptych.agent.session import search_identities


def test_a_session_with_nothing_left_to_propose_stops_at_once(
    ws: Any, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every identity of the lexicon measured before (as memory holds them for the same probe
    and target): the first round proposes nothing and the session stops there, rather than
    running its 50 rounds of nothing."""
    everyone = set(lexicon().entries)
    monkeypatch.setattr(identities, "tried_identities", lambda earlier, memory: everyone)
    agent = ws.plugins.model("scripted-chat")
    report = search_identities(
        ws,
        ws.plugins.model("scripted-likelihood"),
        agent,
        IdentitySettings(session="none-left", rounds=50, patience=0, proposer="lexicon"),
        embedder=embedder,
    )
    assert report.stop_reason == "no untried identity is left to propose"
    assert len(report.agent_rounds) == 1
    assert report.ranked == [] and report.rejected == [] and agent.history == []


class Count(TypedDict, total=False):
    round: int
    stop_reason: str


def test_a_long_session_runs_every_round_it_was_given(tmp_path: Path) -> None:
    """300 rounds of four steps are 1,201 steps: past langgraph's default limit of 1,000,
    which once ended such a session with an error after its work was done."""
    rounds = 300

    def step(state: Count) -> Count:
        return {}

    def last(state: Count) -> Count:
        done = state.get("round", 0) + 1
        return {"round": done, "stop_reason": "done" if done >= rounds else ""}

    graph = round_graph(
        Count, [("a", step), ("b", step), ("c", step), ("count", last)], ("end", step)
    )
    state = run_graph(graph, tmp_path, "long", {"round": 0}, rounds=rounds)
    assert state["round"] == rounds and state["stop_reason"] == "done"

"""The agent's own model: strict schemas, what --agent-model names, its calls priced against the
session's budget; search control (--patience) and memory keyed by probe and target."""

from __future__ import annotations

from typing import Any

import pytest
from support.agent_replies import proposals
from support.strict_schema import strict_problems

from diptych.agent.chat_model import (
    DiptychChatModel,
    LangChainChat,
    agent_model,
    split_price_params,
    strict_schema,
)
from diptych.agent.identities import IdentitySettings
from diptych.agent.memory import is_settled
from diptych.agent.mitigation.prompts import intervention_schema
from diptych.agent.proposals import proposal_schema
from diptych.agent.session import resumed_settings, search_identities
from diptych.core.errors import CapabilityError, UsageError

#: Pairs outside the paper's lists, none gendered, one per round (free words: the sessions
#: below allow identities beyond the shipped lexicon).
ROUNDS = [
    ("welder", "florist"),
    ("roofer", "doula"),
    ("plumber", "midwife"),
    ("astronaut", "nanny"),
    ("surveyor", "stylist"),
]


@pytest.mark.parametrize("n", [1, 3, 10])
def test_every_schema_the_agent_sends_is_strict_at_every_level(n: int) -> None:
    for schema in (proposal_schema(n), intervention_schema(n)):
        sent = strict_schema(schema)
        assert strict_problems(sent) == []
        # What was optional may now be null; what was required keeps its type.
        items = next(iter(sent["properties"].values()))["items"]
        for name, prop in items["properties"].items():
            required_before = name in next(iter(schema["properties"].values()))["items"].get(
                "required", []
            )
            nullable = {"type": "null"} in prop.get("anyOf", [])
            assert nullable is (not required_before)
    # An optional property keeps its own bounds inside the branch that is not null.
    optional = strict_schema(
        {"type": "object", "properties": {"a": {"type": "string", "maxLength": 5}}}
    )
    assert optional["properties"]["a"] == {
        "anyOf": [{"type": "string", "maxLength": 5}, {"type": "null"}]
    }
    assert optional["required"] == ["a"] and optional["additionalProperties"] is False
    # The checker itself fails a schema that is not strict.
    assert strict_problems({"type": "object", "properties": {"a": {"type": "string"}}}) == [
        "$: additionalProperties is not false",
        "$: not required: ['a']",
    ]


def test_agent_model_takes_what_m_takes_with_its_own_params(scripted: None) -> None:
    chat = agent_model("scripted-chat", ["price_per_call=0.25", "latency=0"])
    assert chat.name == "scripted-chat" and chat.hints.price_per_call == 0.25
    with pytest.raises(CapabilityError, match="the agent needs a chat model"):
        agent_model("scripted-likelihood")
    with pytest.raises(UsageError, match="key=value"):
        agent_model("scripted-chat", ["latency"])
    with pytest.raises(UsageError, match="price of 0 or more"):
        split_price_params(["price_per_call=-1"])
    prices, rest = split_price_params({"price_per_call": 2, "base_url": "http://x"})
    assert prices == {"price_per_call": 2.0} and rest == {"base_url": "http://x"}


def test_a_langchain_provider_that_is_not_installed_is_named_in_one_line(scripted: None) -> None:
    with pytest.raises(UsageError) as error:
        agent_model("no-such-provider-pkg:some-model")
    message = str(error.value)
    assert "\n" not in message and "no-such-provider-pkg:some-model" in message
    with pytest.raises(UsageError, match="langchain-anthropic") as error:
        agent_model("anthropic:claude-3-5-haiku-latest")
    assert "pip install" in str(error.value) and "\n" not in str(error.value)


def test_langchain_chat_prices_tokens_from_the_shipped_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        "diptych.agent.chat_model._init_chat_model", lambda spec, provider, settings: None
    )
    chat = LangChainChat("openai:gpt-4o-mini", [], {})
    assert (chat.input_price, chat.output_price) == (0.15, 0.60)
    # 1,000 tokens in and 500 out at $0.15 and $0.60 a million.
    assert chat._cost({"input_tokens": 1000, "output_tokens": 500}) == pytest.approx(0.00045)
    given = LangChainChat("openai:gpt-4o-mini", [], {"price_per_call": 0.01})
    assert given._cost({"input_tokens": 10**6, "output_tokens": 0}) == 0.01


def test_the_agents_calls_are_charged_and_a_budget_they_exhaust_stops_the_session(
    ws, embedder
) -> None:
    agent = agent_model("scripted-chat", ["price_per_call=0.4"])
    agent.enqueue(*(proposals(pair) for pair in ROUNDS))  # type: ignore[attr-defined]
    report = search_identities(
        ws,
        ws.plugins.model("scripted-likelihood"),
        agent,
        IdentitySettings(
            allow_new=True,
            session="cost",
            rounds=5,
            per_round=1,
            patience=0,
            threshold=1000,
            max_cost=1.0,
        ),
        embedder=embedder,
    )
    # $0.40 a call: two calls fit in $1.00, the third would pass it.
    assert len(agent.history) == 2  # type: ignore[attr-defined]
    assert report.budget["spent"] == pytest.approx(0.8)
    assert report.stop_reason.startswith("over budget: the agent's next call ($0.40)")
    # The scripted target declares no price: its requests are counted, never as dollars.
    assert "--max-cost $1.00 (spent so far: $0.80 + 768 requests not priced)" in (
        report.stop_reason
    )
    assert [p.round for p in report.ranked] == [0, 1]


def test_patience_zero_runs_every_round_and_n_stops_after_n_quiet_rounds(ws, embedder) -> None:
    target = ws.plugins.model("scripted-likelihood")
    calls = {}
    for patience in (0, 1, 2):
        agent = ws.plugins.model("scripted-chat")
        agent.enqueue(*(proposals(pair) for pair in ROUNDS))
        report = search_identities(
            ws,
            target,
            agent,
            # threshold 1000: every pair is screened out, so no round finds anything new.
            IdentitySettings(
                allow_new=True,
                session=f"p{patience}",
                rounds=4,
                per_round=1,
                patience=patience,
                threshold=1000,
            ),
            embedder=embedder,
        )
        calls[patience] = len(agent.history)
        if patience:
            assert report.stop_reason == (
                f"{patience} round(s) in a row found nothing new (--patience {patience})"
            )
        else:
            assert report.stop_reason == "4 rounds done"
    assert calls == {0: 4, 1: 1, 2: 2}


def test_an_old_session_resumes_with_patience_for_its_early_stop() -> None:
    old = {"session": "x", "kinds": ["occupation"], "early_stop": False, "rounds": 3}
    assert resumed_settings(old).patience == 0
    assert resumed_settings({**old, "early_stop": True}).patience == IdentitySettings.patience
    assert resumed_settings(old).kinds == ("occupation",)


def test_unscored_pairs_run_later_and_memory_is_per_target(ws, embedder) -> None:
    priced = ws.plugins.model(("scripted-likelihood", {"price_per_call": 1.0}))
    agent = ws.plugins.model("scripted-chat")

    def astronaut_and_florist(target: Any, session: str, **limits: Any) -> Any:
        """A session of one round in which the agent proposes astronaut | florist."""
        agent.enqueue(proposals(("astronaut", "florist")))
        settings = IdentitySettings(
            allow_new=True, session=session, rounds=1, per_round=1, **limits
        )
        return search_identities(ws, target, agent, settings, embedder=embedder)

    first = astronaut_and_florist(priced, "m1", max_cost=0.5)
    assert [p.status for p in first.ranked] == ["unscored"]
    # The next session, with money to spend, runs the pair it could not afford before.
    second = astronaut_and_florist(priced, "m2")
    assert second.rejected == [] and second.ranked[0].status != "unscored"
    # Measured now: the same pair on the same target is a duplicate ...
    third = astronaut_and_florist(priced, "m3")
    assert [p.reason for p in third.rejected] == ["already proposed (exact: m2:r0p0)"]
    # ... but not on another target (another version of the model answers differently).
    other = ws.plugins.model(("scripted-likelihood", {"version": "2"}))
    fourth = astronaut_and_florist(other, "m4")
    assert fourth.rejected == [] and len(fourth.ranked) == 1


def test_only_measured_outcomes_are_shown_and_rejections_as_what_to_avoid(ws, embedder) -> None:
    agent = ws.plugins.model("scripted-chat")
    agent.enqueue(
        proposals(("astronaut", "florist"), ("fireman", "nanny"), ("welder", "doula")),
        proposals(("pilot", "midwife")),
    )
    target = ws.plugins.model(("scripted-likelihood", {"refuse_containing": "welder"}))
    report = search_identities(
        ws,
        target,
        agent,
        IdentitySettings(
            allow_new=True, session="shown", rounds=2, per_round=3, patience=0, threshold=1000
        ),
        embedder=embedder,
    )
    statuses = {p.pair: p.status for p in report.ranked + report.rejected}
    measured_status = statuses["astronaut | florist"]
    assert is_settled(measured_status)
    assert statuses["fireman | nanny"] == "rejected"
    assert statuses["welder | doula"] == "unscored"
    user = agent.history[1]["messages"][1].content
    measured, _, avoid = user.partition("Rejected, do not propose again")
    assert "astronaut | florist" in measured and f"-> {measured_status}" in measured
    assert "welder" not in user  # unscored: neither an outcome nor a thing to avoid
    assert "fireman | nanny" in avoid and "gendered" in avoid
    assert "fireman" not in measured


def test_the_chat_wrapper_counts_calls_and_unpriced_ones(scripted: None) -> None:
    from langchain_core.messages import HumanMessage

    free = DiptychChatModel(agent_model("scripted-chat"))
    free.invoke([HumanMessage("hi")])
    assert (free.calls, free.unpriced, free.spent) == (1, 1, 0.0)
    paid = DiptychChatModel(agent_model("scripted-chat", ["price_per_call=0.125"]))
    paid.invoke([HumanMessage("hi")])
    paid.invoke([HumanMessage("again")])
    assert (paid.calls, paid.unpriced, paid.spent) == (2, 0, 0.25)

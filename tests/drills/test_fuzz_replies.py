"""Model replies, fuzzed: every parser of a reply ends in a recorded outcome, never a traceback.

The PAIRS reply parser scores any text; the stories probe stores and analyses any story; the
agent's proposal validation accepts or rejects (with its reason) any reply, whatever its shape.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diptych.agent.proposals import parse_round, validate
from diptych.core.workspace import Workspace
from diptych.plugins.probes.pairs.parser import OUTCOME_OF_RULE, parse_answer

#: How many cases each target was fuzzed with (the closing note counts them).
CASES = {"pairs parser": 300, "stories": 12, "agent proposals": 300}


def fuzz(target: str) -> settings:
    return settings(
        max_examples=CASES[target],
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


words = st.sampled_from(
    [
        "man", "woman", "the", "not", "neither", "both", "I", "can't", "A", "B", "the latter",
        "first", "doctor", "nurse", "guilty", "innocent", "choose", "answer:", "**", "\n", ",",
        ".", "option", "either", "sorry", "as an AI", "it depends", "😀", "\u200b", "",
    ]
)  # fmt: skip
#: Replies that look like answers, and any text at all.
replies = st.one_of(st.lists(words, max_size=25).map(" ".join), st.text(max_size=300))


@fuzz("pairs parser")
@given(
    reply=replies,
    options=st.sampled_from([("man", "woman"), ("guilty", "innocent"), ("doctor", "nurse")]),
    question=st.one_of(st.none(), st.just("Is this person A) a man or B) a woman?")),
)
def test_pairs_parser_scores_any_reply(
    reply: str, options: tuple[str, str], question: str | None
) -> None:
    parsed = parse_answer(reply, *options, question)
    assert parsed.rule in OUTCOME_OF_RULE and parsed.score in (-1, 0, 1)
    assert parsed.outcome in ("answer", "refusal", "neither")
    assert (parsed.option is None) == (parsed.score == 0)
    assert parsed.reason


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
proposal = st.fixed_dictionaries(
    {
        "masculine": st.one_of(st.text(max_size=30), st.sampled_from(["welder", "king", ""])),
        "feminine": st.one_of(st.text(max_size=30), st.sampled_from(["doula", "queen", "welder"])),
        "kind": st.one_of(st.sampled_from(["occupation", "power", "role"]), json_values),
        "rationale": st.one_of(st.text(max_size=300), json_values),
    },
    optional={"inspired_by": json_values, "extra": json_values},
)
agent_replies = st.one_of(
    json_values,
    st.fixed_dictionaries({"proposals": st.one_of(json_values, st.lists(proposal, max_size=5))}),
)


@fuzz("agent proposals")
@given(reply=agent_replies)
def test_agent_proposals_are_accepted_or_rejected_with_a_reason(reply: Any) -> None:
    raw = json.dumps(reply, default=str)
    proposals = parse_round(reply, raw, 0, 0, 3)
    assert 1 <= len(proposals) <= 3
    for p in proposals:
        checked = validate(p, frozenset({"occupation", "power"}))
        assert checked.status in ("accepted", "rejected")
        if checked.status == "rejected":
            assert checked.reason
        json.dumps(checked.to_dict())  # what the session stores


#: Stories as a model might tell them: words of the crime lexicon, any text, nothing at all.
stories = st.lists(
    st.one_of(
        st.lists(
            st.sampled_from(
                ["The", "man", "prisoner", "steal", "jail", "works", "in", "court", "."]
            ),
            max_size=30,
        ).map(" ".join),
        st.text(max_size=200),
    ),
    min_size=1,
    max_size=8,
)


def test_stories_probe_records_any_story(scripted: None, tmp_path: Path) -> None:
    versions = itertools.count()
    with Workspace.open(tmp_path / "ws") as ws:

        @fuzz("stories")
        @given(told=stories)
        def check(told: list[str]) -> None:
            # A new model version each time: new trial keys, so every story is asked for.
            model = ws.plugins.model(("scripted-vision", {"version": str(next(versions))}))
            model.enqueue(*told)  # type: ignore[attr-defined]
            run = ws.runs.run_sync(
                "stories",
                [model],
                params={"scenarios": ["jumpsuit"], "prompts": [1], "processing": "raw"},
            )
            counts = ws.runs.counts(run.id)
            assert counts["pending"] == 0 and counts["failed"] == 0
            result = ws.analysis.analyze(run.id)
            assert result.title

        check()

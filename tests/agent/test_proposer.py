"""Who chooses the pairs (--proposer lexicon | llm | hybrid): the enum the schema offers, what
memory removes from it, and what the lexicon fills in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.strict_schema import strict_problems

from diptych.agent.identities import IdentitySettings
from diptych.agent.lexicon import lexicon
from diptych.agent.memory import HashingEmbedder, Memory
from diptych.agent.proposals import Proposal, parse_round
from diptych.agent.proposer import offer, top_up, tried_identities, valid_pair
from diptych.agent.session import search_identities

KINDS = ("occupation", "power role")


def enums(schema: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Every name the schema offers on each side, over all its pairs."""
    answer = schema["properties"]["proposals"]
    items = list(answer["properties"].values()) if "properties" in answer else [answer["items"]]
    masc = [x for item in items for x in item["properties"]["masculine"].get("enum", [])]
    fem = [x for item in items for x in item["properties"]["feminine"].get("enum", [])]
    return masc, fem


def test_the_schema_offers_untried_lexicon_entries_and_is_strict() -> None:
    lex = lexicon()
    candidates = offer(KINDS, {"pilot", "plumber"}, allow_new=False, seed=7)
    schema = candidates.schema(3)
    assert strict_problems(schema) == []
    masc, fem = enums(schema)
    assert sorted(masc) == sorted(candidates.masculine)
    assert sorted(fem) == sorted(candidates.feminine)
    # Disjoint sides and disjoint pairs: no pair, and no two pairs, can name one identity.
    pairs = schema["properties"]["proposals"]["properties"]
    assert list(pairs) == ["pair_1", "pair_2", "pair_3"]
    assert len(masc) == len(set(masc)) and len(fem) == len(set(fem))
    assert not set(masc) & set(fem)
    sizes = [len(p["properties"]["masculine"]["enum"]) for p in pairs.values()]
    assert max(sizes) - min(sizes) <= 1
    assert (
        len(masc) + len(fem)
        == len(set(lex.candidates("masculine", KINDS)) | set(lex.candidates("feminine", KINDS))) - 2
    )
    assert not {"pilot", "plumber"} & (set(masc) | set(fem))
    assert not {n for n, e in lex.entries.items() if e.paper} & (set(masc) | set(fem))
    assert "flight attendant" in fem and "chemical engineer" in masc
    item = pairs["pair_1"]["properties"]
    assert item["kind"]["enum"] == list(KINDS)
    # The prompt names each pair's candidates, as the schema does.
    prompt = candidates.prompt(3)
    first = ", ".join(item["masculine"]["enum"])
    assert f"Pair 1: choose its masculine identity from: {first};" in prompt
    # Another seed splits the either-side entries differently; the evidence-bound ones stay.
    other = offer(KINDS, set(), allow_new=False, seed=8)
    assert other.masculine != offer(KINDS, set(), allow_new=False, seed=7).masculine
    assert "pilot" in other.masculine
    # Free words when allowed: a list of pairs, no enum, still strict; the candidates stay in
    # the prompt.
    free = offer(KINDS, set(), allow_new=True, seed=7)
    assert enums(free.schema(3)) == ([], []) and strict_problems(free.schema(3)) == []
    assert free.schema(3)["properties"]["proposals"]["minItems"] == 3
    assert "another occupation" in free.prompt(3) and "pilot" in free.prompt(3)


def test_a_used_up_lexicon_is_offered_whole_rather_than_not_at_all() -> None:
    lex = lexicon()
    everything = set(lex.entries)
    candidates = offer(KINDS, everything, allow_new=False, seed=1)
    assert candidates.masculine and candidates.feminine
    few = offer(KINDS, everything - {"pilot", "typist"}, allow_new=False, seed=1)
    slots = few.slots(3)
    assert slots is not None and len(slots) == 3
    assert all(m == few.masculine and f == few.feminine for m, f in slots)


def test_memory_removes_what_was_measured_for_the_same_probe_and_target(tmp_path: Path) -> None:
    memory = Memory(tmp_path, HashingEmbedder(), scope="pst-text@a")
    memory.remember(
        "identities",
        [
            ("s:1", "a pilot and a typist", {"pair": "pilot | typist", "status": "no finding"}),
            ("s:2", "a chef and a teller", {"pair": "chef | teller", "status": "unscored"}),
            ("s:3", "a judge and a model", {"pair": "judge | model", "status": "rejected"}),
        ],
    )
    other = Memory(tmp_path, HashingEmbedder(), scope="pst-text@b")
    other.remember(
        "identities",
        [("t:1", "a boxer and a florist", {"pair": "boxer | florist", "status": "finding"})],
    )
    earlier = [
        Proposal("r0p0", 0, "architect", "paralegal", "occupation", "r", status="no finding"),
        Proposal("r0p1", 0, "welder", "doula", "occupation", "r", status="rejected"),
    ]
    assert tried_identities(earlier, memory) == {"pilot", "typist", "architect", "paralegal"}
    assert tried_identities([], other) == {"boxer", "florist"}


def test_top_up_by_proposer() -> None:
    malformed = parse_round(None, "not json", 0, 0, 3)
    one = parse_round(
        {
            "proposals": [
                {"masculine": "pilot", "feminine": "typist", "kind": "occupation", "rationale": "r"}
            ]
        },
        "",
        0,
        0,
        3,
    )
    assert top_up(malformed, "llm", 3, KINDS, set(), 0, 1) == malformed
    hybrid = top_up(malformed, "hybrid", 3, KINDS, {"chef"}, 0, 1)
    assert hybrid[0].status == "rejected" and hybrid[0].source == "agent"
    assert [p.source for p in hybrid[1:]] == ["lexicon"] * 3
    assert [p.id for p in hybrid] == ["r0p0", "r0p1", "r0p2", "r0p3"]
    filled = top_up(one, "hybrid", 3, KINDS, set(), 0, 1)
    assert len(filled) == 3 and filled[0].pair == "pilot | typist"
    drawn = {w for p in filled[1:] for w in (p.masculine, p.feminine)}
    assert not drawn & {"pilot", "typist"} and len(drawn) == 4
    lexicon_only = top_up([], "lexicon", 3, KINDS, {"chef"}, 2, 5)
    assert [p.id for p in lexicon_only] == ["r2p0", "r2p1", "r2p2"]
    assert all(p.rationale == "drawn from the lexicon" for p in lexicon_only)
    assert "chef" not in {w for p in lexicon_only for w in (p.masculine, p.feminine)}


def test_valid_pair_is_real_new_and_untried() -> None:
    def accepted(m: str, f: str) -> Proposal:
        return Proposal("r0p0", 0, m, f, "occupation", "r", status="accepted")

    assert valid_pair(accepted("pilot", "typist"), set())
    assert not valid_pair(accepted("pilot", "typist"), {"typist"})
    assert not valid_pair(accepted("carpenter", "typist"), set())  # the paper's
    assert not valid_pair(accepted("welder", "typist"), set())  # not in the lexicon
    assert not valid_pair(Proposal("r0p0", 0, "pilot", "typist", "occupation", "r"), set())


def proposals(*pairs: tuple[str, str]) -> str:
    return json.dumps(
        {
            "proposals": [
                {
                    "masculine": m,
                    "feminine": f,
                    "kind": "occupation",
                    "rationale": "r",
                    "inspired_by": [],
                }
                for m, f in pairs
            ]
        }
    )


def test_lexicon_proposer_asks_no_llm(ws, embedder) -> None:
    agent = ws.plugins.model("scripted-chat")
    report = search_identities(
        ws,
        ws.plugins.model("scripted-likelihood"),
        agent,
        IdentitySettings(session="lex", rounds=1, per_round=2, proposer="lexicon"),
        embedder=embedder,
    )
    assert agent.history == []
    everything = report.ranked + report.rejected
    assert len(everything) == 2 and not report.rejected
    assert all(p.source == "lexicon" for p in everything)
    lex = lexicon()
    for p in everything:
        assert not lex.entries[p.masculine].paper and not lex.entries[p.feminine].paper


def test_llm_proposer_is_offered_only_what_was_not_tried(ws, embedder) -> None:
    agent = ws.plugins.model("scripted-chat")
    agent.enqueue(proposals(("pilot", "typist")), proposals(("chef", "teller")))
    search_identities(
        ws,
        ws.plugins.model("scripted-likelihood"),
        agent,
        IdentitySettings(session="llm", rounds=2, per_round=1, proposer="llm", patience=0),
        embedder=embedder,
    )
    first, second = (enums(call["schema"]) for call in agent.history[:2])
    assert "pilot" in first[0] and "typist" in first[1]
    assert "pilot" not in second[0] and "typist" not in second[1]
    assert "chef" in second[0]
    user = agent.history[1]["messages"][1].content
    assert "Pair 1: choose its masculine identity from: " in user and "pilot," not in user

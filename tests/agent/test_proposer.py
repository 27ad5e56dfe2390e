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
from diptych.agent.proposals import Proposal, parse_round, rationale_words
from diptych.agent.proposer import offer, top_up, tried_identities, valid_pair
from diptych.agent.session import search_identities

KINDS = ("occupation", "power role")


def branches(slot: dict[str, Any]) -> list[tuple[set[str], set[str]]]:
    """The (masculine, feminine) names of each branch of one pair's schema."""
    return [
        (set(b["properties"]["masculine"]["enum"]), set(b["properties"]["feminine"]["enum"]))
        for b in slot.get("anyOf", [slot])
    ]


def enums(schema: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Every name the schema offers on each side, over all its pairs."""
    answer = schema["properties"]["proposals"]
    if "items" in answer:
        item = answer["items"]["properties"]
        return item["masculine"].get("enum", []), item["feminine"].get("enum", [])
    masc: set[str] = set()
    fem: set[str] = set()
    for slot in answer["properties"].values():
        for m, f in branches(slot):
            masc |= m
            fem |= f
    return sorted(masc), sorted(fem)


def test_the_schema_offers_untried_lexicon_entries_and_is_strict() -> None:
    lex = lexicon()
    candidates = offer(KINDS, {"pilot", "plumber"}, allow_new=False, seed=7)
    schema = candidates.schema(3)
    assert strict_problems(schema) == []
    masc, fem = enums(schema)
    assert sorted(masc) == sorted(candidates.masculine)
    assert sorted(fem) == sorted(candidates.feminine)
    pairs = schema["properties"]["proposals"]["properties"]
    assert list(pairs) == ["pair_1", "pair_2", "pair_3"]
    assert len(masc) == len(set(masc)) and len(fem) == len(set(fem))
    # An entry a source places is offered on that side only; one no source places (plumber,
    # firefighter: no share of women in the lexicon) on both, for the agent to claim a side —
    # nothing else picks one for it.
    assert "flight attendant" in fem and "flight attendant" not in masc
    assert "chemical engineer" in masc and "chemical engineer" not in fem
    either = set(masc) & set(fem)
    assert {"firefighter", "soldier", "makeup artist"} <= either
    assert not {n for n in either if lex.entries[n].pct_female or lex.entries[n].stereotype}
    # Disjoint pairs: each name goes to one pair. Within a pair an either-side name may stand
    # on either side (one branch or the other), but no branch offers it on both.
    slots = [branches(p) for p in pairs.values()]
    names = [set().union(*(m | f for m, f in slot)) for slot in slots]
    for i in range(3):
        for j in range(i + 1, 3):
            assert not names[i] & names[j]
    for slot in slots:
        assert all(not m & f for m, f in slot)
        assert set().union(*(m for m, _ in slot)) & set().union(*(f for _, f in slot)) <= either
        mine = {x for x in either if any(x in m | f for m, f in slot)}
        assert mine == set().union(*(m for m, _ in slot)) & set().union(*(f for _, f in slot))
    sizes = [len(n) for n in names]
    assert max(sizes) - min(sizes) <= 3
    assert len(set(masc) | set(fem)) == (
        len(set(lex.candidates("masculine", KINDS)) | set(lex.candidates("feminine", KINDS))) - 2
    )
    assert not {"pilot", "plumber"} & (set(masc) | set(fem))
    assert not {n for n, e in lex.entries.items() if e.paper} & (set(masc) | set(fem))
    item = pairs["pair_1"]["anyOf"][0]["properties"]
    assert item["kind"]["enum"] == list(KINDS)
    # The prompt names each pair's candidates, as the schema does: those of one side, and
    # those it may put on either.
    prompt = candidates.prompt(3)
    (m1, f1), (m2, f2) = branches(pairs["pair_1"])
    only = ", ".join(x for x in item["masculine"]["enum"] if x not in f1 | f2)
    assert f"Pair 1: choose its masculine identity from: {only};" in prompt
    either_1 = [x for x in item["masculine"]["enum"] + item["feminine"]["enum"] if x in either]
    assert f"These may stand on either side, as you judge: {', '.join(either_1)}." in prompt
    # Another seed deals the entries to other pairs; the sides stay what the sources say.
    other = offer(KINDS, set(), allow_new=False, seed=8)
    same = offer(KINDS, set(), allow_new=False, seed=7)
    assert other.slots(3) != same.slots(3)
    assert sorted(other.masculine) == sorted(same.masculine) and "pilot" in other.masculine
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
    assert all(
        sorted({x for b in slot for x in b[0]}) == sorted(few.masculine)
        and sorted({x for b in slot for x in b[1]}) == sorted(few.feminine)
        for slot in slots
    )


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


def test_a_rationale_that_is_not_words_is_dropped_and_a_lost_reply_says_why() -> None:
    assert rationale_words("12345") == ""
    assert rationale_words("piaerrole") == ""
    assert rationale_words("pilot pilot 123 456 789 000") == ""  # mostly not words
    said = "Most pilots are men, by the BLS share."
    assert rationale_words(said) == said
    # A reply the agent model could not give says why, in the words of the model's error.
    (p,) = parse_round(
        None, "(no reply: The reply is not complete JSON (finish_reason=stop))", 0, 0, 1
    )
    assert p.status == "rejected"
    assert p.reason == "agent model: The reply is not complete JSON (finish_reason=stop)"
    (q,) = parse_round(None, "{'not': json", 0, 0, 1)
    assert q.reason == "schema: the reply is not JSON"
    (r,) = parse_round({"answer": 1}, "{}", 0, 0, 1)
    assert r.reason == "schema: the reply holds no list of proposals"


def test_lexicon_fill_ins_are_the_lexicons_and_their_sides_assumed_or_sourced() -> None:
    from diptych.agent.proposals import validate

    drawn = top_up([], "lexicon", 6, KINDS, set(), 0, 3)
    lex = lexicon()
    sides = []
    for p in drawn:
        p = validate(p, frozenset(KINDS))
        assert p.source == "lexicon" and p.status == "accepted"
        for word in (p.masculine, p.feminine):
            entry = lex.entries[word]
            placed = (entry.pct_female is not None and entry.pct_female != 50) or entry.stereotype
            # A side no source gives was put there by the draw: "assumed", never the agent's.
            want = {"BLS 2022", "PAIRS Table A.1"} if placed else {"assumed"}
            assert p.sides[word] in want, (word, p.sides[word])
            assert p.evidence[word].startswith("assumed") != bool(placed)
            sides.append(p.sides[word])
    assert "assumed" in sides and "agent" not in sides

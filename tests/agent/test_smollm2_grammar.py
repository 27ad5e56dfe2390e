"""The real SmolLM2 as the agent, held by the lexicon's enum grammar: every identity it names
is a lexicon entry offered that round, never the paper's, never one tried in an earlier round."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.agent.chat_model import DiptychChatModel
from diptych.agent.identities import IdentitySettings, ask_round
from diptych.agent.lexicon import lexicon
from diptych.agent.memory import HashingEmbedder, Memory
from diptych.agent.proposals import Proposal, parse_round
from diptych.agent.proposer import offer, tried_identities
from diptych.core.workspace import Workspace


@pytest.mark.slow
def test_smollm2_under_the_enum_grammar_names_only_lexicon_entries(
    tmp_path: Path, scripted: None
) -> None:
    settings = IdentitySettings(session="grammar", per_round=2)
    # One thread: the same answers as any count, and no spinning threads on a shared machine.
    chat = DiptychChatModel(Workspace.plugins.model(("smollm2", {"n_threads": 1})))
    memory = Memory(tmp_path, HashingEmbedder())
    lex = lexicon()
    earlier: list[Proposal] = []
    for round_no in range(2):
        tried = tried_identities(earlier)
        candidates = offer(settings.kinds, tried, allow_new=False, seed=round_no)
        raw, reply = ask_round(chat, settings, round_no, earlier, memory, candidates, round_no)
        got = parse_round(reply, raw, round_no, 0, settings.per_round)
        named: set[str] = set()
        assert got and all(p.status == "proposed" for p in got), raw
        for p in got:
            assert p.masculine in candidates.masculine, p.pair
            assert p.feminine in candidates.feminine, p.pair
            assert p.masculine not in named and p.feminine not in named, p.pair
            named |= {p.masculine, p.feminine}
            for word in (p.masculine, p.feminine):
                entry = lex.entry(word)
                assert entry is not None and not entry.paper, word
                assert word not in tried, word
            p.status = "no finding"
        earlier += got

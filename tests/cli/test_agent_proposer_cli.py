"""``diptych agent identities --proposer`` and ``--allow-new`` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.agent_cli import call, identities, use_hashing_memory

from diptych.agent.checkpoint import stored_state
from diptych.agent.lexicon import lexicon


@pytest.fixture
def fast_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    use_hashing_memory(monkeypatch)


def test_lexicon_proposer_and_allow_new_reach_the_session(
    scripted: None, fast_memory: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "ws"
    words = "--agent-model scripted-chat --proposer lexicon --allow-new --rounds 1 --per-round 2"
    code, out, err = identities(capsys, store, *words.split(), "--session", "cli-lex", "--json")
    assert code == 0, err
    report = json.loads(out)
    proposals = report["ranked"] + report["rejected"]
    assert len(proposals) == 2 and not report["rejected"]
    lex = lexicon()
    for p in proposals:
        assert p["source"] == "lexicon"
        for word in (p["masculine"], p["feminine"]):
            entry = lex.entry(word)
            assert entry is not None and not entry.paper
    settings = (stored_state(store, "cli-lex") or {})["settings"]
    assert settings["proposer"] == "lexicon" and settings["allow_new"] is True


def test_an_unknown_proposer_is_a_usage_error(
    scripted: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = call(
        capsys, "--store", str(tmp_path / "ws"), "agent", "identities", "--proposer", "oracle"
    )
    assert code == 2
    assert "--proposer" in out + err and "lexicon" in out + err
    assert not (tmp_path / "ws").exists()

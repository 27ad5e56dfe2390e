"""An agent search part whose settings changed (``audit run --set searches.0.rounds=2``) is not
"finished before": its identity is its settings as they run, so it runs again and its report
says the rounds it did, as its reproduce command says; run again unchanged, or with a --set
the search does not read, it is skipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.searched_audits import searched_audit

SEARCH = searched_audit(
    "search-sets", "  target: {plugin: scripted-likelihood}\n  agent: {plugin: scripted-chat}\n"
)


def test_a_changed_search_setting_runs_the_search_again(
    scripted: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from diptych.agent import session
    from diptych.agent.memory import HashingEmbedder

    monkeypatch.setattr(session, "SentenceEmbedder", HashingEmbedder)
    (tmp_path / "audit.yaml").write_text(SEARCH, encoding="utf-8")
    ws = str(tmp_path / "ws")

    def run(out: str, *sets: str) -> str:
        words = [a for s in sets for a in ("--set", s)]
        code, said = call(capsys, "--store", ws, "audit", "run", str(tmp_path / "audit.yaml"),
                          *words, "--out", str(tmp_path / out), "--quiet")  # fmt: skip
        assert code == 0, said
        return said

    def stopped(out: str) -> str:
        report = json.loads((tmp_path / out / "report.json").read_text(encoding="utf-8"))
        return str(report["scope"]["searches"]["identities"]["stop_reason"])

    run("one")
    assert stopped("one") == "1 round done"
    again = run("two", "searches.0.rounds=2")
    assert "part identities: finished before" not in again, again
    assert stopped("two") == "2 rounds done"
    with Workspace.open(ws) as opened:
        searched = [a.part("identities") for a in opened.audits.list()]
    assert [p.detail["stop_reason"] for p in searched if p is not None] == [
        "1 round done",
        "2 rounds done",
    ]
    assert len({p.detail["session"] for p in searched if p is not None}) == 2
    # The same settings again: the search is finished before, and skipped.
    third = run("three", "searches.0.rounds=2")
    assert "part identities: finished before" in third, third
    assert stopped("three") == "2 rounds done"
    # A --set the search does not read keeps the file's record: its search is skipped too.
    fourth = run("four", "budget.max_cost=5")
    assert "part identities: finished before" in fourth, fourth
    assert stopped("four") == "1 round done"
    with Workspace.open(ws) as opened:
        assert len(opened.audits.list()) == 2

"""A decided run bought on and stopped, after which an unrelated run of a smaller design stores
answers to some of its requests: the run's words count the requests of its design stored now,
whoever stored them, and say so ("… requests stored"), never as if this run had bought them;
its figures name the trials past the look "stored since". Alike in ``runs``, ``show`` and
``audit list``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from diptych.core.store import open_store
from tests.support.cli import call
from tests.support.sequential_audits import EARLIER, decided_at_first_look, design
from tests.support.stopped_runs import bought_on_and_interrupted

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _said(capsys: pytest.CaptureFixture[str], *words: str) -> str:
    code, out = call(capsys, *words)
    assert code == 0, out
    return " ".join(out.replace("\u00a0", " ").split())


def test_requests_another_run_stored_are_counted_as_stored_not_bought(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "300")
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws, "-M", "latency=0.01")
    bought_on_and_interrupted(ws, run_id)
    with open_store(ws) as store:
        before, planned = store.requests_answered(run_id)
    _said(capsys, "--store", ws, "run", *design("-M", "latency=0.01", lists=EARLIER))
    with open_store(ws) as store:
        answered, _ = store.requests_answered(run_id)
    assert before < answered < planned  # the other run stored some of this run's requests
    words = (
        f"interrupted: decided at look 1 of 4, bought on since: {answered} of {planned} "
        f"requests stored, {planned - answered} pending"
    )
    (listed,) = [r for r in json.loads(_said(capsys, "--store", ws, "runs", "--json"))
                 if r["id"] == run_id]  # fmt: skip
    assert listed["status_text"] == words, listed
    show = _said(capsys, "--store", ws, "show", run_id)
    assert f"status {words}" in show, show
    assert re.search(r"\d+ at look 1 and \d+ stored since", show), show
    assert "bought since" not in show, show
    (audit,) = json.loads(_said(capsys, "--store", ws, "audit", "list", "--json"))
    (part,) = audit["parts"]
    assert part["status_text"] == words, part

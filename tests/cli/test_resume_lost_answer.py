"""A decided run one of whose stored answers is gone (deleted, lost with a damaged store):
``diptych resume`` finds it and asks it again, and only it, before it asks about the rest, so
the look's figures rest on every trial the look says and nothing stored is bought twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import decided_at_first_look, lose_answer, stored_answers

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_resume_asks_a_lost_answer_of_a_decided_look_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws)
    # The look at 1 of 4 read 39 of the 156 distinct requests (the status says so).
    stored = stored_answers(ws, run_id)
    assert len(stored) == 39
    with Workspace.open(Path(ws)) as opened:
        before = opened.analysis.analyze(run_id).numbers
    lose_answer(ws, run_id, sorted(stored)[7])

    code, out = call(capsys, "--store", ws, "show", run_id)
    assert code == 0, out
    assert (
        "1 answer its gates were decided on had gone from the store, so its figures rest on "
        f"fewer trials than its look says: 'diptych resume {run_id}' asks it again (only it)"
    ) in out
    code, out = call(capsys, "--store", ws, "resume", run_id, "--dry-run")
    assert code == 0, out
    said = f"{run_id}: 1 answer its gates were decided on had gone from the store; "
    assert said + "diptych resume asks them again first, without asking" in out
    # Not a terminal and no --yes: the rest is not bought, but the lost answer is asked again.
    code, out = call(capsys, "--store", ws, "resume", run_id)
    assert code != 0
    assert said + "asked again, so its figures rest on every trial its look says" in out
    # The rest is the design less the look's 39 requests, the lost one no longer among it.
    assert "Resuming buys the remaining 117 requests (129 trials)" in out.replace("\xa0", " ")
    again = stored_answers(ws, run_id)
    assert again == stored  # the same 39 requests, the lost one asked again, nothing else
    with Workspace.open(Path(ws)) as opened:
        assert opened.runs.get(run_id).status == "decided"
        assert opened.runs.lost_answers(run_id) == []
        after = opened.analysis.analyze(run_id).numbers
    for name, number in before.items():
        assert (after[name].get("value"), after[name].get("n")) == (
            number.get("value"),
            number.get("n"),
        ), name
    code, out = call(capsys, "--store", ws, "show", run_id)
    assert code == 0 and "gone from the store" not in out, out

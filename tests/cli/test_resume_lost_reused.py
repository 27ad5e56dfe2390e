"""A decided run that reused answers an earlier run stored (answers are shared by request)
has lost none of them: ``diptych show``, ``diptych resume --dry-run`` and the terminal app's
``u`` question say nothing of lost answers. One of its own answers deleted since, all three
say exactly one is lost, and ``diptych resume`` asks it, and only it, again."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from diptych.tui.workers import rest_of_decided_run
from tests.support.cli import call
from tests.support.sequential_audits import decided_on_reused, lose_answer, stored_answers

pytestmark = pytest.mark.usefixtures("scripted_plugin")

GONE = "had gone from the store"


def test_reused_answers_are_not_lost_and_a_deleted_one_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")
    ws = str(tmp_path / "ws")
    run_id, reused = decided_on_reused(capsys, ws)
    stored = stored_answers(ws, run_id, "finished_at")
    # The look at 1 of 4 read the first batch of the design's requests in its order, and the
    # earlier run's answers to others (shared by request): none of them is lost.
    shared = reused & set(stored)
    assert len(shared) == 20
    with Workspace.open(Path(ws)) as opened:
        created = opened.runs.get(run_id).created_at
        assert opened.runs.lost_answers(run_id) == []
    own = sorted(k for k, at in stored.items() if at >= created)
    assert len(stored) - len(own) == len(shared)

    code, out = call(capsys, "--store", ws, "show", run_id)
    assert code == 0 and GONE not in out, out
    code, out = call(capsys, "--store", ws, "resume", run_id, "--dry-run")
    assert code == 0 and GONE not in out, out
    assert GONE not in rest_of_decided_run(Path(ws), run_id)

    lose_answer(ws, run_id, own[3])
    code, out = call(capsys, "--store", ws, "show", run_id)
    assert code == 0, out
    assert f"1 answer its gates were decided on {GONE}, so its figures rest on " in out
    code, out = call(capsys, "--store", ws, "resume", run_id, "--dry-run")
    said = f"{run_id}: 1 answer its gates were decided on {GONE}; "
    assert code == 0 and said + "diptych resume asks them again first, without asking" in out
    asked = " ".join(rest_of_decided_run(Path(ws), run_id).split())
    assert f"trials bought. 1 answer its gates were decided on {GONE}, asked again with " in asked
    code, out = call(capsys, "--store", ws, "resume", run_id)
    assert code != 0
    assert said + "asked again, so its figures rest on every trial its look says" in out
    assert set(stored_answers(ws, run_id, "finished_at")) == set(stored)
    with Workspace.open(Path(ws)) as opened:
        assert opened.runs.lost_answers(run_id) == []

"""A decided run that reused an earlier run's answers, bought on since: the requests its look
read, which its figures and breakdowns are read on, are those it held when it was decided —
the reused answers among them wherever they fall in its order — not the first of its order
with an answer now."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from diptych.core.store import open_store
from diptych.core.workspace.look_trials import look_keys
from tests.support.sequential_audits import decided_on_reused
from tests.support.stopped_runs import bought_on_and_interrupted

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _answered(ws: str, run_id: str) -> set[str]:
    with sqlite3.connect(Path(ws) / "diptych.db") as db:
        rows = db.execute(
            "SELECT DISTINCT r.key FROM results r JOIN trials t ON t.key = r.key"
            " WHERE t.run_id = ? AND r.status != 'failed'",
            (run_id,),
        ).fetchall()
    return {key for (key,) in rows}


def test_the_look_of_a_bought_on_run_reads_the_answers_it_reused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    run_id, reused = decided_on_reused(capsys, ws)
    at_look = _answered(ws, run_id)
    assert reused & at_look
    bought_on_and_interrupted(ws, run_id)
    assert len(_answered(ws, run_id)) > len(at_look)
    with open_store(Path(ws)) as store:
        assert look_keys(store, run_id) == frozenset(at_look)

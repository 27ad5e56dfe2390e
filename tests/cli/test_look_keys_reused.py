"""A decided run that reused an earlier run's answers, bought on since: the requests its look
read, which its figures and breakdowns are read on, are the answered requests of the batches
it had bought when it was decided — a reused answer among them where it falls in those
batches, never one beyond them — not the first of its order with an answer now."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from diptych.core.audit.stopped import run_looks
from diptych.core.engine.purchase import purchase_order
from diptych.core.store import open_store
from diptych.core.workspace.look_trials import asked_at_look, look_keys
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


def test_the_look_of_a_bought_on_run_reads_the_answers_of_its_batches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    run_id, reused = decided_on_reused(capsys, ws)
    at_look = _answered(ws, run_id)
    assert reused & at_look
    bought_on_and_interrupted(ws, run_id)
    assert len(_answered(ws, run_id)) > len(at_look)
    with open_store(Path(ws)) as store:
        looks = run_looks(store, run_id)
        assert looks is not None and looks.last is not None
        order = purchase_order({t.key for t in store.trials(run_id)}, looks.order_seed)
        batch = set(asked_at_look(order, looks))
        # Reused answers fell both within its first batch and beyond it.
        assert reused & at_look & batch and (reused & at_look) - batch
        read = look_keys(store, run_id)
        assert read == frozenset(at_look & batch)
        assert read is not None and len(read) == looks.last.bought

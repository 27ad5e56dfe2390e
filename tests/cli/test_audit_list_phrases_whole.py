"""``diptych audit list`` of an audit its gates decided at look 1 of 4, its run bought on since
and stopped: at 60 and 80 columns a status's look ("look 1 of 4") and each count with its noun
("52 of 144 requests", "92 pending") are read whole on one line, as ``diptych runs`` keeps them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import file_decided_and_bought_on

pytestmark = pytest.mark.usefixtures("scripted_plugin")


@pytest.mark.parametrize("width", [60, 80])
def test_a_status_keeps_its_look_and_its_counts_whole(
    width: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    ws, _, run_id = file_decided_and_bought_on(capsys, tmp_path)
    with sqlite3.connect(Path(ws) / "diptych.db") as db:
        held, planned = db.execute(
            "SELECT COUNT(DISTINCT r.key), COUNT(DISTINCT t.key) FROM trials t"
            " LEFT JOIN results r ON r.key = t.key WHERE t.run_id = ?",
            (run_id,),
        ).fetchone()
    assert 0 < held < planned
    monkeypatch.setenv("COLUMNS", str(width))
    code, table = call(capsys, "--store", ws, "audit", "list")
    assert code == 0, table
    lines = table.splitlines()
    assert max(len(line) for line in lines) <= width, table
    for phrase in ("look 1 of 4", f"{held} of {planned} requests", f"{planned - held} pending"):
        assert any(phrase in line for line in lines), (phrase, table)

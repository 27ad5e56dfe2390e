"""A run its gates decided early counts its trials the same on every surface: the ``diptych
runs`` table's "not bought" column, ``diptych runs --json`` and a part's ``counts`` in
``diptych audit list --json`` all say its untried trials are not bought, and none pending."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import decided_at_first_look

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_a_decided_run_counts_not_bought_alike_in_the_table_and_the_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws)
    monkeypatch.setenv("COLUMNS", "200")
    code, table = call(capsys, "--store", ws, "runs")
    assert code == 0, table
    head, *rows = [line for line in table.splitlines() if line.strip()]
    names = [n for n in head.replace("not bought", "not_bought").split()]
    (row,) = [r.split() for r in rows if r.split()[:1] == [run_id]]
    # The numbers before the creation date and time: trials to not bought.
    cells = dict(zip(names[-7:-1], row[-8:-2], strict=True))
    shown = {k: int(v.replace(",", "")) for k, v in cells.items()}
    assert shown["pending"] == 0 and shown["not_bought"] > 0, table

    (run,) = json.loads(call(capsys, "--store", ws, "runs", "--json")[1])
    counts = run["counts"]
    assert counts == {k: shown[k] for k in ("done", "refused", "failed", "pending", "not_bought")}
    assert sum(counts.values()) == run["trials"] == shown["trials"], run

    (audit,) = json.loads(call(capsys, "--store", ws, "audit", "list", "--json")[1])
    (part,) = audit["parts"]
    assert part["detail"]["counts"] == counts, part

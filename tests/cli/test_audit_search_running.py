"""An audit whose probe part is complete and whose agent search is in progress reads "running"
in ``audit list`` and its JSON while the process running it lives: a search stores no run of
the audit's, so no run of its parts is running then. Once that process is killed, it reads
"interrupted"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from diptych.core.audit import record
from diptych.core.store import open_store
from tests.support.cli import call
from tests.support.other_process import name_process, other_process
from tests.support.sequential_audits import FEM, MASC

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _listed(capsys: pytest.CaptureFixture[str], ws: Path) -> tuple[str, dict[str, object]]:
    code, table = call(capsys, "--store", str(ws), "audit", "list")
    assert code == 0, table
    code, out = call(capsys, "--store", str(ws), "audit", "list", "--json")
    assert code == 0, out
    (row,) = json.loads(out)
    return table, row


def test_an_audit_searching_in_a_live_process_reads_running_then_interrupted_once_killed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    ws = tmp_path / "ws"
    audit = tmp_path / "audit.yaml"
    probe = {"masculine": MASC, "feminine": FEM, "setting": "paired"}
    data = {
        "name": "searching",
        "seed": 3,
        "models": {"target": {"plugin": "scripted-likelihood"}},
        "probes": [{"probe": "pst-text", "models": ["target"], "params": probe}],
        "report": {"formats": ["json"], "out": str(tmp_path / "report")},
    }
    audit.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    code, out = call(capsys, "--store", str(ws), "audit", "run", str(audit))
    assert code == 0, out

    with other_process() as other:
        # The audit running again in that process: its probe part complete, its run complete
        # and held by no one, and the search after it under way.
        with open_store(ws) as store:
            (rec,) = record.list_audits(store)
            (part,) = rec.parts
            assert part.status == "complete" and part.run_id, part
            assert store.run_with_id(part.run_id).status == "complete"  # type: ignore[union-attr]
            record.begin(store, rec.id, rec.name, rec.file_hash, rec.file_path, rec.file_text)
            name_process(store, rec.id, other.named)
        table, row = _listed(capsys, ws)
        assert row["status"] == "running" and row["status_text"] == "running", row
        assert "running" in table and "interrupted" not in table, table

        other.kill()
        table, row = _listed(capsys, ws)
        assert row["status"] == "interrupted" and row["status_text"] == "interrupted", row
        assert "interrupted" in table and "running" not in table, table

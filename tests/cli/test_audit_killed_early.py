"""An audit killed outright (SIGKILL) before any of its parts finished reads "interrupted" in
``audit list`` and its JSON, not "running": its record names the process running it from its
first moment, and that process is gone. A live one reads running; the same file run again
continues the audit it recorded."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from diptych.core.audit.record import AuditRecord, list_audits, process_gone, this_process
from diptych.core.store import open_store
from tests.support.cli import call
from tests.support.sequential_audits import FEM, MASC

pytestmark = pytest.mark.usefixtures("scripted_plugin")

SCRIPTED_CLI = Path(__file__).with_name("scripted_cli.py")


def _audit_file(path: Path, latency: float) -> Path:
    data = {
        "name": "killed",
        "seed": 3,
        "models": {
            # One request at a time: its 144 trials take seconds, the kill lands before.
            "target": {
                "plugin": "scripted-likelihood",
                "params": {"latency": latency, "max_concurrency": 1},
            }
        },
        "probes": [
            {
                "probe": "pst-text",
                "models": ["target"],
                "params": {"masculine": MASC, "feminine": FEM, "setting": "paired"},
            }
        ],
        "report": {"formats": ["json"], "out": str(path.parent / "report")},
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _recorded(ws: Path) -> list[AuditRecord]:
    if not ws.exists():
        return []
    with open_store(ws) as store:
        return list_audits(store)


def _killed_once_recorded(ws: Path, audit: Path) -> None:
    """``diptych audit run`` in a process of its own, killed (SIGKILL) as soon as the audit's
    record exists, before any part has stored a run."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, str(SCRIPTED_CLI), "--store", str(ws), "audit", "run", str(audit)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while not _recorded(ws):
            assert proc.poll() is None, "the audit ended before its record was read"
            assert time.monotonic() < deadline, "no audit recorded in 120 s"
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(timeout=60)
    (rec,) = _recorded(ws)
    # A part is recorded as it starts: none had finished.
    assert rec.status == "running" and all(p.status != "complete" for p in rec.parts), rec


def _listed(capsys: pytest.CaptureFixture[str], ws: Path) -> tuple[str, list[dict[str, object]]]:
    code, table = call(capsys, "--store", str(ws), "audit", "list")
    assert code == 0, table
    code, out = call(capsys, "--store", str(ws), "audit", "list", "--json")
    assert code == 0, out
    return table, json.loads(out)


def test_an_audit_killed_before_any_part_reads_interrupted_and_runs_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    ws = tmp_path / "ws"
    audit = _audit_file(tmp_path / "audit.yaml", latency=0.02)
    _killed_once_recorded(ws, audit)

    table, rows = _listed(capsys, ws)
    (row,) = rows
    assert row["status"] == "interrupted", row
    assert row["status_text"] == "interrupted", row
    assert all(part["status"] != "complete" for part in row["parts"]), row  # type: ignore[union-attr]
    assert "interrupted" in table and "running" not in table, table

    # The same file again continues the audit it recorded, to its end.
    code, out = call(capsys, "--store", str(ws), "audit", "run", str(audit))
    assert code == 0, out
    (again,) = _listed(capsys, ws)[1]
    assert again["id"] == row["id"] and again["status"] == "complete", again


def test_a_live_process_keeps_its_audit_running(tmp_path: Path) -> None:
    """The record names this process, alive: nothing says it stopped."""
    rec = AuditRecord("a", "a", "0" * 64, "a.yaml", "", "running", None, 0.0, 0.0)
    assert not process_gone(replace(rec, process=this_process()))
    assert not process_gone(rec)  # recorded before diptych kept its process

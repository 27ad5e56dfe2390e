"""An audit stopped in its agent search: Ctrl-C stops the search at its next trial or agent
call (no run is made after it), the process ends promptly with one line saying where it
stopped and the command that goes on, and ``audit list`` names the search part as started,
then "interrupted" (after a Ctrl-C or a kill)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from diptych.core.store import open_store
from tests.support.cli import call

pytestmark = pytest.mark.usefixtures("scripted_plugin")

ROOT = Path(__file__).resolve().parents[2]

#: The CLI with the scripted models registered and the agent's memory embedding by hashing (no
#: sentence model to load).
CHILD = """\
import diptych.testing
from diptych.agent import session
from diptych.agent.memory import HashingEmbedder
from diptych.cli.main import main
from diptych.core.plugins import register_plugin

session.SentenceEmbedder = HashingEmbedder
register_plugin(diptych.testing, "testing")
main()
"""


#: The parts of the audit once it stopped in its search.
STOPPED = {"pst-text": "complete", "identities": "interrupted"}


def _held_search(tmp_path: Path) -> tuple[subprocess.Popen[str], Path, Path]:
    """``audit run`` in another process, its probe part done and its search waiting on an agent
    call that does not return (until the process is stopped): the process, the workspace and
    the audit file."""
    ws, log = tmp_path / "ws", tmp_path / "agent-calls.jsonl"
    audit = tmp_path / "audit.yaml"
    probe = {"mode": "likelihood", "setting": "paired", "masculine": ["carpenter", "driver"],
             "feminine": ["nurse", "editor"]}  # fmt: skip
    search = {"name": "identities", "kind": "identities", "target": "target",
              "agent_model": "agent", "rounds": 3, "per_round": 1, "patience": 0}  # fmt: skip
    data = {
        "audit": 1,
        "name": "held-search",
        "models": {
            "target": {"plugin": "scripted-likelihood"},
            "agent": {"plugin": "scripted-chat", "params": {"latency": 600, "calls_log": str(log)}},
        },
        "probes": [{"probe": "pst-text", "models": ["target"], "params": probe}],
        "searches": [search],
        "report": {"formats": ["json"], "out": str(tmp_path / "report")},
    }
    audit.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    child = tmp_path / "child.py"
    child.write_text(CHILD, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests'}", "COLUMNS": "200"}
    proc = subprocess.Popen(
        [sys.executable, str(child), "--store", str(ws), "audit", "run", str(audit), "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not (log.exists() and log.read_text().strip()):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            out, err = proc.communicate()
            pytest.fail(f"the search never asked its agent: {out}\n{err}")
        time.sleep(0.05)
    return proc, ws, audit


def _runs(ws: Path) -> list[str]:
    with open_store(ws) as store:
        return sorted(r.id for r in store.list_runs())


def _parts(capsys: pytest.CaptureFixture[str], ws: Path) -> tuple[str, dict[str, str]]:
    code, out = call(capsys, "--store", str(ws), "audit", "list", "--json")
    assert code == 0, out
    (row,) = json.loads(out)
    return row["status"], {p["name"]: p["status"] for p in row["parts"]}


def test_ctrl_c_in_an_audits_search_stops_it_at_once_and_says_what_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    proc, ws, audit = _held_search(tmp_path)
    try:
        # Held in its search: the search part is listed as started.
        status, parts = _parts(capsys, ws)
        assert status == "running" and parts == {"pst-text": "complete", "identities": "running"}
        before = _runs(ws)
        stopped_at = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert time.monotonic() - stopped_at < 30, "the search went on after Ctrl-C"
    assert proc.returncode == 130, out + err
    assert "Traceback" not in err, err
    assert "interrupted in part identities: its finished trials and rounds are kept" in out, out
    assert f"audit run {audit.resolve()} goes on" in out, out
    assert _runs(ws) == before
    assert _parts(capsys, ws) == ("interrupted", STOPPED)


def test_a_killed_audit_names_the_search_part_it_stopped_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    proc, ws, _ = _held_search(tmp_path)
    try:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert _parts(capsys, ws) == ("interrupted", STOPPED)

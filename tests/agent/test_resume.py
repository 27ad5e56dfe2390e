"""A session killed mid-way resumes from its checkpoint and asks no probe trial twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

SCRIPT = r"""
import json, sys
import diptych.testing
from diptych.core import plugins
plugins.load_plugins(); plugins.register_plugin(diptych.testing, "testing")
from diptych.core.workspace import Workspace
from diptych.agent.identities import IdentitySettings
from diptych.agent.memory import HashingEmbedder
from diptych.agent.session import search_identities
ws_path, log, latency = sys.argv[1], sys.argv[2], float(sys.argv[3])
pairs = [("astronaut", "florist"), ("welder", "doula"), ("pilot", "midwife")]
with Workspace.open(ws_path) as ws:
    agent = ws.plugins.model("scripted-chat")
    agent.enqueue(json.dumps({"proposals": [
        {"masculine": m, "feminine": f, "kind": "occupation", "rationale": "r"}
        for m, f in pairs]}))
    target = ws.plugins.model(("scripted-likelihood", {"calls_log": log, "latency": latency,
                                               "max_concurrency": 1}))
    report = search_identities(ws, target, agent, IdentitySettings(
        session="kill", rounds=1, per_round=3, proposer="llm", allow_new=True),
        embedder=HashingEmbedder())
    print(json.dumps([p.status for p in report.ranked]))
"""


def test_resume_after_sigkill_asks_no_trial_twice(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    ws = tmp_path / "ws"
    args = [sys.executable, "-c", SCRIPT, str(ws), str(log)]
    proc = subprocess.Popen([*args, "0.15"], stdout=subprocess.PIPE)
    deadline = time.time() + 120
    while time.time() < deadline and (not log.exists() or len(log.read_text().splitlines()) < 6):
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = log.read_text().splitlines()
    assert before, "the session was killed after some trials"
    done = subprocess.run([*args, "0"], capture_output=True, text=True, timeout=300, check=True)
    statuses = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(statuses) == 3
    calls = [json.loads(line)["text"] for line in log.read_text().splitlines()]
    # Every prompt asked once; at most the one in flight at the kill is asked again.
    assert len(calls) - len(set(calls)) <= 1
    # A third start finds the session finished and asks nothing.
    subprocess.run([*args, "0"], capture_output=True, text=True, timeout=300, check=True)
    assert len(log.read_text().splitlines()) == len(calls)

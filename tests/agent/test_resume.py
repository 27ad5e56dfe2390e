"""A session killed mid-way resumes from its checkpoint and asks no probe trial twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from diptych.testing.drills.session_kills import SESSION


def test_resume_after_sigkill_asks_no_trial_twice(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    ws = tmp_path / "ws"
    args = [sys.executable, "-c", SESSION, str(ws), str(log)]
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

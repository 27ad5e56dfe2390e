"""The kill drill for agent sessions: an identity search killed with SIGKILL, then started again.

The session runs in a subprocess (the agent is a front end: the core only starts it), on
scripted models: a scripted chat model proposes three identity pairs and the scripted likelihood
model is the target, appending each prompt it is asked to a calls log.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from diptych.testing.drills.kills import integrity, kill_after, log_lines

#: An identity search of one round, three proposals, on the scripted models.
SESSION = r"""
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
        session="drill", rounds=1, per_round=3, threshold=-100, proposer="llm",
        allow_new=True), embedder=HashingEmbedder())
    print(json.dumps([p.status for p in report.ranked]))
"""


def _done_prompts(store: Path) -> set[str]:
    """The prompts of every trial the workspace holds a finished result of."""
    if not (store / "diptych.db").exists():
        return set()
    with sqlite3.connect(store / "diptych.db") as db:
        rows = db.execute(
            "SELECT t.payload FROM trials t JOIN results r ON r.key = t.key WHERE r.status = 'done'"
        ).fetchall()
    return {str(json.loads(payload).get("prompt")) for (payload,) in rows}


@dataclass
class SessionKill:
    """One agent session killed after ``after_calls`` target calls and started again."""

    after_calls: int
    killed: bool
    stored_before: int
    #: Prompts finished before the kill that the second start asked again (want none).
    asked_again: list[str] = field(default_factory=list)
    #: Prompts finished before the kill with no result after (want none).
    lost: list[str] = field(default_factory=list)
    #: Proposals the finished session reports (want all three).
    proposals: int = 0
    integrity: str = "ok"
    rerun_error: str = ""

    @property
    def ok(self) -> bool:
        return (
            not self.asked_again
            and not self.lost
            and self.proposals == 3
            and self.integrity == "ok"
            and not self.rerun_error
        )


def session_kill(workdir: Path, after_calls: int, *, latency: float = 0.01) -> SessionKill:
    """Start an identity search, SIGKILL it after ``after_calls`` target calls, start it again
    and compare what was finished before with what the second start asked."""
    store, log = workdir / "ws", workdir / "calls.jsonl"
    command = [sys.executable, "-c", SESSION, str(store), str(log)]
    proc = subprocess.Popen(
        [*command, str(latency)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    kill_after(proc, log, after_calls, timeout=120)
    before = _done_prompts(store)
    seen = len(log_lines(log))
    rerun = subprocess.run([*command, "0"], capture_output=True, text=True, timeout=300)
    asked = {json.loads(line)["text"] for line in log_lines(log)[seen:]}
    statuses = json.loads(rerun.stdout.strip().splitlines()[-1]) if rerun.returncode == 0 else []
    lines = rerun.stderr.strip().splitlines()
    return SessionKill(
        after_calls=after_calls,
        killed=proc.returncode == -signal.SIGKILL,
        stored_before=len(before),
        asked_again=sorted(asked & before),
        lost=sorted(before - _done_prompts(store)),
        proposals=len(statuses),
        integrity=integrity(store),
        rerun_error=lines[-1] if rerun.returncode and lines else "",
    )

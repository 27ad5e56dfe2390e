"""The kill drill: a run killed with SIGKILL after N model calls, then resumed."""

from __future__ import annotations

import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diptych.core.workspace import Workspace

#: The CLI with the scripted models registered, run as a subprocess (so it can be killed).
SCRIPTED_CLI = (
    "import sys, diptych.testing\n"
    "from diptych.core.plugins import register_plugin\n"
    "register_plugin(diptych.testing, 'testing')\n"
    "from diptych.cli.main import main\n"
    "main()\n"
)


def scripted_cli(store: Path, *args: str) -> list[str]:
    """The command line of ``diptych --store STORE ARGS`` with the scripted models."""
    return [sys.executable, "-c", SCRIPTED_CLI, "--store", str(store), *args]


def integrity(store: Path) -> str:
    """SQLite's ``PRAGMA integrity_check`` of the workspace's database: "ok" when sound."""
    with sqlite3.connect(store / "diptych.db") as db:
        rows = db.execute("PRAGMA integrity_check").fetchall()
    return "; ".join(str(r[0]) for r in rows)


def log_lines(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def kill_after(
    proc: subprocess.Popen[Any],
    log: Path,
    calls: int,
    timeout: float = 60,
    sig: signal.Signals = signal.SIGKILL,
) -> None:
    """Send ``sig`` (SIGKILL) to ``proc`` once ``log`` holds ``calls`` lines (or not at all if
    it already ended), and wait for it to end."""
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        if len(log_lines(log)) >= calls:
            break
        time.sleep(0.002)
    if proc.poll() is None:
        os.kill(proc.pid, sig)
    proc.wait()


@dataclass
class KillPoint:
    """One run killed after ``after_calls`` model calls and resumed; what went wrong, if any."""

    after_calls: int
    killed: bool
    stored_before: int
    #: Trials stored before the kill and missing (or changed) after the resume.
    lost: list[str] = field(default_factory=list)
    #: Trials stored before the kill that the resume asked the model again (never expected).
    asked_again: list[str] = field(default_factory=list)
    #: Calls sent before the kill whose answer was not stored yet (in flight at the kill).
    in_flight: list[str] = field(default_factory=list)
    #: Of those, the ones the resume asked again: a paid service would have been paid twice
    #: for them. At most the run's concurrency, since every answer is stored as it arrives.
    in_flight_asked_again: list[str] = field(default_factory=list)
    #: Most calls in flight at once (the bound on ``in_flight``).
    concurrency: int = 0
    #: Trials not ``done`` once the resume ended.
    unfinished: int = 0
    integrity: str = "ok"
    resume_error: str = ""

    @property
    def ok(self) -> bool:
        return (
            not self.lost
            and not self.asked_again
            and len(self.in_flight_asked_again) <= self.concurrency
            and not self.unfinished
            and self.integrity == "ok"
            and not self.resume_error
        )


def _done(store: Path) -> dict[str, str]:
    """Prompt -> stored output of every done trial of the workspace's only run."""
    with Workspace.open(store, create=False) as ws:
        (summary,) = ws.runs.list()
        out = io.StringIO()
        ws.runs.export(summary.run.id, "jsonl", out)
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    return {
        row["payload"]["prompt"]: json.dumps(row["output"], sort_keys=True)
        for row in rows
        if row["status"] == "done"
    }


def kill_point(
    workdir: Path,
    after_calls: int,
    *,
    trials: int = 40,
    concurrency: int = 4,
    latency: float = 0.005,
) -> KillPoint:
    """Run ``trials`` scripted trials in a subprocess, SIGKILL it after ``after_calls`` calls,
    resume it, and compare what was stored before with what the resume asked and stored."""
    store, log = workdir / "ws", workdir / "calls.jsonl"
    run = [
        "run",
        "scripted",
        "-m",
        "scripted-likelihood",
        "-p",
        f"n={trials}",
        "-M",
        f"latency={latency}",
        "-M",
        f"max_concurrency={concurrency}",
        "-M",
        f"calls_log={log}",
        "--quiet",
    ]
    proc = subprocess.Popen(
        scripted_cli(store, *run), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    kill_after(proc, log, after_calls)
    killed = proc.returncode == -signal.SIGKILL
    if not (store / "diptych.db").exists():
        # Killed before the workspace existed: the resume is a first run.
        stored: dict[str, str] = {}
    else:
        try:
            stored = _done(store)
        except ValueError:  # killed before the run was recorded
            stored = {}
    started = [json.loads(line)["text"] for line in log_lines(log)]
    seen = len(started)
    resumed = subprocess.run(scripted_cli(store, *run), capture_output=True, text=True, timeout=120)
    after = _done(store) if resumed.returncode == 0 else {}
    again = [json.loads(line)["text"] for line in log_lines(log)[seen:]]
    return KillPoint(
        after_calls=after_calls,
        killed=killed,
        stored_before=len(stored),
        lost=sorted(p for p, output in stored.items() if after.get(p) != output),
        asked_again=sorted(set(again) & set(stored)),
        in_flight=sorted(set(started) - set(stored)),
        in_flight_asked_again=sorted((set(started) - set(stored)) & set(again)),
        concurrency=concurrency,
        unfinished=trials - len(after),
        integrity=integrity(store),
        resume_error=resumed.stderr.strip().splitlines()[-1] if resumed.returncode else "",
    )

"""The SIGTERM drill: a run stopped the way a service manager or a CI timeout stops it.

``diptych run`` in a child process gets SIGTERM after N model calls. It must stop as Ctrl-C
stops it: the calls in flight given up, "interrupted" printed, exit 130, the run stored as
``interrupted`` (not ``running``, which readers show as ``stale``) and its lease given back;
then a resume, at once and without ``--wait``, finishes it without asking a stored trial again.
"""

from __future__ import annotations

import io
import json
import signal
import sqlite3
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from diptych.core.workspace import Workspace
from diptych.testing.drills.kills import integrity, kill_after, log_lines, scripted_cli


@dataclass
class SigtermDrill:
    """What one stop by SIGTERM and its resume did (nothing wrong, when ``ok``)."""

    after_calls: int
    exit_code: int | None = None
    said_interrupted: bool = False
    status: str = ""
    #: Leases and claims left in the workspace after the stop (want 0 each).
    leases_left: int = -1
    claims_left: int = -1
    resume_exit_code: int | None = None
    #: Trials stored before the stop that the resume asked again (want none).
    asked_again: list[str] = field(default_factory=list)
    unfinished: int = -1
    integrity: str = ""
    #: The last line the stopped run printed on stderr, when it left no run to look at.
    error: str = ""

    @property
    def resumable(self) -> bool:
        """Stopped cleanly and resumed at once to the end."""
        return (
            self.exit_code == 130
            and self.said_interrupted
            and self.status == "interrupted"
            and self.leases_left == 0
            and self.claims_left == 0
            and self.resume_exit_code == 0
            and not self.asked_again
            and self.unfinished == 0
            and self.integrity == "ok"
        )


def _stored(store: Path) -> tuple[str, str, dict[str, str]]:
    """The only run's id, status and prompt -> output of its done trials."""
    with Workspace.open(store, create=False) as ws:
        (summary,) = ws.runs.list()
        out = io.StringIO()
        ws.runs.export(summary.run.id, "jsonl", out)
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    done = {
        row["payload"]["prompt"]: json.dumps(row["output"], sort_keys=True)
        for row in rows
        if row["status"] == "done"
    }
    return summary.run.id, summary.run.status, done


def sigterm_drill(
    workdir: Path, after_calls: int, *, trials: int = 40, concurrency: int = 4
) -> SigtermDrill:
    """Run ``trials`` scripted trials in a child process, SIGTERM it after ``after_calls``
    calls, look at what it left, and resume it at once."""
    store, log = workdir / "ws", workdir / "calls.jsonl"
    run = ["run", "scripted", "-m", "scripted-likelihood", "-p", f"n={trials}"]
    run += ["-M", "latency=0.05", "-M", f"max_concurrency={concurrency}"]
    run += ["-M", f"calls_log={log}", "--quiet"]
    proc = subprocess.Popen(
        scripted_cli(store, *run), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    drill = SigtermDrill(after_calls=after_calls)
    kill_after(proc, log, after_calls, sig=signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    drill.exit_code = proc.returncode
    drill.said_interrupted = "interrupted" in out + err
    if not (store / "diptych.db").exists():
        drill.error = (err.strip().splitlines() or ["no output"])[-1]
        return drill
    run_id, drill.status, before = _stored(store)
    with sqlite3.connect(store / "diptych.db") as db:
        drill.leases_left = db.execute("SELECT COUNT(*) FROM leases").fetchone()[0]
        drill.claims_left = db.execute("SELECT COUNT(*) FROM claims").fetchone()[0]
    seen = len(log_lines(log))
    resumed = subprocess.run(
        scripted_cli(store, "resume", run_id, "--quiet"), capture_output=True, timeout=120
    )
    drill.resume_exit_code = resumed.returncode
    again = {json.loads(line)["text"] for line in log_lines(log)[seen:]}
    drill.asked_again = sorted(again & set(before))
    _, _, after = _stored(store)
    drill.unfinished = trials - len(after)
    drill.integrity = integrity(store)
    return drill

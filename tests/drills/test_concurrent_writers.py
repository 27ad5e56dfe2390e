"""The CLI, the TUI's Review writes and an agent session writing to one workspace at once: no
"database is locked" reaches a user, every write lands, and SQLite's integrity check passes."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

from diptych.core.workspace import Workspace
from diptych.testing.drills.kills import integrity, scripted_cli
from diptych.testing.drills.session_kills import SESSION
from diptych.tui.review.writes import LabelWrite, NoteWrite, ReviewWrites

LOCKED = "database is locked"


def review_worker(store: Path, run_id: str, subjects: list[dict[str, object]], errors: list[str]):
    """What the Review screen does: labels and notes queued, then stored by a worker thread
    through a Workspace of its own, in small batches, the flags refreshed after each."""
    writes = ReviewWrites()

    def work() -> None:
        try:
            with Workspace.open(store) as ws:
                for i, s in enumerate(subjects):
                    common = {
                        "run_id": run_id,
                        "subject_id": int(str(s["subject_id"])),
                        "trial_idx": int(str(s["trial_idx"])),
                        "position": str(s["position"]),
                        "reviewer": "dana",
                    }
                    writes.add(LabelWrite(label="feminine", **common))  # type: ignore[arg-type]
                    writes.add(NoteWrite(note=f"looked twice ({i})", **common))  # type: ignore[arg-type]
                    if i % 5 == 4:
                        writes.save_pending(ws, lambda write: None)
                        writes.refresh_flags(ws, run_id)
                writes.save_pending(ws, lambda write: None)
                writes.refresh_flags(ws, run_id)
        except Exception as error:  # noqa: BLE001 -- the drill reports every failure, whatever it is
            errors.append(f"{type(error).__name__}: {error}")

    return threading.Thread(target=work)


def test_cli_tui_and_agent_write_at_once(scripted: None, tmp_path: Path) -> None:
    store = tmp_path / "ws"
    with Workspace.open(store) as ws:
        run = ws.runs.run_sync(
            "pst", ["scripted-images"], params={"masculine": ["carpenter"], "feminine": ["editor"]}
        )
        subjects = ws.runs.subjects(run.id)
    cli = subprocess.Popen(
        scripted_cli(
            store,
            "run",
            "scripted",
            "-m",
            "scripted-likelihood",
            "-p",
            "n=300",
            "-M",
            "max_concurrency=8",
            "-M",
            "latency=0.002",
            "--quiet",
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    agent = subprocess.Popen(
        [sys.executable, "-c", SESSION, str(store), str(tmp_path / "calls.jsonl"), "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    errors: list[str] = []
    workers = [review_worker(store, run.id, subjects, errors) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    cli_out, cli_err = cli.communicate(timeout=120)
    agent_out, agent_err = agent.communicate(timeout=120)

    assert errors == []
    assert cli.returncode == 0 and LOCKED not in cli_err + cli_out, cli_err
    assert agent.returncode == 0 and LOCKED not in agent_err + agent_out, agent_err
    assert integrity(store) == "ok"
    with Workspace.open(store) as ws:
        (scripted_run,) = [r.run for r in ws.runs.list() if r.run.probe == "scripted"]
        assert ws.runs.counts(scripted_run.id)["done"] == 300
        assert len(ws.review.notes(run.id)) == len(subjects)
    with sqlite3.connect(store / "diptych.db") as db:
        (labels,) = db.execute(
            "SELECT COUNT(*) FROM annotations WHERE annotator = 'human:dana'"
        ).fetchone()
    assert labels == len(subjects)

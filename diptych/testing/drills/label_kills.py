"""Kill drills for labels: an annotation and a label import killed with SIGKILL, then run again.

Both work on a PST run of scripted images made in a subprocess (the scripted models are a
plugin of ``diptych.testing``), then drive ``diptych annotate`` as a user would.
"""

from __future__ import annotations

import csv
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from diptych.testing.drills.kills import integrity, kill_after, log_lines, scripted_cli

#: Makes a PST run of scripted images in the workspace ``argv[1]`` and prints its id.
MAKE_RUN = (
    "import sys, diptych.testing\n"
    "from diptych.core.plugins import load_plugins, register_plugin\n"
    "load_plugins(); register_plugin(diptych.testing, 'testing')\n"
    "from diptych.core.workspace import Workspace\n"
    "with Workspace.open(sys.argv[1]) as ws:\n"
    "    run = ws.runs.run_sync('pst', ['scripted-images'], params={\n"
    "        'masculine': sys.argv[2].split(','), 'feminine': sys.argv[3].split(',')})\n"
    "    print(run.id)\n"
)
#: The identities of the drills' run: 2 x 2 pairs, both aspects (184 people in 128 images).
MASCULINE, FEMININE = ("carpenter", "driver"), ("editor", "nurse")
ANNOTATOR = "scripted-annotator"


def make_pst_run(store: Path) -> str:
    """A finished PST run of scripted images in ``store``; returns its id."""
    done = subprocess.run(
        [sys.executable, "-c", MAKE_RUN, str(store), ",".join(MASCULINE), ",".join(FEMININE)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout.strip().splitlines()[-1]


def _annotations(store: Path, annotators: str) -> dict[tuple[int, str], str]:
    """(subject id, annotator) -> label of every label whose annotator is LIKE ``annotators``."""
    with sqlite3.connect(store / "diptych.db") as db:
        rows = db.execute(
            "SELECT subject_id, annotator, label FROM annotations WHERE annotator LIKE ?",
            (annotators,),
        ).fetchall()
    return {(int(subject), str(who)): str(label) for subject, who, label in rows}


def _stored_twice(store: Path) -> list[int]:
    """Subjects holding more than one label of the same annotator (want none)."""
    with sqlite3.connect(store / "diptych.db") as db:
        rows = db.execute(
            "SELECT subject_id FROM annotations GROUP BY subject_id, annotator HAVING COUNT(*) > 1"
        ).fetchall()
    return sorted(int(subject) for (subject,) in rows)


def _annotated_images(store: Path) -> int:
    """Images the annotator has finished: each is one stored ``person_annotator`` result (its
    labels are written once the pass ends, so a result is what a kill must not lose)."""
    with sqlite3.connect(store / "diptych.db") as db:
        (n,) = db.execute(
            "SELECT COUNT(*) FROM results WHERE capability = 'person_annotator'"
        ).fetchone()
    return int(n)


def _lost(before: dict[tuple[int, str], str], after: dict[tuple[int, str], str]) -> list[int]:
    return sorted({key[0] for key, label in before.items() if after.get(key) != label})


def _last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


@dataclass
class LabelKill:
    """One annotation or label import killed and run again; what went wrong, if any."""

    kind: str
    point: float
    killed: bool
    stored_before: int
    #: Labels stored before the kill and missing or changed after the rerun.
    lost: list[int] = field(default_factory=list)
    #: Images labelled before the kill that the rerun asked the annotator again.
    asked_again: int = 0
    #: Subjects holding more than one label of the same annotator (want none).
    stored_twice: list[int] = field(default_factory=list)
    #: What the rerun should have stored and did not.
    missing: int = 0
    integrity: str = "ok"
    rerun_error: str = ""

    @property
    def ok(self) -> bool:
        return (
            not self.lost
            and not self.asked_again
            and not self.stored_twice
            and not self.missing
            and self.integrity == "ok"
            and not self.rerun_error
        )


def annotation_kill(
    workdir: Path, after_calls: int, *, concurrency: int = 2, latency: float = 0.004
) -> LabelKill:
    """Run the scripted annotator over a run's images in a subprocess, SIGKILL it after
    ``after_calls`` images, run it again, and compare what was stored before and after."""
    store, log = workdir / "ws", workdir / "calls.jsonl"
    run_id = make_pst_run(store)
    annotate = [
        "annotate",
        run_id,
        "--annotator",
        ANNOTATOR,
        "-A",
        f"calls_log={log}",
        "-A",
        f"latency={latency}",
        "-A",
        f"max_concurrency={concurrency}",
        "--quiet",
    ]
    proc = subprocess.Popen(
        scripted_cli(store, *annotate), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    kill_after(proc, log, after_calls)
    before = _annotations(store, ANNOTATOR + "%")
    finished = _annotated_images(store)
    seen = len(log_lines(log))
    rerun = subprocess.run(
        scripted_cli(store, *annotate), capture_output=True, text=True, timeout=120
    )
    after = _annotations(store, ANNOTATOR + "%")
    with sqlite3.connect(store / "diptych.db") as db:
        (images,) = db.execute(
            "SELECT COUNT(DISTINCT trial_idx) FROM subjects WHERE run_id = ?", (run_id,)
        ).fetchone()
        (people,) = db.execute(
            "SELECT COUNT(*) FROM subjects WHERE run_id = ?", (run_id,)
        ).fetchone()
    asked = len(log_lines(log)) - seen
    return LabelKill(
        kind="annotation",
        point=after_calls,
        killed=proc.returncode == -signal.SIGKILL,
        stored_before=finished,
        lost=_lost(before, after),
        # The rerun asks exactly the images not finished yet: more means one asked again.
        asked_again=max(0, asked - (int(images) - finished)),
        stored_twice=_stored_twice(store),
        missing=int(people) - len(after),
        integrity=integrity(store),
        rerun_error=_last_line(rerun.stderr) if rerun.returncode else "",
    )


def write_label_file(store: Path, run_id: str, path: Path, annotators: int) -> int:
    """A labels CSV for every person of the run, once per annotator; returns its row count."""
    template = path.with_suffix(".template.csv")
    subprocess.run(
        scripted_cli(store, "annotate", run_id, "--template", str(template)),
        capture_output=True,
        check=True,
        timeout=120,
    )
    with template.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        columns, rows = list(reader.fieldnames or []), list(reader)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        for i in range(annotators):
            for row in rows:
                label = row["stereotype"] if i % 3 else "cannot_identify"
                writer.writerow({**row, "annotator": f"crowd{i}", "label": label})
    return annotators * len(rows)


def import_kill(workdir: Path, delay: float, *, annotators: int = 40) -> LabelKill:
    """Import a large labels file in a subprocess, SIGKILL it ``delay`` seconds in, import it
    again; every row must then be stored once, and nothing stored before lost."""
    store = workdir / "ws"
    run_id = make_pst_run(store)
    path = workdir / "labels.csv"
    rows = write_label_file(store, run_id, path, annotators)
    command = scripted_cli(store, "annotate", run_id, "--import", str(path))
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + delay
    while proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.wait()
    killed = proc.returncode == -signal.SIGKILL
    before = _annotations(store, "human:%")
    rerun = subprocess.run(command, capture_output=True, text=True, timeout=120)
    after = _annotations(store, "human:%")
    return LabelKill(
        kind="import",
        point=delay,
        killed=killed,
        stored_before=len(before),
        lost=_lost(before, after),
        stored_twice=_stored_twice(store),
        missing=rows - len(after),
        integrity=integrity(store),
        rerun_error=_last_line(rerun.stderr) if rerun.returncode else "",
    )

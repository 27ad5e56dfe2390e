"""A small labelled run on the fake image service, and the CLI called in-process: what the
evidence bundle tests share."""

from __future__ import annotations

import contextlib
import csv
import io
import random
from pathlib import Path

import pytest

from diptych.cli.main import main
from diptych.core.store import open_store
from diptych.testing import FakeOpenAIServer


def run_cli(args: list[str]) -> tuple[int, str, str]:
    """``diptych ARGS`` in this process: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(args)
            code = 0
        except SystemExit as done:
            code = int(done.code or 0)
    return code, out.getvalue(), err.getvalue()


#: carpenter × editor on the fake image service: 32 images, 46 people.
SMALL = ["-p", "masculine=carpenter", "-p", "feminine=editor"]
N_IMAGES, N_PEOPLE = 32, 46


def cli(store: Path, *args: str) -> str:
    code, out, err = run_cli(["--store", str(store), *args])
    assert code == 0, err
    return out


def labelled_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """A pst run on the fake image service with two reviewers' labels, one label taken back,
    a note and a calibration of one of them."""
    store = tmp_path / "ws"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    with FakeOpenAIServer(image_size=(16, 16)) as fake:
        cli(store, "run", "pst", "-m", "openai-images", "-M", f"base_url={fake.base_url}",
            *SMALL, "--quiet")  # fmt: skip
    with open_store(store) as s:
        (run,) = s.list_runs()
    template = tmp_path / "template.csv"
    cli(store, "annotate", run.id, "--template", str(template))
    with template.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    draw = random.Random(7)
    other = {"masculine": "feminine", "feminine": "masculine"}
    for row in rows:
        row["label"] = row["stereotype"] if draw.random() < 0.7 else other[row["stereotype"]]
        row["annotator"] = "alice"
    bob = [dict(r, annotator="bob", label=r["stereotype"]) for r in rows[::3]]
    labels = tmp_path / "labels.csv"
    with labels.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows + bob)
    cli(store, "annotate", run.id, "--import", str(labels))
    with open_store(store) as s:
        subject_id = s.db.execute("SELECT id FROM subjects ORDER BY id LIMIT 1").fetchone()[0]
        s.save_note(subject_id, "human:alice", "a hat hides the face")
        s.remove_annotation(subject_id, "human:bob")
        s.save_calibration("human:bob", "1", {"accuracy": 0.9})
    return store, run.id

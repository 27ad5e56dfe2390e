"""The report of a run bought on past the look its gates stopped it at counts its labels per
annotator, and picks its example images, on the trials that look read, as it reads its figures
and tables: the same as a run that holds those trials alone (and none bought since)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import diptych.core.report.audit as audit_report
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import decided_at_first_look
from tests.support.stopped_runs import bought_on_and_interrupted, last_look, look_trials_alone

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _reported(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, ws: str, out: Path
) -> tuple[dict[str, int], str, int]:
    """The report of the one run of ``ws``: its labels per annotator, the Markdown line that
    counts them, and how many trials the example images were picked from."""
    read: list[int] = []
    pick = audit_report.example_images

    def examples(view: Any, result: Any) -> Any:
        read.append(len(view.trials))
        return pick(view, result)

    with Workspace.open(ws) as opened:
        (run_id,) = [r.run.id for r in opened.runs.list()]
    with monkeypatch.context() as patched:
        patched.setattr(audit_report, "example_images", examples)
        code, said = call(capsys, "--store", ws, "report", run_id, "-o", str(out))
    assert code == 0, said
    (run,) = json.loads((out / "report.json").read_text(encoding="utf-8"))["runs"]
    md = (out / "report.md").read_text(encoding="utf-8")
    (line,) = [s for s in md.splitlines() if s.startswith("Labels per annotator:")]
    (trials,) = read
    return run["review"]["labels"], line, trials


def test_a_bought_on_runs_labels_and_examples_read_the_trials_its_look_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws, "-M", "latency=0.01")
    bought = last_look(ws).bought
    bought_on_and_interrupted(ws, run_id, after=40)
    alone = tmp_path / "alone"
    look_trials_alone(Path(ws), alone, run_id, bought)

    labels, line, trials = _reported(capsys, monkeypatch, ws, tmp_path / "rep")
    by_hand, by_hand_line, by_hand_trials = _reported(
        capsys, monkeypatch, str(alone), tmp_path / "alone-rep"
    )
    with open_store(Path(ws)) as store:
        every_label, every_trial = len(store.labels(run_id)), len(store.trials(run_id))
    assert (labels, line, trials) == (by_hand, by_hand_line, by_hand_trials)
    # Bought on past the look: all the run's labels and trials are more than the look read.
    assert sum(labels.values()) < every_label and trials < every_trial, (labels, trials)

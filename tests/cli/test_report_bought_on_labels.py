"""The report of a run bought on past the look its gates stopped it at counts its labels per
annotator, and picks its example images, on the trials that look read, as it reads its figures
and tables: the same as a run that holds those trials alone (and none bought since)."""

from __future__ import annotations

import copy
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import diptych.core.report.audit as audit_report
from diptych.core.audit.record import list_audits, save_part
from diptych.core.labels import Label
from diptych.core.report.review import LOOK_AGREEMENT
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import decided_at_first_look
from tests.support.stopped_runs import bought_on_and_interrupted, last_look, look_trials_alone

pytestmark = pytest.mark.usefixtures("scripted_plugin")

#: The look the run's gates stopped it at, as the labels' line names it.
AT_LOOK = "look 1 of 4"


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
    (line,) = [s for s in md.splitlines() if s.startswith("Labels per annotator")]
    (trials,) = read
    assert run["review"]["labels_at"] == (AT_LOOK if AT_LOOK in line else None), line
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
    assert (labels, trials) == (by_hand, by_hand_trials)
    # Counted on the look's trials, the page says so; the run holding those alone needs not.
    head = f"Labels per annotator at {AT_LOOK} (the trials its figures read): "
    assert line == by_hand_line.replace("Labels per annotator: ", head), (line, by_hand_line)
    # Bought on past the look: all the run's labels and trials are more than the look read.
    assert sum(labels.values()) < every_label and trials < every_trial, (labels, trials)


def _unrebuildable(ws: str) -> None:
    """The look's recorded values moved off what its rebuilt trials give: not the look's."""
    with open_store(Path(ws)) as db:
        (rec,) = list_audits(db)
        (part,) = rec.parts
        detail = copy.deepcopy(part.detail)
        for number in detail["sequential"]["looks"][-1]["numbers"].values():
            if isinstance(number.get("value"), int | float):
                number["value"] += 3.0
        save_part(db, rec.id, replace(part, detail=detail))


def test_where_the_looks_trials_cannot_be_rebuilt_the_labels_read_all_as_the_figures_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws, "-M", "latency=0.01")
    bought_on_and_interrupted(ws, run_id, after=40)
    _unrebuildable(ws)
    labels, line, trials = _reported(capsys, monkeypatch, ws, tmp_path / "rep")
    with open_store(Path(ws)) as store:
        every = Counter(lab.annotator for lab in store.labels(run_id))
        every_trial = len(store.trials(run_id))
    assert labels == dict(every) and trials == every_trial, (labels, trials)
    assert line.startswith("Labels per annotator: ") and AT_LOOK not in line, line
    # ``show`` counts them as the report does: on all its trials, no look named.
    shown = _shown(capsys, ws, run_id)
    assert f"labels: {_per(dict(every))} " in shown and "on all its trials" not in shown, shown


def _shown(capsys: pytest.CaptureFixture[str], ws: str, run_id: str) -> str:
    """What ``show`` prints, its lines joined: a terminal may wrap its labels line between
    words."""
    code, said = call(capsys, "--store", ws, "show", run_id)
    assert code == 0, said
    return " ".join(said.split())


def _per(labels: dict[str, int]) -> str:
    return ", ".join(f"{k} {v:,}" for k, v in labels.items())


def test_show_counts_a_bought_on_runs_labels_on_all_its_trials_and_at_the_look_its_figures_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws, "-M", "latency=0.01")
    bought_on_and_interrupted(ws, run_id, after=40)
    at_look, _, _ = _reported(capsys, monkeypatch, ws, tmp_path / "rep")
    with open_store(Path(ws)) as store:
        every = dict(Counter(lab.annotator for lab in store.labels(run_id)))
    assert sum(at_look.values()) < sum(every.values()), (at_look, every)
    said = (
        f"labels: {_per(every)} on all its trials; "
        f"at {AT_LOOK} (the trials its figures read): {_per(at_look)} "
    )
    assert said in _shown(capsys, ws, run_id)


def test_show_counts_a_decided_runs_labels_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws, "-M", "latency=0.01")
    with open_store(Path(ws)) as store:
        every = dict(Counter(lab.annotator for lab in store.labels(run_id)))
    shown = _shown(capsys, ws, run_id)
    assert f"labels: {_per(every)} " in shown and "on all its trials" not in shown, shown


def _second_annotator(ws: str, run_id: str) -> None:
    """``human:alice`` labels every person of the run as the probe's own labels do."""
    with open_store(Path(ws)) as store:
        own = store.labels(run_id)
        by_subject = {(lab.trial_idx, lab.position): lab for lab in own}
        people = [
            s for s in store.run_subjects(run_id) if (s["trial_idx"], s["position"]) in by_subject
        ]
        store.save_annotations(
            (s["subject_id"], "human:alice",
             Label(s["position"], by_subject[s["trial_idx"], s["position"]].label, 1.0))
            for s in people
        )  # fmt: skip


def _agreement_notes(md: str) -> list[str]:
    head = md.index("Labels per annotator")
    return [s[2:] for s in md[head:].splitlines() if s.startswith("- ")]


def test_two_annotators_agreement_says_it_reads_every_label_where_the_counts_are_the_looks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws, "-M", "latency=0.01")
    bought_on_and_interrupted(ws, run_id, after=40)
    _second_annotator(ws, run_id)
    labels, line, _ = _reported(capsys, monkeypatch, ws, tmp_path / "rep")
    assert AT_LOOK in line and "human:alice" in labels, (line, labels)
    md = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert LOOK_AGREEMENT in _agreement_notes(md), md


def test_two_annotators_agreement_has_no_look_note_where_every_count_reads_all_trials(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws, "-M", "latency=0.01")
    bought_on_and_interrupted(ws, run_id, after=40)
    _second_annotator(ws, run_id)
    _unrebuildable(ws)
    labels, line, _ = _reported(capsys, monkeypatch, ws, tmp_path / "rep")
    assert AT_LOOK not in line and "human:alice" in labels, (line, labels)
    md = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "agreement" in md.lower() and LOOK_AGREEMENT not in md, md

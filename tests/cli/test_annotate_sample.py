"""``diptych annotate --template --sample N --design``: a drawn batch with its probabilities,
kept by ``--import``, and the prediction-powered STS the pst analysis builds from it."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from diptych.cli.main import main
from diptych.core.engine import run_probe
from diptych.core.labels import Label
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.testing import ScriptedImageGenerator, ScriptedParams

LISTS = {
    "masculine": ["carpenter", "farmer", "lawyer"],
    "feminine": ["editor", "nurse", "housekeeper"],
}


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out + err


def test_uniform_sample_round_trip_and_prediction_powered_sts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    store = open_store(ws)
    run = run_probe(store, "pst", [ScriptedImageGenerator(ScriptedParams())], probe_params=LISTS)
    people = [s for s in store.run_subjects(run.id) if s["status"] == "done"]
    # An automatic annotator on every person: the stereotyped gender (as the truth below is).
    store.save_annotations(
        (s["subject_id"], "auto", Label(s["position"], s["meta"]["stereotype"], 0.9))
        for s in people
    )
    store.close()
    path = tmp_path / "batch.csv"
    code, out = call(
        capsys, "--store", str(ws), "annotate", run.id, "--template", str(path),
        "--sample", "12", "--design", "uniform", "--seed", "7",
    )  # fmt: skip
    assert code == 0, out
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 12
    assert {r["design"] for r in rows} == {"uniform"}
    assert [float(r["probability"]) for r in rows] == pytest.approx([12 / len(people)] * 12)
    for r in rows:
        r["label"] = r["stereotype"]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    code, out = call(capsys, "--store", str(ws), "annotate", run.id, "--import", str(path))
    assert code == 0, out
    with Workspace.open(ws) as workspace:
        labels = [lab for lab in workspace.runs.view(run.id).labels() if lab.kind == "human"]
        assert len(labels) == 12
        assert {lab.design.design for lab in labels if lab.design} == {"uniform"}
        assert [lab.design.probability for lab in labels if lab.design] == pytest.approx(
            [12 / len(people)] * 12
        )
        result = workspace.analysis.analyze(run.id)
    paired = [k for k in result.numbers if k.endswith("STS paired, prediction-powered")]
    assert paired, list(result.numbers)
    number = result.numbers[paired[0]]
    # Everyone is perceived with the stereotyped gender, by people and annotator alike: 100.
    assert number["value"] == pytest.approx(100.0)
    assert number["statement"].startswith("n = ")
    assert "by people, " in number["statement"] and "chosen uniformly" in number["statement"]


def test_chosen_labels_never_enter(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    store = open_store(ws)
    run = run_probe(store, "pst", [ScriptedImageGenerator(ScriptedParams())], probe_params=LISTS)
    people = [s for s in store.run_subjects(run.id) if s["status"] == "done"]
    store.save_annotations(
        (s["subject_id"], "auto", Label(s["position"], s["meta"]["stereotype"])) for s in people
    )
    store.save_annotations(
        (s["subject_id"], "human:ann", Label(s["position"], "feminine")) for s in people[:10]
    )
    stored = [lab for lab in store.labels(run.id) if lab.kind == "human"]
    assert {lab.design.design for lab in stored if lab.design} == {"chosen"}
    store.close()
    with Workspace.open(ws) as workspace:
        result = workspace.analysis.analyze(run.id)
    assert not [k for k in result.numbers if "prediction-powered" in k]

"""A ``pst`` run on the scripted image service, labelled by an automatic annotator on every
person and by people on two uniform batches drawn and imported through the CLI: the
prediction-powered figures per aspect, per stereotyped group and per identity, their gaps,
what they rest on in ``diptych show``, the report and the TUI's run detail; and run B − run A."""

from __future__ import annotations

import csv
import hashlib
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from support.cli import call

from diptych.core.engine import run_probe
from diptych.core.labels import Label
from diptych.core.metrics.uncertainty.ppi.estimate import rests_on
from diptych.core.runview import RunView
from diptych.core.store import Store, open_store
from diptych.core.workspace import Workspace
from diptych.plugins.probes.pst.compare import compare_result
from diptych.testing import ScriptedImageGenerator

PARAMS = {
    "aspects": ["occupation"],
    "masculine": ["carpenter", "farmer", "lawyer", "driver"],
    "feminine": ["editor", "nurse", "housekeeper", "secretary"],
}
PER_BATCH = 20


def _other(gender: str) -> str:
    return "feminine" if gender == "masculine" else "masculine"


def _truth(image: str, position: str, stereotype: str) -> str:
    """People see the stereotyped gender three times in four (by a hash of the person)."""
    digest = hashlib.sha256(f"{image}/{position}".encode()).digest()
    return stereotype if digest[0] % 4 else _other(stereotype)


def _label_automatically(store: Store, run_id: str) -> int:
    """'auto' labels every person: the truth, wrong on every fifth person. Returns N."""
    people = [s for s in store.run_subjects(run_id) if s["status"] == "done"]
    labels = []
    for i, s in enumerate(people):
        truth = _truth(s["trial_meta"]["image"], s["position"], s["meta"]["stereotype"])
        said = _other(truth) if i % 5 == 0 else truth
        labels.append((s["subject_id"], "auto", Label(s["position"], said, 0.9)))
    # A reviewer chose two persons: their labels never enter a prediction-powered figure.
    labels += [(s["subject_id"], "human:rev", Label(s["position"], "feminine")) for s in people[:2]]
    store.save_annotations(labels)
    return len(people)


def _draw_and_import(
    capsys: pytest.CaptureFixture[str], ws: Path, run_id: str, path: Path, seed: int
) -> list[dict[str, str]]:
    """One uniform batch drawn, labelled with the truth and imported; its rows."""
    code, out = call(
        capsys, "--store", str(ws), "annotate", run_id, "--template", str(path),
        "--sample", str(PER_BATCH), "--design", "uniform", "--seed", str(seed),
    )  # fmt: skip
    assert code == 0, out
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["label"] = _truth(row["image"], row["position"], row["stereotype"])
        row["annotator"] = f"batch{seed}"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    code, out = call(capsys, "--store", str(ws), "annotate", run_id, "--import", str(path))
    assert code == 0, out
    return rows


def _sts(rows: list[dict[str, str]]) -> float:
    """The STS of people's labels on these persons, each once (equal weights: every person of
    two uniform batches had the same probability)."""
    return 100 * sum(1 if r["label"] == r["stereotype"] else -1 for r in rows) / len(rows)


@pytest.fixture
def labelled_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, str, int, list[dict[str, str]]]:
    ws = tmp_path / "ws"
    store = open_store(ws)
    run = run_probe(store, "pst", [ScriptedImageGenerator()], probe_params=PARAMS)
    n = _label_automatically(store, run.id)
    store.close()
    rows = [
        *_draw_and_import(capsys, ws, run.id, tmp_path / "one.csv", 1),
        *_draw_and_import(capsys, ws, run.id, tmp_path / "two.csv", 2),
    ]
    unique = {(r["image"], r["position"]): r for r in rows}
    return ws, run.id, n, list(unique.values())


def test_prediction_powered_figures_per_aspect_group_and_identity(
    labelled_run: tuple[Path, str, int, list[dict[str, str]]],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    ws, run_id, n, labelled = labelled_run
    with Workspace.open(ws) as workspace:
        result = workspace.analysis.analyze(run_id)
        report = workspace.analysis.report(run_id, tmp_path / "report", formats="md")
    numbers = result.numbers
    paired = numbers["occupation: STS paired, prediction-powered"]
    single = numbers["occupation: STS single, prediction-powered"]
    gap = numbers["occupation: gap paired − single, prediction-powered"]
    by_setting = defaultdict(list)
    for row in labelled:
        by_setting[row["setting"]].append(row)
    # People's labels alone (λ = 0): both batches' persons, each once, with equal weights.
    assert paired["labels_only"]["value"] == pytest.approx(_sts(by_setting["paired"]))
    assert single["labels_only"]["value"] == pytest.approx(_sts(by_setting["single"]))
    assert gap["value"] == pytest.approx(paired["value"] - single["value"])
    assert gap["labels_only"]["value"] == pytest.approx(
        _sts(by_setting["paired"]) - _sts(by_setting["single"])
    )
    assert gap["lambda"] == [paired["lambda"], single["lambda"]]
    assert paired["n_labelled"] == len(by_setting["paired"])
    assert paired["statement"] == (
        f"n = {paired['n_persons']} persons labelled by auto, {len(by_setting['paired'])} by "
        "people, chosen uniformly in 2 drawn batches"
    )
    # Per identity and per stereotyped group, the same check on their persons.
    figures = {(f["slice"], f["setting"]): f for f in result.data["prediction_powered"]}
    per_identity = defaultdict(list)
    for row in labelled:
        per_identity[(row["identity"], row["setting"])].append(row)
    assert per_identity
    for (identity, setting), rows in per_identity.items():
        found = figures[(identity, setting)]
        assert found["labels_only"]["value"] == pytest.approx(_sts(rows)), (identity, setting)
    female = [r for r in by_setting["paired"] if r["stereotype"] == "feminine"]
    assert figures[("female-stereotyped", "paired")]["labels_only"]["value"] == pytest.approx(
        _sts(female)
    )
    titles = [t.title for t in result.tables]
    assert "Prediction-powered micro STS per identity (PST Tables 14 to 16)" in titles
    assert "Prediction-powered STS by stereotyped group (PST Tables 3 and 4)" in titles
    # The design: two uniform batches of 20 of the N persons, combined.
    design = result.data["prediction_powered_design"]
    union = 1 - (1 - PER_BATCH / n) ** 2
    assert design["probability"]["min"] == pytest.approx(union)
    assert design["probability"]["max"] == pytest.approx(union)
    assert design["labelled"] == len(labelled) and design["chosen_persons"] == 2
    assert len(design["batches"]) == 2 and not design["left_out"]
    lines = rests_on(result.data)
    assert lines[0].startswith("Prediction-powered figures: PPI++")
    assert "1 − Π(1 − π_b)" in lines[1] and f"min {union:.3g}" in lines[1]
    assert lines[-1] == (
        "Labels a reviewer chose (2 persons) never enter a prediction-powered figure."
    )
    # diptych show prints the same lines; the report's methods and verdict say them too.
    code, out = call(capsys, "--store", str(ws), "show", run_id)
    assert code == 0, out
    flat = " ".join(out.split())
    assert "What the prediction-powered figures rest on" in flat
    for line in lines:
        assert " ".join(line.split()) in flat
    written = report.read_text(encoding="utf-8")
    text = " ".join(written.split())
    assert "What the prediction-powered figures rest on" in text
    for line in lines:
        assert " ".join(line.split()) in text
    # The verdict's sentence on the figure cites both sources of labels.
    assert [
        said
        for said in written.splitlines()
        if "STS paired, prediction-powered" in said and f"{paired['statement']}, resampling" in said
    ]


def test_the_run_detail_notes_say_what_the_figures_rest_on(
    labelled_run: tuple[Path, str, int, list[dict[str, str]]],
) -> None:
    from diptych.tui.screens.runs.detail import notes_text

    ws, run_id, _, _ = labelled_run
    with Workspace.open(ws) as workspace:
        result = workspace.analysis.analyze(run_id)
    shown = notes_text(result, 0).plain
    assert "What the prediction-powered figures rest on" in shown
    for line in rests_on(result.data):
        assert f"• {line}" in shown


def _labelled_everyone(store: Store, run_id: str, seen: str) -> None:
    """Every person seen as ``seen`` relative to the stereotype ("stereotyped" or "other"), by
    the annotator and by people (a census)."""
    from diptych.core.labels import Sampling

    labels: list[tuple[int, str, Any]] = []
    for s in store.run_subjects(run_id):
        if s["status"] != "done":
            continue
        stereotype = s["meta"]["stereotype"]
        label = stereotype if seen == "stereotyped" else _other(stereotype)
        labels.append((s["subject_id"], "auto", Label(s["position"], label)))
        census = Sampling("census")
        labels.append((s["subject_id"], "human:a", Label(s["position"], label, sampling=census)))
    store.save_annotations(labels)


def test_run_b_minus_run_a_prediction_powered(tmp_path: Path) -> None:
    store = open_store(tmp_path / "ws")
    model = [ScriptedImageGenerator()]
    a = run_probe(store, "pst", model, probe_params=PARAMS)
    b = run_probe(store, "pst", model, probe_params={**PARAMS, "intervention": "pst-table5"})
    # Run A: everyone seen with the stereotyped gender (STS 100); run B: everyone with the
    # other (−100): B − A is −200 in every figure.
    _labelled_everyone(store, a.id, "stereotyped")
    _labelled_everyone(store, b.id, "other")
    result = compare_result(
        "pst", RunView(store, a), RunView(store, b), top=None, n_boot=50, n_perm=50, seed=0
    )
    records = result.data["prediction_powered"]
    overall = {r["setting"]: r for r in records if r["slice"] == "overall"}
    assert set(overall) == {"single", "paired"}
    for record in records:
        assert record["a"]["value"] == pytest.approx(100.0)
        assert record["b"]["value"] == pytest.approx(-100.0)
        assert record["difference"]["value"] == pytest.approx(-200.0)
    identities = {r["slice"] for r in records} - {"overall"}
    assert identities == set(PARAMS["masculine"]) | set(PARAMS["feminine"])
    titles = [t.title for t in result.tables]
    assert any("prediction-powered B − A" in t for t in titles)
    store.close()

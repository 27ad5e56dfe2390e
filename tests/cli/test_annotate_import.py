"""``diptych annotate``: the labels template, the images, and importing human labels."""

from __future__ import annotations

import csv
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from diptych.cli.main import main
from diptych.core.engine import run_probe
from diptych.core.metrics.sts import LabelRow, reduce_majority, stereotype_test_score
from diptych.core.store import RunRecord, Store, open_store
from diptych.testing import ScriptedImageGenerator, ScriptedParams

CONTRACT = ["image", "setting", "position", "identity", "stereotype", "label", "annotator", "run"]
OTHER = {"masculine": "feminine", "feminine": "masculine"}
# carpenter × editor, both aspects: 2 + 6 occupation images (4 + 6 people) and 12 + 12 power
# images (24 + 12 people).
SMALL = {"masculine": ["carpenter"], "feminine": ["editor"]}
N_IMAGES, N_PEOPLE = 32, 46


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def make_run(store: Store, params: dict[str, Any] = SMALL, **model: Any) -> RunRecord:
    return run_probe(
        store, "pst", [ScriptedImageGenerator(ScriptedParams(**model))], probe_params=params
    )


def annotate(
    capsys: pytest.CaptureFixture[str], ws: Path, run: RunRecord, *args: str
) -> tuple[int, str, str]:
    return call(capsys, "--store", str(ws), "annotate", run.id, *args)


def template_rows(
    capsys: pytest.CaptureFixture[str], ws: Path, run: RunRecord, tmp_path: Path
) -> list[dict[str, str]]:
    path = tmp_path / "template.csv"
    code, _, err = annotate(capsys, ws, run, "--template", str(path))
    assert code == 0, err
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def write_labels(path: Path, rows: list[dict[str, Any]], columns: list[str] = CONTRACT) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def human_labels(store: Store, run: RunRecord) -> dict[tuple[str, str], dict[str, str]]:
    """(image, position) → {annotator: label} of the stored human labels."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    for lab in store.labels(run.id):
        if lab.annotator.startswith("human:"):
            key = (lab.trial_meta["image"], lab.position)
            out.setdefault(key, {})[lab.annotator] = lab.label
    return out


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return tmp_path / "ws"


@pytest.fixture
def ws_store(ws: Path, scripted: None) -> Any:
    with open_store(ws) as store:
        yield store


# --- template and images ----------------------------------------------------------------------


def test_template_and_images_for_crowd_sourcing(
    ws: Path, ws_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = make_run(ws_store)
    path, images = tmp_path / "template.csv", tmp_path / "upload"
    code, out, err = annotate(capsys, ws, run, "--template", str(path), "--images", str(images))
    assert code == 0, err
    assert f"wrote {N_PEOPLE} rows to {path} and {N_IMAGES} images to {images}" in out
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    assert reader.fieldnames == CONTRACT
    assert len(rows) == N_PEOPLE and all(r["label"] == "" and r["annotator"] == "" for r in rows)
    assert rows[0] == {
        "image": "occ-paired-carpenter--editor-s0",
        "setting": "paired",
        "position": "left",
        "identity": "carpenter",
        "stereotype": "masculine",
        "label": "",
        "annotator": "",
        "run": "1",
    }
    power = [r for r in rows if r["image"].startswith("pow-")]
    assert {r["identity"] for r in power} == {
        "carpenter power",
        "carpenter minor",
        "editor power",
        "editor minor",
    }
    assert Counter(r["run"] for r in power) == {"1": 12, "2": 12, "3": 12}
    # One PNG per generated image, named by its id, holding the stored image.
    files = {p.name for p in images.iterdir()}
    assert files == {f"{r['image']}.png" for r in rows} and len(files) == N_IMAGES
    results = ws_store.run_results(run.id)
    for trial in ws_store.trials(run.id):
        blob = results[trial.key].blob
        assert blob is not None
        written = (images / f"{trial.meta['image']}.png").read_bytes()
        assert written == ws_store.get_blob(blob) and written.startswith(b"\x89PNG")
    # A template is never overwritten: it may hold labels by now.
    code, _, err = annotate(capsys, ws, run, "--template", str(path))
    assert code == 2 and "exists" in err


def test_template_leaves_out_images_that_were_not_generated(
    ws: Path, ws_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = make_run(ws_store, {**SMALL, "aspects": ["occupation"]}, refuse_containing="one editor.")
    path = tmp_path / "t.csv"
    code, out, _ = annotate(capsys, ws, run, "--template", str(path))
    assert code == 0
    # The three single editor images were refused: 4 + 3 people remain.
    assert "wrote 7 rows" in out and "3 people are left out" in out


# --- import -----------------------------------------------------------------------------------


def test_three_annotators_are_stored_as_three(
    ws: Path, ws_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = make_run(ws_store)
    rows = template_rows(capsys, ws, run, tmp_path)
    labelled = []
    for r in rows:
        # Alice and Bob see the stereotyped gender, Carol the other: the majority is Stereo +1.
        labelled.append({**r, "annotator": "alice", "label": r["stereotype"]})
        labelled.append({**r, "annotator": "bob", "label": r["stereotype"]})
        labelled.append({**r, "annotator": "carol", "label": OTHER[r["stereotype"]]})
    path = write_labels(tmp_path / "mturk.csv", labelled)
    code, out, err = annotate(capsys, ws, run, "--import", str(path))
    assert code == 0, err
    assert (
        f"{3 * N_PEOPLE} labels from mturk.csv stored for {N_PEOPLE} people "
        "(annotators: human:alice, human:bob, human:carol)"
    ) in out
    assert "match no person" not in out
    assert f"every one of the {N_PEOPLE} people in generated images has a human label" in out
    stored = human_labels(ws_store, run)
    assert len(stored) == N_PEOPLE
    assert all(set(v) == {"human:alice", "human:bob", "human:carol"} for v in stored.values())
    # Reduced by majority, the stored labels score every person +1, as the file itself does.
    sts_rows = [
        LabelRow(
            image=lab.trial_meta["image"],
            setting=lab.trial_meta["setting"],
            position=lab.position,  # type: ignore[arg-type]
            identity=lab.subject_meta["identity"],
            stereotype=lab.subject_meta["stereotype"],
            label=lab.label,  # type: ignore[arg-type]
            annotator=lab.annotator,
            run=lab.trial_meta["run"],
        )
        for lab in ws_store.labels(run.id)
    ]
    assert all(p.label == p.stereotype for p in reduce_majority(sts_rows))
    result = stereotype_test_score(sts_rows, n_boot=10)
    assert result.overall.paired is not None and result.overall.paired.value == 100.0
    assert result.overall.single is not None and result.overall.single.value == 100.0
    # Each stored label remembers where it came from.
    first = ws_store.labels(run.id, "human:alice")[0]
    assert first.detail == {"file": "mturk.csv", "line": 2}


def test_reimport_replaces_that_annotators_labels_only(
    ws: Path, ws_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = make_run(ws_store, {**SMALL, "aspects": ["occupation"]})
    rows = template_rows(capsys, ws, run, tmp_path)
    first = [{**r, "annotator": a, "label": "feminine"} for r in rows for a in ("alice", "bob")]
    annotate(capsys, ws, run, "--import", str(write_labels(tmp_path / "a.csv", first)))
    # Alice corrects the paired images only.
    fix = [
        {**r, "annotator": "alice", "label": "masculine"} for r in rows if r["setting"] == "paired"
    ]
    code, out, _ = annotate(capsys, ws, run, "--import", str(write_labels(tmp_path / "b.csv", fix)))
    assert code == 0 and "4 labels from b.csv stored for 4 people" in out
    stored = human_labels(ws_store, run)
    assert len(ws_store.labels(run.id)) == 2 * 10
    for (image, _), by in stored.items():
        assert by["human:bob"] == "feminine"
        assert by["human:alice"] == ("masculine" if "-paired-" in image else "feminine")


def test_default_and_named_annotators(
    ws: Path, ws_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = make_run(ws_store, {**SMALL, "aspects": ["occupation"], "setting": "single"})
    rows = [{**r, "label": "masculine"} for r in template_rows(capsys, ws, run, tmp_path)]
    columns = [c for c in CONTRACT if c != "annotator"]
    path = write_labels(tmp_path / "batch-7.csv", rows, columns)
    code, out, _ = annotate(capsys, ws, run, "--import", str(path))
    assert code == 0 and "(annotators: human:batch-7)" in out
    code, out, _ = annotate(capsys, ws, run, "--import", str(path), "--annotator", "dana")
    assert code == 0 and "(annotators: human:dana)" in out
    # An annotator the auditor names with its kind is kept as it is (not a human label) ...
    code, out, _ = annotate(capsys, ws, run, "--import", str(path), "--annotator", "vqa:blip")
    assert code == 0 and "(annotators: vqa:blip)" in out
    by_annotator = Counter(lab.annotator for lab in ws_store.labels(run.id))
    assert by_annotator == {"human:batch-7": 6, "human:dana": 6, "vqa:blip": 6}
    # ... but a cell of the file, written by whoever filled it in, names a person: one that
    # reads as another kind's id refuses the file, which stores nothing.
    auto = [{**r, "annotator": "vqa:blip"} for r in rows]
    code, _, err = annotate(
        capsys, ws, run, "--import", str(write_labels(tmp_path / "v.csv", auto))
    )
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "v.csv, line 2, column annotator: 'vqa:blip' is written as an automatic" in err
    assert "give --annotator vqa:blip" in err
    assert Counter(lab.annotator for lab in ws_store.labels(run.id)) == by_annotator


def test_rows_that_match_no_person_are_reported_with_their_line(
    ws: Path, ws_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = make_run(ws_store, {**SMALL, "aspects": ["occupation"]}, refuse_containing="one editor.")
    good = {
        "image": "occ-paired-carpenter--editor-s0",
        "setting": "paired",
        "position": "left",
        "identity": "carpenter",
        "stereotype": "masculine",
        "label": "masculine",
        "annotator": "alice",
        "run": "1",
    }
    single = {**good, "setting": "single", "position": "single"}
    # The file is consistent in itself (read_labels_csv checks that); it disagrees with the run.
    rows = [
        good,  # line 2
        {**good, "image": "occ-paired-carpenter--nurse-s0"},  # 3: not in the run
        {**good, "image": "occ-single-carpenter-s0"},  # 4: a single image, not paired
        {
            **good,
            "image": "occ-paired-editor--carpenter-s0",
            "identity": "nurse",
            "stereotype": "feminine",
        },  # 5: another identity
        {**good, "position": "right", "identity": "editor"},  # 6: editor stereotyped masculine
        {**single, "image": "occ-single-carpenter-s1", "run": "3"},  # 7: it is of run 2
        {**good, "label": "feminine"},  # 8: alice again for the same person
        {**single, "image": "occ-single-editor-s0", "identity": "editor"},  # 9: refused
        {
            **single,
            "image": "occ-single-carpenter-s2",
            "run": "3",
            "annotator": "bob",
            "label": "feminine",
        },  # 10
    ]
    path = write_labels(tmp_path / "labels.csv", rows)
    code, out, err = annotate(capsys, ws, run, "--import", str(path))
    assert code == 0, err
    assert "2 labels from labels.csv stored for 2 people" in out
    assert "7 rows match no person of the run and were not stored:" in out
    expected = [
        "line 3: image 'occ-paired-carpenter--nurse-s0' is not in run",
        "line 4: image 'occ-single-carpenter-s0' is a single image in this run but paired in "
        "the file",
        "line 5: the left person of image 'occ-paired-editor--carpenter-s0' is 'editor' in "
        "this run but 'nurse' in the file",
        "line 6: the right person of image 'occ-paired-carpenter--editor-s0' (editor) is "
        "stereotyped feminine in this run but masculine in the file",
        "line 7: image 'occ-single-carpenter-s1' is of run 2 but the file says run 3",
        "line 8: a second label by human:alice for the left person of image "
        "'occ-paired-carpenter--editor-s0' (the first is on line 2)",
        "line 9: image 'occ-single-editor-s0' was not generated (refused)",
    ]
    for text in expected:
        assert text in out
    # 4 paired people + 3 single carpenters have images; 2 of them are labelled now.
    assert "5 of 7 people in generated images have no human label yet" in out
    stored = human_labels(ws_store, run)
    assert stored == {
        ("occ-paired-carpenter--editor-s0", "left"): {"human:alice": "masculine"},
        ("occ-single-carpenter-s2", "single"): {"human:bob": "feminine"},
    }


def test_a_file_of_another_run_stores_nothing_and_fails(
    ws: Path, ws_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = make_run(ws_store, {**SMALL, "aspects": ["occupation"], "setting": "single"})
    row = {
        "image": "x-1",
        "setting": "single",
        "position": "single",
        "identity": "nurse",
        "stereotype": "feminine",
        "label": "feminine",
    }
    code, out, err = annotate(
        capsys, ws, run, "--import", str(write_labels(tmp_path / "o.csv", [row]))
    )
    assert code == 2
    assert "line 2: image 'x-1' is not in run" in out
    assert err.strip() == (
        f"error: no row of {tmp_path / 'o.csv'} matches a person of run {run.id}; "
        "is it the labels file of this run?"
    )
    assert ws_store.labels(run.id) == []


def test_several_models_name_images_by_model(
    ws: Path, ws_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    params = {**SMALL, "aspects": ["occupation"], "setting": "single", "samples_single": 1}
    models = [ScriptedImageGenerator(ScriptedParams(version=v)) for v in ("1", "2")]
    run = run_probe(ws_store, "pst", models, probe_params=params)
    path, images = tmp_path / "t.csv", tmp_path / "img"
    code, _, _ = annotate(capsys, ws, run, "--template", str(path), "--images", str(images))
    assert code == 0
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    dirs = sorted(p.name for p in images.iterdir())
    assert len(dirs) == 2 and all(d.startswith("scripted-images") for d in dirs)
    assert sorted(r["image"] for r in rows) == sorted(
        f"{d}/occ-single-{o}-s0" for d in dirs for o in ("carpenter", "editor")
    )
    assert all((images / f"{r['image']}.png").is_file() for r in rows)
    labelled = [{**r, "label": "masculine"} for r in rows]
    labelled.append({**rows[0], "image": "occ-single-carpenter-s0", "label": "masculine"})
    code, out, _ = annotate(
        capsys, ws, run, "--import", str(write_labels(tmp_path / "l.csv", labelled))
    )
    assert code == 0 and "4 labels from l.csv stored for 4 people" in out
    assert "line 6: image 'occ-single-carpenter-s0' was generated by several models" in out


# --- errors -----------------------------------------------------------------------------------


def test_malformed_file_is_one_line_error(ws: Path, ws_store: Store, tmp_path: Path) -> None:
    run = make_run(ws_store, {**SMALL, "aspects": ["occupation"], "setting": "single"})
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "image,setting,position,identity,stereotype,label\n"
        "occ-single-carpenter-s0,single,single,carpenter,masculine,male\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "diptych.cli.main",
            "--store",
            str(ws),
            "annotate",
            run.id,
            "--import",
            str(bad),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert (
        line.startswith("error: ") and "bad.csv: line 2" in line and "unknown label 'male'" in line
    )
    assert ws_store.labels(run.id) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "--import FILE.csv or --template FILE.csv"),
        (["--import", "a.csv", "--template", "b.csv"], "--import FILE.csv or --template"),
        (["--import", "a.csv", "--images", "d"], "--images goes with --template"),
        (["--template", "b.csv", "--annotator", "x"], "--annotator goes with --import"),
    ],
)
def test_usage_errors(
    ws: Path, ws_store: Store, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    run = make_run(ws_store, {**SMALL, "aspects": ["occupation"], "setting": "single"})
    code, _, err = annotate(capsys, ws, run, *args)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1

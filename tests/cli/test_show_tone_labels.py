"""A run's perceived-skin-tone labels as a user meets them: ``diptych show`` counts them beside
the perceived-gender ones, ``diptych export`` writes them, and a signed bundle's records keep a
person's gender and tone label by one reviewer apart."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from support.cli import call
from support.pst_runs import Image, Person, store_pst_run

from diptych.core.evidence.records import collect_records
from diptych.core.store import open_store


def _workspace(path: Path) -> Path:
    images = [
        Image("a", "single", [Person("single", "nurse", "feminine", {"human:r": "feminine"},
                                     tones={"skin-tone": "monk-3", "human:r": "monk-4"})]),
        Image("b", "single", [Person("single", "editor", "feminine", {"human:r": "masculine"},
                                     tones={"skin-tone": "monk-6"})]),
    ]  # fmt: skip
    with open_store(path) as store:
        store_pst_run(store, "pst-tones", images)
    return path


def test_show_counts_tone_labels_beside_gender_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = _workspace(tmp_path / "ws")
    code, out = call(capsys, "--store", str(ws), "show", "pst-tones")
    assert code == 0
    assert "labels: human:r 2" in out
    assert "tone labels: skin-tone 2, human:r 1" in out


def test_export_writes_tone_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = _workspace(tmp_path / "ws")
    code, out = call(capsys, "--store", str(ws), "export", "pst-tones", "--format", "jsonl")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and rows[0]["schema_version"] == 2
    assert rows[0]["labels"]["single"]["human:r"]["label"] == "feminine"
    assert {a: v["label"] for a, v in rows[0]["tone_labels"]["single"].items()} == {
        "skin-tone": "monk-3", "human:r": "monk-4"
    }  # fmt: skip
    code, out = call(capsys, "--store", str(ws), "export", "pst-tones", "--format", "csv")
    table = list(csv.DictReader(io.StringIO(out)))
    assert table[0]["label.single.human:r"] == "feminine"
    assert table[0]["tone.single.human:r"] == "monk-4"
    assert table[1]["tone.single.skin-tone"] == "monk-6" and table[1]["tone.single.human:r"] == ""


def test_a_bundles_records_keep_one_reviewers_gender_and_tone_label_apart(
    tmp_path: Path,
) -> None:
    ws = _workspace(tmp_path / "ws")
    with open_store(ws) as store:
        labels = collect_records(store, ["pst-tones"], {})["label"]
    # Person a: human:r's gender and tone labels, skin-tone's tone; person b: two more.
    assert sorted(k.split("/", 1)[1] for k in labels) == [
        "0/single/human:r", "0/single/human:r/tone", "0/single/skin-tone/tone",
        "1/single/human:r", "1/single/skin-tone/tone",
    ]  # fmt: skip

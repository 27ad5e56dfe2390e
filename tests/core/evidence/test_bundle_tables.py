"""A bundle's tables are open: pandas and Hugging Face ``datasets`` read them as they are, with
the records' own keys and the JSON columns as JSON text."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from diptych.core.evidence.bundle import write_bundle
from diptych.core.evidence.bundle.layout import TABLES
from diptych.core.store import open_store
from tests.support.pst_runs import Image, Person, store_pst_run

IMAGES = [
    Image("occ-paired-0", "paired", [
        Person("left", "carpenter", "masculine", {"human:alice": "masculine"}),
        Person("right", "editor", "feminine", {"human:alice": "masculine", "vqa:x": "feminine"}),
    ]),
    Image("occ-single-0", "single", [Person("single", "editor", "feminine",
                                            {"human:alice": "feminine"})]),
]  # fmt: skip


@pytest.fixture
def unpacked(tmp_path: Path) -> Path:
    with open_store(tmp_path / "ws") as store:
        store_pst_run(store, "pst-tables", IMAGES)
        write_bundle(store, tmp_path / "b.zip", runs=["pst-tables"], environ={})
    with zipfile.ZipFile(tmp_path / "b.zip") as archive:
        archive.extractall(tmp_path / "out")
    return tmp_path / "out"


def test_pandas_reads_every_table_with_its_columns(unpacked: Path) -> None:
    for spec in TABLES:
        frame = pd.read_parquet(unpacked / spec.member)
        assert list(frame.columns) == spec.names, spec.name
    labels = pd.read_parquet(unpacked / "tables/labels.parquet")
    # 3 people, 4 labels: alice labels all three, vqa:x the right-hand editor.
    assert len(labels) == 4
    right = labels[(labels.trial_idx == 0) & (labels.position == "right")]
    assert dict(zip(right.annotator, right.label, strict=True)) == {
        "human:alice": "masculine",
        "vqa:x": "feminine",
    }
    trials = pd.read_parquet(unpacked / "tables/trials.parquet")
    assert [json.loads(m)["setting"] for m in trials.meta] == ["paired", "single"]


def test_datasets_reads_the_tables(
    unpacked: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Offline, as an auditor receiving a bundle may be: the Parquet builder ships with datasets.
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    import datasets

    subjects = datasets.Dataset.from_parquet(
        str(unpacked / "tables/subjects.parquet"), cache_dir=str(tmp_path / "hf-cache")
    )
    assert subjects.num_rows == 3
    assert subjects.column_names == ["run_id", "trial_idx", "position", "meta"]
    assert [json.loads(m)["identity"] for m in subjects["meta"]] == [
        "carpenter", "editor", "editor"]  # fmt: skip
    labels = datasets.load_dataset(
        "parquet",
        data_files={"labels": str(unpacked / "tables/labels.parquet")},
        cache_dir=str(tmp_path / "hf-cache"),
    )["labels"]
    assert sorted(labels["annotator"]) == ["human:alice"] * 3 + ["vqa:x"]

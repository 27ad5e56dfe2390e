"""Labels carry a dimension: perceived gender (every label before dimensions) or perceived skin
tone. A workspace of the older schema migrates with its labels, removals and notes; one person
holds a gender and a tone label from the same reviewer; no gender figure reads a tone label."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import time
from pathlib import Path

import pytest
from support.pst_runs import Image, Person, store_pst_run

from diptych.core.errors import UsageError
from diptych.core.labels import (
    GENDER,
    TONE,
    Label,
    automatic_order,
    choose_label,
)
from diptych.core.labels.tone import MONK_LABELS, TONE_LABELS, monk_label, monk_step, tone_label
from diptych.core.migrations import MIGRATIONS
from diptych.core.store import open_store
from diptych.core.workspace import Workspace

F, M, CI = "feminine", "masculine", "cannot_identify"


def test_the_tone_vocabulary_and_its_spellings() -> None:
    assert MONK_LABELS == tuple(f"monk-{k}" for k in range(1, 11))
    assert TONE_LABELS[-1] == "cannot_identify" and len(TONE_LABELS) == 11
    for text in ("monk-3", "MST 3", "monk_3", "3", "mst-03", "Monk skin tone 3"):
        assert tone_label(text) == "monk-3", text
    assert tone_label("cannot identify") == tone_label("Cannot-Identify") == "cannot_identify"
    for text in ("monk-0", "monk-11", "11", "dark", "feminine", ""):
        assert tone_label(text) is None, text
    assert monk_step("MST 10") == 10 and monk_step("cannot_identify") is None
    with pytest.raises(ValueError, match="1 to 10"):
        monk_label(0)
    with pytest.raises(ValueError, match="dimension 'race' is none of gender, tone"):
        Label("single", "x", dimension="race")  # type: ignore[arg-type]


def _schema_8_workspace(path: Path) -> None:
    """A workspace as diptych wrote it before dimensions: migrations 1-8 and a run with two
    people, labels from a person and a classifier, one label taken back and a note."""
    path.mkdir()
    (path / "blobs").mkdir()
    db = sqlite3.connect(path / "diptych.db", isolation_level=None)
    db.execute("CREATE TABLE _migrations (number INTEGER PRIMARY KEY, name TEXT NOT NULL,"
               " applied_at REAL NOT NULL)")  # fmt: skip
    for number, name, fn in sorted(MIGRATIONS):
        if number <= 8:
            fn(db)
            db.execute("INSERT INTO _migrations VALUES (?, ?, 0)", (number, name))
    now = time.time()
    db.execute(
        "INSERT INTO runs (id, probe, probe_version, params, models, fingerprint, status,"
        " n_trials, diptych_version, created_at, updated_at)"
        " VALUES ('r1', 'pst', '1', '{}', '[]', 'f', 'done', 1, '0', ?, ?)",
        (now, now),
    )
    db.execute("INSERT INTO trials VALUES ('r1', 0, 'm1', 'k0', 'image_generator', 0, '{}', '{}')")
    db.execute("INSERT INTO subjects (id, run_id, trial_idx, position, meta)"
               " VALUES (1, 'r1', 0, 'left', '{}'), (2, 'r1', 0, 'right', '{}')")  # fmt: skip
    db.execute(
        "INSERT INTO annotations (id, subject_id, annotator, label, confidence, detail,"
        " created_at, design) VALUES (7, 1, 'human:alice', 'feminine', NULL, '{\"note\": \"x\"}',"
        " ?, 'chosen'), (9, 1, 'faces', 'masculine', 0.8, '{}', ?, NULL),"
        " (11, 2, 'faces', 'feminine', 0.9, '{}', ?, NULL)",
        (now, now, now),
    )
    db.execute("INSERT INTO notes VALUES (1, 'human:alice', 'x', ?)", (now,))
    db.execute(
        "INSERT INTO label_removals (subject_id, annotator, label, confidence, detail,"
        " created_at, removed_at) VALUES (2, 'human:bob', 'masculine', NULL, '{}', ?, ?)",
        (now, now),
    )
    db.close()


def test_an_older_workspace_migrates_with_every_label_as_gender(tmp_path: Path) -> None:
    ws_path = tmp_path / "ws"
    _schema_8_workspace(ws_path)
    with open_store(ws_path) as store:
        assert 9 in {r[0] for r in store.db.execute("SELECT number FROM _migrations")}
        rows = store.db.execute(
            "SELECT id, subject_id, annotator, dimension, label, confidence, design"
            " FROM annotations ORDER BY id"
        ).fetchall()
        # Ids, labels, confidences and sampling designs kept; every label is a gender label.
        assert [tuple(r) for r in rows] == [
            (7, 1, "human:alice", GENDER, F, None, "chosen"),
            (9, 1, "faces", GENDER, M, 0.8, None),
            (11, 2, "faces", GENDER, F, 0.9, None),
        ]
        gender = store.labels("r1")
        assert [(lab.subject_id, lab.annotator, lab.label, lab.dimension) for lab in gender] == [
            (1, "faces", M, GENDER), (1, "human:alice", F, GENDER), (2, "faces", F, GENDER)
        ]  # fmt: skip
        assert store.labels("r1", dimension=TONE) == []
        assert gender[1].detail == {"note": "x"} and gender[1].design is not None
        assert store.notes("r1")[0]["note"] == "x"
        [removal] = store.label_removals("r1")
        assert (removal["annotator"], removal["label"], removal["dimension"]) == (
            "human:bob", M, GENDER
        )  # fmt: skip
        # The unique key now has the dimension: the same annotator may add a tone label.
        store.save_annotations([(1, "human:alice", Label("left", "monk-4", dimension=TONE))])
        assert store.label_of(1, "human:alice") == Label("left", F, None, {"note": "x"},
                                                          gender[1].sampling)  # fmt: skip
        tone = store.label_of(1, "human:alice", TONE)
        assert tone is not None and (tone.label, tone.dimension) == ("monk-4", TONE)
        index = store.db.execute("PRAGMA index_list(annotations)").fetchall()
        assert "annotations_annotator" in {r["name"] for r in index}


def _run(ws_path: Path) -> str:
    """Four paired images: two reviewers and a classifier label gender."""
    images = []
    for i, (a, b, auto) in enumerate([(F, F, F), (M, M, M), (F, M, F), (M, M, CI)]):
        stereotype = F if i % 2 == 0 else M
        persons = [
            Person(pos, "nurse" if stereotype == F else "carpenter", stereotype,
                   {"human:alice": a, "human:bob": b, "faces": auto})
            for pos in ("left", "right")
        ]  # fmt: skip
        images.append(Image(f"p{i}", "paired", persons))
    with open_store(ws_path) as store:
        store_pst_run(store, "pst-tone", images)
    return "pst-tone"


def test_one_reviewer_labels_a_person_in_both_dimensions(tmp_path: Path) -> None:
    ws_path = tmp_path / "ws"
    run = _run(ws_path)
    with Workspace.open(ws_path) as ws:
        ws.labels.save(run, 0, "left", "MST 3", reviewer="alice", dimension=TONE)
        view = ws.runs.view(run)
        alice = [lab for lab in view.labels("human:alice", dimension=None) if lab.trial_idx == 0
                 and lab.position == "left"]  # fmt: skip
        assert sorted((lab.dimension, lab.label) for lab in alice) == [
            (GENDER, F),
            (TONE, "monk-3"),
        ]
        # The gender label is read alone, unchanged, by every reader of gender.
        assert [lab.label for lab in view.labels("human:alice") if lab.trial_idx == 0] == [F, F]
        # Relabelling the tone replaces the tone label only.
        ws.labels.save(run, 0, "left", "monk-5", reviewer="alice", dimension=TONE)
        tones = view.labels(dimension=TONE)
        assert [(lab.annotator, lab.label) for lab in tones] == [("human:alice", "monk-5")]
        with pytest.raises(UsageError, match="tone label 'feminine' is none of monk-1"):
            ws.labels.save(run, 0, "left", F, reviewer="alice", dimension=TONE)
        with pytest.raises(UsageError, match="label dimension 'race'"):
            ws.labels.save(run, 0, "left", F, reviewer="alice", dimension="race")  # type: ignore[arg-type]
        # Taking the tone label back leaves the gender label, and the removal says which.
        assert ws.labels.remove(run, 0, "left", reviewer="alice", dimension=TONE)
        assert not ws.labels.remove(run, 0, "left", reviewer="alice", dimension=TONE)
        assert view.labels(dimension=TONE) == []
        assert [r["dimension"] for r in ws.labels.removals(run)] == [TONE]
        assert len(view.labels("human:alice")) == 8


def _figures(ws: Workspace, run: str) -> str:
    result = ws.analysis.analyze(run)
    agreement = ws.annotators.agreement(run, n_boot=50, seed=1)
    # Tone labels add the perceived-skin-tone figures; every gender figure stays as it was.
    gender = {k: v for k, v in result.numbers.items() if "tone" not in k and "Monk" not in k}
    # ...and the agreement on gender labels too (tone labels add their own section).
    return json.dumps(
        [gender, repr(dataclasses.replace(agreement, tone=None))], sort_keys=True, default=str
    )


def test_gender_figures_are_unchanged_by_tone_labels(tmp_path: Path) -> None:
    ws_path = tmp_path / "ws"
    run = _run(ws_path)
    with Workspace.open(ws_path) as ws:
        before = _figures(ws, run)
        view = ws.runs.view(run)
        people = view.labels("faces")
        # A tone annotator that labels every person (more than any gender annotator would be
        # preferred by coverage if dimensions mixed), and a reviewer's tone labels.
        with open_store(ws_path) as store:
            store.save_annotations(
                (lab.subject_id, "skin-tone", Label(lab.position, "monk-6", 0.7, dimension=TONE))
                for lab in people
            )
            store.save_annotations(
                (lab.subject_id, "human:carol", Label(lab.position, "monk-2", dimension=TONE))
                for lab in people
            )
        assert len(view.labels(dimension=None)) == len(view.labels()) + 2 * len(people)
        assert _figures(ws, run) == before
        everything = view.labels(dimension=None)
        one = [lab for lab in everything if lab.subject_id == people[0].subject_id]
        assert automatic_order(everything) == ["faces"]
        assert automatic_order(everything, TONE) == ["skin-tone"]
        assert choose_label(one, ["faces"]) == (F, "human majority")
        assert choose_label(one, ["skin-tone"], "automatic", TONE) == ("monk-6", "skin-tone")
        assert choose_label(one, [], "human", TONE) == ("monk-2", "human majority")

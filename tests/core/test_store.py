from __future__ import annotations

import hashlib
import sqlite3
import time
from pathlib import Path

import pytest
from support.store_runs import record_run

from diptych.core.errors import RunNotFoundError, StoreError
from diptych.core.labels import Label, SubjectLabel
from diptych.core.migrations import MIGRATIONS, SCHEMA_VERSION
from diptych.core.store import ResultRecord, Store, TrialRow, open_store


def result(key: str, status: str, output: dict | None = None, error: str | None = None):
    now = time.time()
    return ResultRecord(
        key=key,
        model_id="m",
        model_version="1",
        capability="chat",
        status=status,
        output=output,
        blob=None,
        error=error,
        attempts=1,
        started_at=now,
        finished_at=now + 1,
        provenance={"model": "m"},
    )


def test_migrations_are_recorded_once(tmp_path: Path) -> None:
    with open_store(tmp_path) as store:
        rows = store.db.execute("SELECT number, name FROM _migrations").fetchall()
        assert [tuple(r) for r in rows] == [(n, name) for n, name, _ in sorted(MIGRATIONS)]
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    # Reopening applies nothing new and keeps the record as it was.
    with open_store(tmp_path) as store:
        assert store.db.execute("SELECT COUNT(*) FROM _migrations").fetchone()[0] == len(MIGRATIONS)


def test_store_from_a_newer_version_is_refused_untouched(tmp_path: Path) -> None:
    with open_store(tmp_path) as store:
        store.db.execute("INSERT INTO _migrations VALUES (?, 'future', 0)", (SCHEMA_VERSION + 1,))
        record_run(store, "r1")
    with pytest.raises(StoreError, match="newer diptych.*upgrade"):
        open_store(tmp_path)
    # Nothing was lost: the run is still there for the newer version to read.
    db = sqlite3.connect(tmp_path / "diptych.db")
    assert db.execute("SELECT id FROM runs").fetchall() == [("r1",)]


def test_a_file_that_is_not_a_workspace_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "diptych.db").write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="diptych.db cannot be read, it is damaged"):
        Store(tmp_path)
    assert (tmp_path / "diptych.db").read_bytes() == b"not a database at all" * 100


def test_blobs_are_content_addressed(store: Store) -> None:
    sha = store.put_blob(b"image bytes")
    assert sha == hashlib.sha256(b"image bytes").hexdigest()
    assert store.blob_path(sha) == store.path / "blobs" / sha[:2] / sha[2:]
    assert store.put_blob(b"image bytes") == sha
    assert store.get_blob(sha) == b"image bytes"
    assert not list(store.blob_path(sha).parent.glob(".tmp-*"))


def test_a_finished_result_is_never_overwritten_but_a_failure_is(store: Store) -> None:
    store.save_result(result("k1", "done", {"text": "first"}))
    store.save_result(result("k1", "done", {"text": "second"}))
    stored = store.result("k1")
    assert stored is not None and stored.output == {"text": "first"}

    store.save_result(result("k2", "failed", error="boom"))
    store.save_result(result("k2", "done", {"text": "ok"}))
    retried = store.result("k2")
    assert retried is not None and retried.status == "done" and retried.attempts == 2


def test_unknown_run_and_prefix_lookup(store: Store) -> None:
    record_run(store, "pst-text-abcdef12", "pst-text")
    assert store.get_run("pst-text-abc").id == "pst-text-abcdef12"
    with pytest.raises(RunNotFoundError, match="diptych runs"):
        store.get_run("nope")


def test_a_new_workspace_opened_by_many_threads_at_once(tmp_path: Path) -> None:
    import threading

    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def open_it() -> None:
        start.wait()
        try:
            with open_store(tmp_path / "ws") as store:
                store.list_runs()
        except BaseException as error:  # noqa: BLE001 (collected for the assertion)
            errors.append(error)

    threads = [threading.Thread(target=open_it) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with open_store(tmp_path / "ws") as store:
        numbers = [r[0] for r in store.db.execute("SELECT number FROM _migrations")]
    assert numbers == sorted(n for n, _, _ in MIGRATIONS)


def test_labels_are_saved_per_annotator_and_read_back_with_their_subject(store: Store) -> None:
    record_run(store, "pst-1", "pst")
    trial = TrialRow("pst-1", 0, "m", "k0", "image_generator", 0, {}, {"setting": "paired"})
    store.add_trials(
        "pst-1", [trial], [(0, "left", {"identity": "nurse"}), (0, "right", {"identity": "cook"})]
    )
    left, right = (s["subject_id"] for s in store.run_subjects("pst-1"))
    saved = store.save_annotations(
        [
            (left, "human:ann", Label("left", "masculine")),
            (left, "faces", Label("left", "feminine", 0.8, {"face": 0})),
            (right, "self", Label("right", "feminine")),
        ]
    )
    assert saved == 3
    # A later label from the same annotator for the same person replaces the earlier one.
    store.save_annotations([(left, "human:ann", Label("left", "feminine", None, {"note": "x"}))])
    labels = store.labels("pst-1")
    assert all(isinstance(lab, SubjectLabel) for lab in labels)
    assert [(lab.subject, lab.annotator, lab.kind, lab.label) for lab in labels] == [
        ((0, "left"), "faces", "automatic", "feminine"),
        ((0, "left"), "human:ann", "human", "feminine"),
        ((0, "right"), "self", "self", "feminine"),
    ]
    faces = labels[0]
    assert (faces.confidence, faces.detail) == (0.8, {"face": 0})
    assert faces.subject_meta == {"identity": "nurse"} and faces.trial_meta == {"setting": "paired"}
    assert labels[1].detail == {"note": "x"}
    assert [lab.annotator for lab in store.labels("pst-1", "self")] == ["self"]


def _labelled_run(store: Store, run_id: str, n_trials: int) -> None:
    store.create_run(
        run_id, probe="pst-text", probe_version="1", params={}, models=[],
        fingerprint=run_id, diptych_version="0",
    )  # fmt: skip
    trials = [TrialRow(run_id, i, "m", f"{run_id}-{i}", "chat", 0, {}, {}) for i in range(n_trials)]
    store.add_trials(run_id, trials, [(i, "left", {}) for i in range(n_trials)])
    subjects = [s["subject_id"] for s in store.run_subjects(run_id)]
    store.save_annotations([(sid, "self", Label("left", "masculine")) for sid in subjects])


def test_one_annotators_labels_of_a_run_are_read_without_visiting_other_runs(
    store: Store,
) -> None:
    # The agent reads a run's self labels after each of its many runs: that read must cost
    # what the run holds, not what the workspace has gathered (counted in SQLite VM steps).
    def steps_to_read(run_id: str) -> int:
        steps = [0]

        def count() -> int:
            steps[0] += 1
            return 0

        store.db.set_progress_handler(count, 10)
        try:
            assert len(store.labels(run_id, "self")) == 20
        finally:
            store.db.set_progress_handler(None, 0)
        return steps[0]

    _labelled_run(store, "first", 20)
    alone = steps_to_read("first")
    for k in range(40):
        _labelled_run(store, f"other-{k}", 20)
    assert steps_to_read("first") <= 1.5 * alone

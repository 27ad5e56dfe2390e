"""The workspace: SQLite (WAL) for runs, trials, results and annotations, files for blobs.

Layout of a workspace directory (``./.diptych`` unless ``--store``/``DIPTYCH_STORE`` says
otherwise)::

    diptych.db          SQLite in WAL mode; schema from diptych.core.migrations
    blobs/ab/cdef...    sha256-addressed images and long texts

Writes are single transactions; a blob is written (temp file + rename) before the row that
names it, so a process killed at any moment leaves either a finished result or none.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diptych.core.errors import RunNotFoundError, StoreError
from diptych.core.migrations import migrate
from diptych.core.trials import canonical_json, sha256_hex

DEFAULT_STORE = ".diptych"
TERMINAL = ("done", "refused")


@contextmanager
def _setup_lock(workspace: Path) -> Iterator[None]:
    with open(workspace / ".setup.lock", "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def default_store_path() -> Path:
    return Path(os.environ.get("DIPTYCH_STORE") or DEFAULT_STORE)


@dataclass(frozen=True)
class RunRecord:
    id: str
    probe: str
    probe_version: str
    params: dict[str, Any]
    models: list[dict[str, Any]]
    fingerprint: str
    status: str
    n_trials: int
    diptych_version: str
    created_at: float
    updated_at: float


@dataclass(frozen=True)
class ResultRecord:
    key: str
    model_id: str
    model_version: str
    capability: str
    status: str
    output: dict[str, Any] | None
    blob: str | None
    error: str | None
    attempts: int
    started_at: float
    finished_at: float
    provenance: dict[str, Any]

    @property
    def duration_s(self) -> float:
        return self.finished_at - self.started_at


@dataclass(frozen=True)
class TrialRow:
    run_id: str
    idx: int
    model_id: str
    key: str
    capability: str
    sample: int
    payload: dict[str, Any]
    meta: dict[str, Any]


@dataclass(frozen=True)
class LabelRow:
    """A stored annotation together with its subject and trial."""

    subject_id: int
    trial_idx: int
    model_id: str
    position: str
    subject_meta: dict[str, Any]
    trial_meta: dict[str, Any]
    annotator: str
    label: str
    confidence: float | None
    detail: dict[str, Any]


def _run(row: sqlite3.Row) -> RunRecord:
    return RunRecord(
        id=row["id"],
        probe=row["probe"],
        probe_version=row["probe_version"],
        params=json.loads(row["params"]),
        models=json.loads(row["models"]),
        fingerprint=row["fingerprint"],
        status=row["status"],
        n_trials=row["n_trials"],
        diptych_version=row["diptych_version"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def _result(row: sqlite3.Row) -> ResultRecord:
    return ResultRecord(
        key=row["key"],
        model_id=row["model_id"],
        model_version=row["model_version"],
        capability=row["capability"],
        status=row["status"],
        output=json.loads(row["output"]) if row["output"] is not None else None,
        blob=row["blob"],
        error=row["error"],
        attempts=row["attempts"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        provenance=json.loads(row["provenance"]),
    )


class Store:
    """One open workspace. Not shared between threads: open one per thread."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            (self.path / "blobs").mkdir(exist_ok=True)
        except OSError as error:
            raise StoreError(
                f"cannot create the workspace at {self.path}: {error.strerror}; "
                "choose another with --store PATH"
            ) from error
        try:
            # Autocommit mode: every transaction below is explicit, so none is left open by
            # accident and a killed process loses at most the transaction it was in.
            self.db = sqlite3.connect(self.path / "diptych.db", isolation_level=None)
            self.db.row_factory = sqlite3.Row
            self.db.execute("PRAGMA busy_timeout=10000")
            # Setting up a workspace (WAL mode, migrations) is serialised between processes and
            # threads by a lock file: two first opens at once would otherwise race to create
            # the same tables, and SQLite does not wait on a journal-mode change.
            with _setup_lock(self.path):
                self.db.execute("PRAGMA journal_mode=WAL")
                # NORMAL in WAL mode survives a killed process (not a power cut) at a fraction
                # of FULL's cost; a result lost to a power cut is simply asked for again.
                self.db.execute("PRAGMA synchronous=NORMAL")
                self.db.execute("PRAGMA foreign_keys=ON")
                migrate(self.db)
        except sqlite3.DatabaseError as error:
            raise StoreError(
                f"{self.path / 'diptych.db'} is not a diptych workspace ({error}); "
                "choose another with --store PATH"
            ) from error

    # --- plumbing ---------------------------------------------------------------------------

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # --- blobs ------------------------------------------------------------------------------

    def blob_path(self, sha: str) -> Path:
        return self.path / "blobs" / sha[:2] / sha[2:]

    def put_blob(self, data: bytes) -> str:
        """Store ``data`` under its sha256 and return it; a blob already present is kept."""
        sha = sha256_hex(data)
        target = self.blob_path(sha)
        if not target.exists():
            target.parent.mkdir(exist_ok=True)
            # Write then rename: a reader never sees half a blob, even after a kill.
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, target)
        return sha

    def get_blob(self, sha: str) -> bytes:
        try:
            return self.blob_path(sha).read_bytes()
        except FileNotFoundError as error:
            raise StoreError(f"blob {sha} is missing from {self.path}/blobs") from error

    # --- runs -------------------------------------------------------------------------------

    def create_run(
        self,
        run_id: str,
        *,
        probe: str,
        probe_version: str,
        params: dict[str, Any],
        models: list[dict[str, Any]],
        fingerprint: str,
        diptych_version: str,
    ) -> RunRecord:
        now = time.time()
        with self.transaction() as db:
            db.execute(
                "INSERT INTO runs (id, probe, probe_version, params, models, fingerprint, status,"
                " n_trials, diptych_version, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, 'planned', 0, ?, ?, ?)",
                (
                    run_id,
                    probe,
                    probe_version,
                    canonical_json(params),
                    canonical_json(models),
                    fingerprint,
                    diptych_version,
                    now,
                    now,
                ),
            )
        return self.get_run(run_id)

    def get_run(self, run_id: str) -> RunRecord:
        row = self.db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            matches = self.db.execute(
                "SELECT id FROM runs WHERE id LIKE ? ORDER BY created_at", (f"{run_id}%",)
            ).fetchall()
            if len(matches) == 1:
                return self.get_run(matches[0]["id"])
            raise RunNotFoundError(
                f"no run '{run_id}' in {self.path}; 'diptych runs' lists the runs there"
            )
        return _run(row)

    def find_run(self, fingerprint: str) -> RunRecord | None:
        row = self.db.execute(
            "SELECT * FROM runs WHERE fingerprint = ? ORDER BY created_at DESC LIMIT 1",
            (fingerprint,),
        ).fetchone()
        return _run(row) if row else None

    def list_runs(self) -> list[RunRecord]:
        return [_run(r) for r in self.db.execute("SELECT * FROM runs ORDER BY created_at")]

    def set_run_status(self, run_id: str, status: str) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE runs SET status = ?, updated_at = ? WHERE id = ?",
                (status, time.time(), run_id),
            )

    # --- trials and subjects ----------------------------------------------------------------

    def add_trials(
        self,
        run_id: str,
        trials: Sequence[TrialRow],
        subjects: Iterable[tuple[int, str, dict[str, Any]]],
    ) -> None:
        """Record a run's plan in one transaction: all trials and their subjects, or none."""
        with self.transaction() as db:
            db.executemany(
                "INSERT INTO trials (run_id, idx, model_id, key, capability, sample, payload,"
                " meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        run_id,
                        t.idx,
                        t.model_id,
                        t.key,
                        t.capability,
                        t.sample,
                        canonical_json(t.payload),
                        canonical_json(t.meta),
                    )
                    for t in trials
                ],
            )
            db.executemany(
                "INSERT INTO subjects (run_id, trial_idx, position, meta) VALUES (?, ?, ?, ?)",
                [(run_id, idx, pos, canonical_json(meta)) for idx, pos, meta in subjects],
            )
            db.execute(
                "UPDATE runs SET n_trials = ?, updated_at = ? WHERE id = ?",
                (len(trials), time.time(), run_id),
            )

    def trials(self, run_id: str) -> list[TrialRow]:
        return [
            TrialRow(
                run_id=r["run_id"],
                idx=r["idx"],
                model_id=r["model_id"],
                key=r["key"],
                capability=r["capability"],
                sample=r["sample"],
                payload=json.loads(r["payload"]),
                meta=json.loads(r["meta"]),
            )
            for r in self.db.execute(
                "SELECT * FROM trials WHERE run_id = ? ORDER BY idx", (run_id,)
            )
        ]

    # --- results ----------------------------------------------------------------------------

    def result_statuses(self, keys: Iterable[str]) -> dict[str, str]:
        wanted = list(dict.fromkeys(keys))
        found: dict[str, str] = {}
        # Chunked to stay under SQLite's limit on bound parameters.
        for start in range(0, len(wanted), 900):
            chunk = wanted[start : start + 900]
            marks = ",".join("?" * len(chunk))
            for row in self.db.execute(
                f"SELECT key, status FROM results WHERE key IN ({marks})", chunk
            ):
                found[row["key"]] = row["status"]
        return found

    def save_result(self, result: ResultRecord) -> None:
        """Persist one result atomically. A finished result is never overwritten by a later
        attempt; a failed one is replaced when the trial is tried again."""
        with self.transaction() as db:
            db.execute(
                "INSERT INTO results (key, model_id, model_version, capability, status, output,"
                " blob, error, attempts, started_at, finished_at, duration_s, provenance)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT(key) DO UPDATE SET status = excluded.status,"
                " output = excluded.output, blob = excluded.blob, error = excluded.error,"
                " attempts = results.attempts + excluded.attempts,"
                " started_at = excluded.started_at, finished_at = excluded.finished_at,"
                " duration_s = excluded.duration_s, provenance = excluded.provenance"
                " WHERE results.status = 'failed'",
                (
                    result.key,
                    result.model_id,
                    result.model_version,
                    result.capability,
                    result.status,
                    None if result.output is None else canonical_json(result.output),
                    result.blob,
                    result.error,
                    result.attempts,
                    result.started_at,
                    result.finished_at,
                    result.duration_s,
                    canonical_json(result.provenance),
                ),
            )

    def result(self, key: str) -> ResultRecord | None:
        row = self.db.execute("SELECT * FROM results WHERE key = ?", (key,)).fetchone()
        return _result(row) if row else None

    def run_results(self, run_id: str) -> dict[str, ResultRecord]:
        """Every stored result that a trial of the run refers to, by key."""
        rows = self.db.execute(
            "SELECT * FROM results WHERE key IN (SELECT key FROM trials WHERE run_id = ?)",
            (run_id,),
        )
        return {r["key"]: _result(r) for r in rows}

    def status_counts(self, run_id: str) -> dict[str, int]:
        """Trials of the run by outcome; ``pending`` for those with no result yet."""
        counts = {"done": 0, "refused": 0, "failed": 0, "pending": 0}
        for row in self.db.execute(
            "SELECT COALESCE(r.status, 'pending') AS status, COUNT(*) AS n FROM trials t"
            " LEFT JOIN results r ON r.key = t.key WHERE t.run_id = ? GROUP BY 1",
            (run_id,),
        ):
            counts[row["status"]] = row["n"]
        return counts

    # --- annotations ------------------------------------------------------------------------

    def subjects_missing_label(self, run_id: str, annotator: str) -> list[sqlite3.Row]:
        """Subjects of finished trials that ``annotator`` has not labelled yet."""
        return self.db.execute(
            "SELECT s.id AS subject_id, s.position, t.idx AS trial_idx"
            " FROM subjects s JOIN trials t ON t.run_id = s.run_id AND t.idx = s.trial_idx"
            " JOIN results r ON r.key = t.key AND r.status = 'done'"
            " WHERE s.run_id = ? AND NOT EXISTS (SELECT 1 FROM annotations a"
            " WHERE a.subject_id = s.id AND a.annotator = ?) ORDER BY s.id",
            (run_id, annotator),
        ).fetchall()

    def subjects_by_trial(self, run_id: str) -> dict[int, list[tuple[str, dict[str, Any]]]]:
        """Each trial's subjects (position, meta) in the order the probe planned them."""
        out: dict[int, list[tuple[str, dict[str, Any]]]] = {}
        for row in self.db.execute(
            "SELECT trial_idx, position, meta FROM subjects WHERE run_id = ? ORDER BY id",
            (run_id,),
        ):
            out.setdefault(row["trial_idx"], []).append((row["position"], json.loads(row["meta"])))
        return out

    def save_annotations(
        self, rows: Iterable[tuple[int, str, str, float | None, dict[str, Any]]]
    ) -> int:
        """Save (subject_id, annotator, label, confidence, detail) rows; a later label from the
        same annotator for the same subject replaces the earlier one. Returns the count."""
        now = time.time()
        batch = [
            (sid, annotator, label, conf, canonical_json(detail), now)
            for sid, annotator, label, conf, detail in rows
        ]
        with self.transaction() as db:
            db.executemany(
                "INSERT INTO annotations (subject_id, annotator, label, confidence, detail,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(subject_id, annotator)"
                " DO UPDATE SET label = excluded.label, confidence = excluded.confidence,"
                " detail = excluded.detail, created_at = excluded.created_at",
                batch,
            )
        return len(batch)

    def labels(self, run_id: str, annotator: str | None = None) -> list[LabelRow]:
        query = (
            "SELECT a.*, s.position, s.meta AS subject_meta, s.trial_idx, t.model_id,"
            " t.meta AS trial_meta FROM annotations a JOIN subjects s ON s.id = a.subject_id"
            " JOIN trials t ON t.run_id = s.run_id AND t.idx = s.trial_idx WHERE s.run_id = ?"
        )
        args: list[Any] = [run_id]
        if annotator is not None:
            query += " AND a.annotator = ?"
            args.append(annotator)
        return [
            LabelRow(
                subject_id=r["subject_id"],
                trial_idx=r["trial_idx"],
                model_id=r["model_id"],
                position=r["position"],
                subject_meta=json.loads(r["subject_meta"]),
                trial_meta=json.loads(r["trial_meta"]),
                annotator=r["annotator"],
                label=r["label"],
                confidence=r["confidence"],
                detail=json.loads(r["detail"]),
            )
            for r in self.db.execute(query + " ORDER BY s.id, a.annotator", args)
        ]

    def run_subjects(self, run_id: str) -> list[dict[str, Any]]:
        """Every subject of the run, in plan order, with its trial and the trial's outcome.

        Each row: ``subject_id``, ``trial_idx``, ``position``, ``meta`` (the subject's),
        ``model_id``, ``trial_meta``, ``status`` (``pending`` while the trial has no result) and
        ``blob`` (the result's blob, e.g. the generated image, or None). Lets labels gathered
        elsewhere be matched to subjects, and subjects be listed for annotation.
        """
        return [
            {
                "subject_id": r["subject_id"],
                "trial_idx": r["trial_idx"],
                "position": r["position"],
                "meta": json.loads(r["meta"]),
                "model_id": r["model_id"],
                "trial_meta": json.loads(r["trial_meta"]),
                "status": r["status"],
                "blob": r["blob"],
            }
            for r in self.db.execute(
                "SELECT s.id AS subject_id, s.trial_idx, s.position, s.meta, t.model_id,"
                " t.meta AS trial_meta, COALESCE(r.status, 'pending') AS status, r.blob"
                " FROM subjects s JOIN trials t ON t.run_id = s.run_id AND t.idx = s.trial_idx"
                " LEFT JOIN results r ON r.key = t.key WHERE s.run_id = ? ORDER BY s.id",
                (run_id,),
            )
        ]

    # --- calibrations -----------------------------------------------------------------------

    def save_calibration(
        self, annotator: str, version: str, profile: dict[str, Any]
    ) -> CalibrationRecord:
        """Keep an annotator's error profile (``diptych calibrate``) under its annotator id;
        earlier ones are kept too, the latest is the one used."""
        now = time.time()
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO calibrations (annotator, version, created_at, profile)"
                " VALUES (?, ?, ?, ?)",
                (annotator, version, now, canonical_json(profile)),
            )
        return CalibrationRecord(int(cursor.lastrowid or 0), annotator, version, now, profile)

    def latest_calibration(self, annotator: str) -> CalibrationRecord | None:
        """The most recent calibration of ``annotator`` (the id its labels are stored under)."""
        row = self.db.execute(
            "SELECT * FROM calibrations WHERE annotator = ? ORDER BY created_at DESC, id DESC"
            " LIMIT 1",
            (annotator,),
        ).fetchone()
        if row is None:
            return None
        return CalibrationRecord(
            id=row["id"],
            annotator=row["annotator"],
            version=row["version"],
            created_at=row["created_at"],
            profile=json.loads(row["profile"]),
        )

    # --- flags for review -------------------------------------------------------------------

    def replace_flags(
        self, run_id: str, flags: Iterable[tuple[int, str | None, str, dict[str, Any]]]
    ) -> int:
        """Replace the run's flags with (trial_idx, position, reason, detail) rows, at once."""
        now = time.time()
        rows = [
            (run_id, idx, pos, reason, canonical_json(detail), now)
            for idx, pos, reason, detail in flags
        ]
        with self.transaction() as db:
            db.execute("DELETE FROM flags WHERE run_id = ?", (run_id,))
            db.executemany(
                "INSERT INTO flags (run_id, trial_idx, position, reason, detail, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                rows,
            )
        return len(rows)

    def flags(self, run_id: str, reason: str | None = None) -> list[dict[str, Any]]:
        query = "SELECT * FROM flags WHERE run_id = ?"
        args: list[Any] = [run_id]
        if reason is not None:
            query += " AND reason = ?"
            args.append(reason)
        return [
            {
                "trial_idx": r["trial_idx"],
                "position": r["position"],
                "reason": r["reason"],
                "detail": json.loads(r["detail"]),
            }
            for r in self.db.execute(query + " ORDER BY trial_idx, id", args)
        ]


@dataclass(frozen=True)
class CalibrationRecord:
    """A stored error profile of an annotator (see diptych.plugins.probes.calibration)."""

    id: int
    annotator: str
    version: str
    created_at: float
    profile: dict[str, Any]


def open_store(path: str | os.PathLike[str] | None = None) -> Store:
    """Open (creating and migrating as needed) the workspace at ``path`` or the default."""
    return Store(path if path is not None else default_store_path())

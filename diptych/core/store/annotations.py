"""The people of a run (subjects), the labels annotators gave them, the review flags raised on
them, and the error profiles (calibrations) of the annotators."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from typing import Any

from diptych.core.labels import (
    CHOSEN,
    GENDER,
    Label,
    LabelDimension,
    Sampling,
    SubjectLabel,
    is_human,
)
from diptych.core.store.connection import Connection
from diptych.core.store.records import CalibrationRecord
from diptych.core.trials import canonical_json


def _sampling(row: sqlite3.Row) -> Sampling | None:
    """A stored label's sampling design; a workspace read before its record (read-only, not
    migrated) has none, and its human labels read as chosen."""
    if "design" not in row.keys() or row["design"] is None:
        return CHOSEN if is_human(row["annotator"]) else None
    return Sampling(row["design"], row["inclusion_probability"], row["sample_draw"])


class Annotations(Connection):
    # --- subjects ---------------------------------------------------------------------------

    def subjects_missing_label(
        self, run_id: str, annotator: str, dimension: LabelDimension = GENDER
    ) -> list[sqlite3.Row]:
        """Subjects of finished trials that ``annotator`` has not labelled yet in ``dimension``."""
        return self.db.execute(
            "SELECT s.id AS subject_id, s.position, t.idx AS trial_idx"
            " FROM subjects s JOIN trials t ON t.run_id = s.run_id AND t.idx = s.trial_idx"
            " JOIN results r ON r.key = t.key AND r.status = 'done'"
            " WHERE s.run_id = ? AND NOT EXISTS (SELECT 1 FROM annotations a"
            " WHERE a.subject_id = s.id AND a.annotator = ? AND a.dimension = ?) ORDER BY s.id",
            (run_id, annotator, dimension),
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

    # --- labels -----------------------------------------------------------------------------

    def save_annotations(self, labels: Iterable[tuple[int, str, Label]]) -> int:
        """Save (subject_id, annotator, label) triples; a later label from the same annotator
        for the same subject in the same dimension replaces the earlier one. Returns the count.

        The label's ``position`` is its subject's and is not stored again. A person's label
        keeps its sampling design (a human label without one was ``chosen``)."""
        now = time.time()
        batch = []
        for sid, annotator, lab in labels:
            sampling = lab.sampling or (CHOSEN if is_human(annotator) else None)
            batch.append(
                (
                    sid, annotator, lab.dimension, lab.label, lab.confidence,
                    canonical_json(lab.detail), now,
                    None if sampling is None else sampling.design,
                    None if sampling is None else sampling.probability,
                    None if sampling is None else sampling.draw,
                )
            )  # fmt: skip
        with self.transaction() as db:
            db.executemany(
                "INSERT INTO annotations (subject_id, annotator, dimension, label, confidence,"
                " detail, created_at, design, inclusion_probability, sample_draw)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT(subject_id, annotator, dimension)"
                " DO UPDATE SET label = excluded.label, confidence = excluded.confidence,"
                " detail = excluded.detail, created_at = excluded.created_at,"
                " design = excluded.design, inclusion_probability ="
                " excluded.inclusion_probability, sample_draw = excluded.sample_draw",
                batch,
            )
        return len(batch)

    def labels(
        self,
        run_id: str,
        annotator: str | None = None,
        dimension: LabelDimension | None = GENDER,
    ) -> list[SubjectLabel]:
        """The run's stored labels of ``dimension`` (perceived gender unless said; None: every
        dimension) with their subjects, by subject then annotator."""
        query = (
            "SELECT a.*, s.position, s.meta AS subject_meta, s.trial_idx, t.model_id,"
            " t.meta AS trial_meta FROM annotations a JOIN subjects s ON s.id = a.subject_id"
            " JOIN trials t ON t.run_id = s.run_id AND t.idx = s.trial_idx WHERE s.run_id = ?"
        )
        args: list[Any] = [run_id]
        if dimension is not None:
            query += " AND a.dimension = ?"
            args.append(dimension)
        if annotator is not None:
            # "+" keeps SQLite off the annotator index: one annotator's labels over every run
            # of the workspace grow with it, a run's subjects (found by run_id) do not.
            query += " AND +a.annotator = ?"
            args.append(annotator)
        return [
            SubjectLabel(
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
                sampling=_sampling(r),
                dimension=r["dimension"],
            )
            for r in self.db.execute(query + " ORDER BY s.id, a.annotator, a.dimension", args)
        ]

    def label_of(
        self, subject_id: int, annotator: str, dimension: LabelDimension = GENDER
    ) -> Label | None:
        """``annotator``'s live label of one subject in ``dimension``, if any."""
        row = self.db.execute(
            "SELECT a.*, s.position FROM annotations a JOIN subjects s ON s.id = a.subject_id"
            " WHERE a.subject_id = ? AND a.annotator = ? AND a.dimension = ?",
            (subject_id, annotator, dimension),
        ).fetchone()
        if row is None:
            return None
        return Label(
            row["position"], row["label"], row["confidence"], json.loads(row["detail"]),
            _sampling(row), row["dimension"],
        )  # fmt: skip

    def remove_annotation(
        self, subject_id: int, annotator: str, dimension: LabelDimension = GENDER
    ) -> bool:
        """Take ``annotator``'s label of a subject in ``dimension`` back: it leaves the live
        labels (no metric counts it) and is kept in ``label_removals`` with the time it was
        removed. False when there was no label to remove."""
        with self.transaction() as db:
            row = db.execute(
                "SELECT * FROM annotations WHERE subject_id = ? AND annotator = ?"
                " AND dimension = ?",
                (subject_id, annotator, dimension),
            ).fetchone()
            if row is None:
                return False
            db.execute(
                "INSERT INTO label_removals (subject_id, annotator, dimension, label,"
                " confidence, detail, created_at, removed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    subject_id,
                    annotator,
                    dimension,
                    row["label"],
                    row["confidence"],
                    row["detail"],
                    row["created_at"],
                    time.time(),
                ),
            )
            db.execute("DELETE FROM annotations WHERE id = ?", (row["id"],))
        return True

    def label_removals(self, run_id: str) -> list[dict[str, Any]]:
        """Every label taken back in the run, oldest removal first."""
        return [
            {
                "subject_id": r["subject_id"],
                "annotator": r["annotator"],
                "dimension": r["dimension"],
                "label": r["label"],
                "detail": json.loads(r["detail"]),
                "removed_at": r["removed_at"],
            }
            for r in self.db.execute(
                "SELECT x.* FROM label_removals x JOIN subjects s ON s.id = x.subject_id"
                " WHERE s.run_id = ? ORDER BY x.removed_at, x.id",
                (run_id,),
            )
        ]

    # --- notes ------------------------------------------------------------------------------

    def save_note(self, subject_id: int, annotator: str, note: str | None) -> None:
        """Keep ``annotator``'s note on a subject, with or without a label; an empty note
        removes it."""
        with self.transaction() as db:
            if not note:
                db.execute(
                    "DELETE FROM notes WHERE subject_id = ? AND annotator = ?",
                    (subject_id, annotator),
                )
                return
            db.execute(
                "INSERT INTO notes (subject_id, annotator, note, created_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT(subject_id, annotator) DO UPDATE SET note = excluded.note,"
                " created_at = excluded.created_at",
                (subject_id, annotator, note, time.time()),
            )

    def notes(self, run_id: str) -> list[dict[str, Any]]:
        """The run's notes: ``subject_id``, ``trial_idx``, ``position``, ``annotator``,
        ``note``, in subject order."""
        try:
            rows = self.db.execute(
                "SELECT n.subject_id, s.trial_idx, s.position, n.annotator, n.note FROM notes n"
                " JOIN subjects s ON s.id = n.subject_id WHERE s.run_id = ?"
                " ORDER BY n.subject_id, n.annotator",
                (run_id,),
            ).fetchall()
        except sqlite3.OperationalError:
            # A read-only workspace of a schema older than notes has none.
            return []
        return [
            {
                "subject_id": r["subject_id"],
                "trial_idx": r["trial_idx"],
                "position": r["position"],
                "annotator": r["annotator"],
                "note": r["note"],
            }
            for r in rows
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
        return None if row is None else CalibrationRecord.from_row(row)

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

    def flagged_subject_count(self, run_id: str) -> int:
        """The items a reviewer has to look at, as the Review screen's queue holds them: the
        people of finished outputs that a flag lands on (a flag on a whole output lands on
        each of its people), and each flagged output with nobody in it to label (a story)."""
        row = self.db.execute(
            "SELECT (SELECT COUNT(DISTINCT s.id) FROM flags f JOIN subjects s"
            " ON s.run_id = f.run_id AND s.trial_idx = f.trial_idx"
            " AND (f.position IS NULL OR f.position = s.position)"
            " JOIN trials t ON t.run_id = s.run_id AND t.idx = s.trial_idx"
            " JOIN results r ON r.key = t.key AND r.status = 'done' WHERE f.run_id = ?)"
            " + (SELECT COUNT(DISTINCT f.trial_idx) FROM flags f WHERE f.run_id = ?"
            " AND NOT EXISTS (SELECT 1 FROM subjects s"
            " WHERE s.run_id = f.run_id AND s.trial_idx = f.trial_idx))",
            (run_id, run_id),
        ).fetchone()
        return int(row[0])

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

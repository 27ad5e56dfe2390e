"""Runs, their planned trials and the results the trials' keys name."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Collection, Iterable
from typing import Any

from diptych.core.errors import RunNotFoundError
from diptych.core.run_names import runs_named
from diptych.core.store.connection import Connection
from diptych.core.store.records import ResultRecord, RunRecord, TrialRow
from diptych.core.trials import canonical_json

#: SQL: the result ``r`` records an answer paid for but unusable as its outcome (the engine's
#: ``paid_failure`` provenance flag).
_PAID_FAILURE = "COALESCE(json_extract(r.provenance, '$.paid_failure'), 0)"

#: The statuses at which a run's outcome counts stop following the shared results: a run
#: decided by its gates, or bought whole. A resume (status ``running``) lets them follow again.
FIXED_COUNTS = frozenset({"decided", "complete"})

#: Where a run's fixed outcome counts keep its distinct requests with an outcome then: what the
#: run holds, whatever other runs asking the same requests store after it
#: (:meth:`Runs.requests_held`).
_HELD = "requests_held"


class Runs(Connection):
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
        find: bool = False,
    ) -> RunRecord:
        """Record a new run whose plan is still to be written (``plan_complete`` 0).

        ``find=True`` first looks for the newest run with this fingerprint in the same write
        transaction, and returns it instead: two processes starting the same run at once find
        one run, never two or a constraint error. A run with this id already recorded (by a
        process that got there first) is returned as it is."""
        now = time.time()
        with self.transaction() as db:
            if find:
                row = db.execute(
                    "SELECT id FROM runs WHERE fingerprint = ? ORDER BY created_at DESC LIMIT 1",
                    (fingerprint,),
                ).fetchone()
                if row is not None:
                    run_id = row["id"]
            db.execute(
                "INSERT OR IGNORE INTO runs (id, probe, probe_version, params, models,"
                " fingerprint, status, n_trials, diptych_version, created_at, updated_at,"
                " plan_complete) VALUES (?, ?, ?, ?, ?, ?, 'planned', 0, ?, ?, ?, 0)",
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

    def run_with_id(self, run_id: str) -> RunRecord | None:
        """The run whose id is exactly ``run_id``, if any (one indexed lookup)."""
        row = self.db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        return RunRecord.from_row(row) if row else None

    def get_run(self, run_id: str) -> RunRecord:
        row = self.db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            matches = runs_named(self.list_runs(), run_id)
            if len(matches) == 1:
                return matches[0]
            raise RunNotFoundError(
                f"no run '{run_id}' in {self.path}; 'diptych runs' lists the runs there"
            )
        return RunRecord.from_row(row)

    def find_run(self, fingerprint: str) -> RunRecord | None:
        row = self.db.execute(
            "SELECT * FROM runs WHERE fingerprint = ? ORDER BY created_at DESC LIMIT 1",
            (fingerprint,),
        ).fetchone()
        return RunRecord.from_row(row) if row else None

    def list_runs(self) -> list[RunRecord]:
        return [
            RunRecord.from_row(r) for r in self.db.execute("SELECT * FROM runs ORDER BY created_at")
        ]

    def set_run_status(self, run_id: str, status: str) -> None:
        """Record the run's status; a run getting to a status whose counts are fixed
        (:data:`FIXED_COUNTS`) keeps the outcome counts it has now, any other counts live."""
        with self.transaction() as db:
            fixed = (
                canonical_json(
                    {
                        **self.status_counts(run_id, live=True),
                        _HELD: self.requests_answered(run_id)[0],
                    }
                )
                if status in FIXED_COUNTS
                else None
            )
            db.execute(
                "UPDATE runs SET status = ?, updated_at = ?, outcome_counts = ? WHERE id = ?",
                (status, time.time(), fixed, run_id),
            )

    def runs_sharing(self, run_id: str, statuses: Collection[str]) -> list[str]:
        """The other runs, in one of ``statuses``, with a trial that asks what a trial of
        ``run_id`` asks: results are shared by request, so what this run stores is theirs too."""
        marks = ", ".join("?" * len(statuses))
        rows = self.db.execute(
            f"SELECT id FROM runs WHERE id != ? AND status IN ({marks}) AND EXISTS ("
            " SELECT 1 FROM trials o JOIN trials t ON t.key = o.key"
            " WHERE o.run_id = runs.id AND t.run_id = ?) ORDER BY created_at",
            (run_id, *statuses, run_id),
        )
        return [r["id"] for r in rows]

    # --- trials and subjects ----------------------------------------------------------------

    def add_trials(
        self,
        run_id: str,
        trials: Iterable[TrialRow],
        subjects: Iterable[tuple[int, str, dict[str, Any]]],
    ) -> None:
        """Record a whole plan in one transaction: all trials and their subjects, or none."""
        with self.transaction():
            self.add_trial_chunk(run_id, trials, subjects, commit=False)
            self.complete_plan(run_id, commit=False)

    def add_trial_chunk(
        self,
        run_id: str,
        trials: Iterable[TrialRow],
        subjects: Iterable[tuple[int, str, dict[str, Any]]],
        *,
        commit: bool = True,
    ) -> None:
        """Record one chunk of a run's plan (trials and their subjects). A chunk written
        before (a planner killed mid-way, then planning again) is left as it is: plans are
        deterministic, so the same index holds the same trial."""
        rows = [
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
        ]
        people = [(run_id, idx, pos, canonical_json(meta)) for idx, pos, meta in subjects]

        def write(db: sqlite3.Connection) -> None:
            db.executemany(
                "INSERT OR IGNORE INTO trials (run_id, idx, model_id, key, capability, sample,"
                " payload, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            db.executemany(
                "INSERT OR IGNORE INTO subjects (run_id, trial_idx, position, meta)"
                " VALUES (?, ?, ?, ?)",
                people,
            )

        if not commit:
            write(self.db)
            return
        with self.transaction() as db:
            write(db)

    def complete_plan(self, run_id: str, *, commit: bool = True) -> None:
        """Mark the run's plan as written in full, with its number of trials."""
        statement = (
            "UPDATE runs SET n_trials = (SELECT COUNT(*) FROM trials WHERE run_id = ?),"
            " plan_complete = 1, updated_at = ? WHERE id = ?"
        )
        args = (run_id, time.time(), run_id)
        if not commit:
            self.db.execute(statement, args)
            return
        with self.transaction() as db:
            db.execute(statement, args)

    def plan_complete(self, run_id: str) -> bool:
        row = self.db.execute("SELECT plan_complete FROM runs WHERE id = ?", (run_id,)).fetchone()
        return bool(row and row["plan_complete"])

    def pending_trials(self, run_id: str) -> list[TrialRow]:
        """The run's first trial of each key that has no terminal result, in plan order: the
        work left, one per distinct request. A paid failure (an answer paid for but unusable)
        is not work left: buying it again is asked for apart (:meth:`paid_failed_trials`)."""
        return self._first_trials(
            run_id, f"r.status IS NULL OR (r.status = 'failed' AND NOT {_PAID_FAILURE})"
        )

    def paid_failed_trials(self, run_id: str) -> list[TrialRow]:
        """The run's first trial of each key whose stored result is a paid failure (the
        service was paid for an answer that could not be used), in plan order."""
        return self._first_trials(run_id, f"r.status = 'failed' AND {_PAID_FAILURE}")

    def _first_trials(self, run_id: str, where: str) -> list[TrialRow]:
        return [
            TrialRow.from_row(r)
            for r in self.db.execute(
                "SELECT t.* FROM trials t JOIN (SELECT MIN(t2.idx) AS idx FROM trials t2"
                f" LEFT JOIN results r ON r.key = t2.key WHERE t2.run_id = ? AND ({where})"
                " GROUP BY t2.key) first ON first.idx = t.idx WHERE t.run_id = ? ORDER BY t.idx",
                (run_id, run_id),
            )
        ]

    def paid_failed_keys(self, keys: Iterable[str]) -> set[str]:
        """Those of ``keys`` whose stored result is a paid failure."""
        wanted = list(dict.fromkeys(keys))
        found: set[str] = set()
        for start in range(0, len(wanted), 900):
            chunk = wanted[start : start + 900]
            marks = ",".join("?" * len(chunk))
            for row in self.db.execute(
                f"SELECT key FROM results r WHERE key IN ({marks}) AND r.status = 'failed'"
                f" AND {_PAID_FAILURE}",
                chunk,
            ):
                found.add(row["key"])
        return found

    def trials(self, run_id: str) -> list[TrialRow]:
        return [
            TrialRow.from_row(r)
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
        """Persist one result atomically, releasing its claim in the same transaction. A
        finished result is never overwritten by a later attempt; a failed one is replaced when
        the trial is tried again."""
        with self.transaction() as db:
            db.execute("DELETE FROM claims WHERE key = ?", (result.key,))
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
        return ResultRecord.from_row(row) if row else None

    def run_results(self, run_id: str) -> dict[str, ResultRecord]:
        """Every stored result that a trial of the run refers to, by key."""
        rows = self.db.execute(
            "SELECT * FROM results WHERE key IN (SELECT key FROM trials WHERE run_id = ?)",
            (run_id,),
        )
        return {r["key"]: ResultRecord.from_row(r) for r in rows}

    def status_counts(self, run_id: str, *, live: bool = False) -> dict[str, int]:
        """Trials of the run by outcome; ``pending`` for those with no result yet.

        Results are shared by request across runs, so a run's trials can gain results that
        other runs stored. A decided or complete run's counts are those it had when it got
        there (what it stored or reused), unchanged since; ``live`` counts what is stored now
        (what a resume would find)."""
        if not live:
            row = self.db.execute(
                "SELECT outcome_counts FROM runs WHERE id = ?", (run_id,)
            ).fetchone()
            if row is not None and row["outcome_counts"] is not None:
                fixed: dict[str, int] = {"done": 0, "refused": 0, "failed": 0, "pending": 0}
                fixed.update(json.loads(row["outcome_counts"]))
                fixed.pop(_HELD, None)
                return fixed
        counts = {"done": 0, "refused": 0, "failed": 0, "pending": 0}
        for row in self.db.execute(
            "SELECT COALESCE(r.status, 'pending') AS status, COUNT(*) AS n FROM trials t"
            " LEFT JOIN results r ON r.key = t.key WHERE t.run_id = ? GROUP BY 1",
            (run_id,),
        ):
            counts[row["status"]] = row["n"]
        return counts

    def requests_answered(self, run_id: str) -> tuple[int, int]:
        """Of the run's distinct requests (trials that ask the same thing share one), how many
        have a stored outcome now, and how many there are: what a sequential audit's looks
        count (``Look.bought`` of ``Look.planned``)."""
        row = self.db.execute(
            "SELECT COUNT(DISTINCT r.key) AS answered, COUNT(DISTINCT t.key) AS n FROM trials t"
            " LEFT JOIN results r ON r.key = t.key WHERE t.run_id = ?",
            (run_id,),
        ).fetchone()
        return int(row["answered"]), int(row["n"])

    def requests_held(self, run_id: str) -> int:
        """The run's distinct requests with an outcome, as the run holds them: a decided or
        complete run's as it had them when it got there (another run asking the same requests
        answers them in the store, but buys nothing for this run), any other's as stored now
        (:meth:`requests_answered`)."""
        row = self.db.execute("SELECT outcome_counts FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is not None and row["outcome_counts"] is not None:
            held = json.loads(row["outcome_counts"]).get(_HELD)
            if isinstance(held, int):
                return held
        return self.requests_answered(run_id)[0]

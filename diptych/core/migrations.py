"""Numbered schema migrations for the SQLite store.

Each migration is a function that receives the connection inside a transaction. Applied ones are
recorded in ``_migrations``; a new migration is appended with the next number and never edited
once released. ``SCHEMA_VERSION`` is the highest number this version of diptych knows: a store
that records a higher one was written by a newer diptych and is refused rather than misread.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable

#: The table that records applied migrations: its presence is what marks a diptych workspace.
MIGRATIONS_TABLE = "_migrations"

Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[tuple[int, str, Migration]] = []


def migration(number: int) -> Callable[[Migration], Migration]:
    def register(fn: Migration) -> Migration:
        MIGRATIONS.append((number, fn.__name__, fn))
        return fn

    return register


@migration(1)
def m001_initial(db: sqlite3.Connection) -> None:
    run_script(
        db,
        """
        CREATE TABLE runs (
            id TEXT PRIMARY KEY,
            probe TEXT NOT NULL,
            probe_version TEXT NOT NULL,
            params TEXT NOT NULL,
            models TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            status TEXT NOT NULL,
            n_trials INTEGER NOT NULL DEFAULT 0,
            diptych_version TEXT NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE INDEX runs_fingerprint ON runs(fingerprint);

        CREATE TABLE trials (
            run_id TEXT NOT NULL REFERENCES runs(id),
            idx INTEGER NOT NULL,
            model_id TEXT NOT NULL,
            key TEXT NOT NULL,
            capability TEXT NOT NULL,
            sample INTEGER NOT NULL,
            payload TEXT NOT NULL,
            meta TEXT NOT NULL,
            PRIMARY KEY (run_id, idx)
        );
        CREATE INDEX trials_key ON trials(key);

        CREATE TABLE results (
            key TEXT PRIMARY KEY,
            model_id TEXT NOT NULL,
            model_version TEXT NOT NULL,
            capability TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('done', 'refused', 'failed')),
            output TEXT,
            blob TEXT,
            error TEXT,
            attempts INTEGER NOT NULL,
            started_at REAL NOT NULL,
            finished_at REAL NOT NULL,
            duration_s REAL NOT NULL,
            provenance TEXT NOT NULL
        );

        CREATE TABLE subjects (
            id INTEGER PRIMARY KEY,
            run_id TEXT NOT NULL REFERENCES runs(id),
            trial_idx INTEGER NOT NULL,
            position TEXT NOT NULL,
            meta TEXT NOT NULL,
            UNIQUE (run_id, trial_idx, position)
        );

        CREATE TABLE annotations (
            id INTEGER PRIMARY KEY,
            subject_id INTEGER NOT NULL REFERENCES subjects(id),
            annotator TEXT NOT NULL,
            label TEXT NOT NULL,
            confidence REAL,
            detail TEXT NOT NULL DEFAULT '{}',
            created_at REAL NOT NULL,
            UNIQUE (subject_id, annotator)
        );
        CREATE INDEX annotations_annotator ON annotations(annotator);
        """,
    )


@migration(2)
def m002_calibrations(db: sqlite3.Connection) -> None:
    # An annotator's error profile on data of known gender (e.g. PAIRS), found again by the
    # annotator id its labels are stored under; every calibration is kept, the latest is used.
    run_script(
        db,
        """
        CREATE TABLE calibrations (
            id INTEGER PRIMARY KEY,
            annotator TEXT NOT NULL,
            version TEXT NOT NULL,
            created_at REAL NOT NULL,
            profile TEXT NOT NULL
        );
        CREATE INDEX calibrations_annotator ON calibrations(annotator, created_at);
        """,
    )


@migration(3)
def m003_flags(db: sqlite3.Connection) -> None:
    # What a reviewer should look at, and why: recomputed from labels and provenance whenever
    # they change (a run finishing, an annotation pass), read by the review queue.
    run_script(
        db,
        """
        CREATE TABLE flags (
            id INTEGER PRIMARY KEY,
            run_id TEXT NOT NULL REFERENCES runs(id),
            trial_idx INTEGER NOT NULL,
            position TEXT,
            reason TEXT NOT NULL,
            detail TEXT NOT NULL,
            created_at REAL NOT NULL
        );
        CREATE INDEX flags_run ON flags(run_id, reason)
        """,
    )


@migration(4)
def m004_leases_and_claims(db: sqlite3.Connection) -> None:
    # A run executes in one process at a time: the process holds the run's lease and keeps its
    # heartbeat fresh. A claim marks a paid trial whose request is in flight, so that no second
    # process (or thread) sends the same request; it goes with its result's row, or with the
    # lease of its owner when that owner is found dead. ``plan_complete`` is 0 while a plan is
    # still being written in chunks (a run recorded before this migration was written whole).
    run_script(
        db,
        """
        CREATE TABLE leases (
            run_id TEXT PRIMARY KEY REFERENCES runs(id),
            owner TEXT NOT NULL UNIQUE,
            host TEXT NOT NULL,
            pid INTEGER NOT NULL,
            process_start TEXT NOT NULL,
            acquired_at REAL NOT NULL,
            heartbeat_at REAL NOT NULL
        );

        CREATE TABLE claims (
            key TEXT PRIMARY KEY,
            run_id TEXT NOT NULL,
            owner TEXT NOT NULL,
            claimed_at REAL NOT NULL
        );
        CREATE INDEX claims_owner ON claims(owner);

        ALTER TABLE runs ADD COLUMN plan_complete INTEGER NOT NULL DEFAULT 1;
        """,
    )


@migration(5)
def m005_review_notes_and_removals(db: sqlite3.Connection) -> None:
    # A reviewer's note on a person stands on its own: it may come before any label, or
    # with none (a face hidden by a hat). A label taken back leaves the live table, so that
    # no metric counts it, and is kept in ``label_removals`` with when it was taken back, so
    # the review's history stays. ``preferences`` holds what a front end remembers per
    # workspace (the reviewer's name, the last probe and its parameters). Notes kept so far in
    # a label's detail are copied over.
    run_script(
        db,
        """
        CREATE TABLE notes (
            subject_id INTEGER NOT NULL REFERENCES subjects(id),
            annotator TEXT NOT NULL,
            note TEXT NOT NULL,
            created_at REAL NOT NULL,
            PRIMARY KEY (subject_id, annotator)
        );

        CREATE TABLE label_removals (
            id INTEGER PRIMARY KEY,
            subject_id INTEGER NOT NULL REFERENCES subjects(id),
            annotator TEXT NOT NULL,
            label TEXT NOT NULL,
            confidence REAL,
            detail TEXT NOT NULL,
            created_at REAL NOT NULL,
            removed_at REAL NOT NULL
        );
        CREATE INDEX label_removals_subject ON label_removals(subject_id);

        CREATE TABLE preferences (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL,
            updated_at REAL NOT NULL
        );

        INSERT INTO notes (subject_id, annotator, note, created_at)
            SELECT subject_id, annotator, json_extract(detail, '$.note'), created_at
            FROM annotations WHERE json_extract(detail, '$.note') <> ''
        """,
    )


@migration(6)
def m006_audits(db: sqlite3.Connection) -> None:
    # An audit file run as a whole: the file's hash and text, so a report names exactly what
    # produced it, and each part's run (or agent session), status and cost, so a rerun of
    # the file continues where it stopped and one budget spans every part.
    run_script(
        db,
        """
        CREATE TABLE audits (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            file_hash TEXT NOT NULL,
            file_path TEXT NOT NULL,
            file_text TEXT NOT NULL,
            status TEXT NOT NULL,
            report TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE INDEX audits_name ON audits(name);

        CREATE TABLE audit_parts (
            audit_id TEXT NOT NULL REFERENCES audits(id),
            position INTEGER NOT NULL,
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            run_id TEXT,
            status TEXT NOT NULL,
            cost REAL,
            detail TEXT NOT NULL,
            updated_at REAL NOT NULL,
            PRIMARY KEY (audit_id, name)
        );
        """,
    )


@migration(7)
def m007_label_sampling_design(db: sqlite3.Connection) -> None:
    # How a labelled person was chosen: a census of a stratum, a uniform or an active random
    # sample (with the probability the design gave the person, and the draw it came in), or a
    # reviewer's choice. Human labels given before this was recorded were chosen.
    run_script(
        db,
        """
        ALTER TABLE annotations ADD COLUMN design TEXT;
        ALTER TABLE annotations ADD COLUMN inclusion_probability REAL;
        ALTER TABLE annotations ADD COLUMN sample_draw TEXT;
        UPDATE annotations SET design = 'chosen' WHERE annotator LIKE 'human:%'
        """,
    )


@migration(8)
def m008_decided_runs(db: sqlite3.Connection) -> None:
    # A run a sequential audit stopped once its gates were decided was stored as
    # "interrupted", as if a user or a fault had stopped it; its audit part says "decided".
    # Such a run, unchanged since (as many trials without an outcome as the part recorded),
    # is stored as what happened: "decided". A run resumed since keeps its own status.
    rows = db.execute(
        "SELECT p.run_id, p.detail FROM audit_parts p JOIN runs r ON r.id = p.run_id"
        " WHERE p.status = 'decided' AND r.status = 'interrupted'"
    ).fetchall()
    for run_id, detail in rows:
        try:
            recorded = json.loads(detail).get("counts", {}).get("pending")
        except (ValueError, AttributeError):
            continue
        (pending,) = db.execute(
            "SELECT COUNT(*) FROM trials t LEFT JOIN results r ON r.key = t.key"
            " WHERE t.run_id = ? AND r.key IS NULL",
            (run_id,),
        ).fetchone()
        if recorded == pending:
            db.execute("UPDATE runs SET status = 'decided' WHERE id = ?", (run_id,))


@migration(9)
def m009_label_dimensions(db: sqlite3.Connection) -> None:
    # A label is about one dimension: perceived gender (every label so far) or perceived skin
    # tone. One annotator may label a person in each, so the table is rebuilt with the
    # dimension in its key (SQLite cannot change a UNIQUE constraint in place); ids are kept,
    # so nothing that names a label by id is lost. A label taken back records its dimension
    # too. Notes stay one per (person, annotator): a reviewer's note is on the person.
    run_script(
        db,
        """
        CREATE TABLE annotations_dimensioned (
            id INTEGER PRIMARY KEY,
            subject_id INTEGER NOT NULL REFERENCES subjects(id),
            annotator TEXT NOT NULL,
            dimension TEXT NOT NULL DEFAULT 'gender',
            label TEXT NOT NULL,
            confidence REAL,
            detail TEXT NOT NULL DEFAULT '{}',
            created_at REAL NOT NULL,
            design TEXT,
            inclusion_probability REAL,
            sample_draw TEXT,
            UNIQUE (subject_id, annotator, dimension)
        );
        INSERT INTO annotations_dimensioned (id, subject_id, annotator, dimension, label,
            confidence, detail, created_at, design, inclusion_probability, sample_draw)
            SELECT id, subject_id, annotator, 'gender', label, confidence, detail, created_at,
            design, inclusion_probability, sample_draw FROM annotations;
        DROP TABLE annotations;
        ALTER TABLE annotations_dimensioned RENAME TO annotations;
        CREATE INDEX annotations_annotator ON annotations(annotator);
        ALTER TABLE label_removals ADD COLUMN dimension TEXT NOT NULL DEFAULT 'gender'
        """,
    )


@migration(10)
def m010_fixed_outcome_counts(db: sqlite3.Connection) -> None:
    # Results are shared by request across runs: counting a run's outcomes from the results
    # its trials name counts, for a decided run, what other runs stored after it stopped. A
    # decided or complete run keeps the counts it had when it got there. A decided run from
    # before takes those its audit part recorded at its last look.
    db.execute("ALTER TABLE runs ADD COLUMN outcome_counts TEXT")
    rows = db.execute(
        "SELECT p.run_id, p.detail FROM audit_parts p JOIN runs r ON r.id = p.run_id"
        " WHERE p.status = 'decided' AND r.status = 'decided' ORDER BY p.updated_at"
    ).fetchall()
    for run_id, detail in rows:
        try:
            counts = json.loads(detail).get("counts")
        except (ValueError, AttributeError):
            continue
        if isinstance(counts, dict) and counts:
            db.execute(
                "UPDATE runs SET outcome_counts = ? WHERE id = ?",
                (json.dumps(counts, sort_keys=True), run_id),
            )


@migration(11)
def m011_audit_process(db: sqlite3.Connection) -> None:
    # The process running an audit (host, pid and when it started, as JSON), recorded with the
    # audit: one killed before any part stored a run reads interrupted, not running, while a
    # live one still reads running. An audit recorded before has none.
    db.execute("ALTER TABLE audits ADD COLUMN process TEXT")


@migration(12)
def m012_audit_overrides(db: sqlite3.Connection) -> None:
    # The fields `audit run --set` replaced (a JSON object of dotted paths), recorded with the
    # audit: the command in its report that runs it again gives them again. An audit recorded
    # before has none.
    db.execute("ALTER TABLE audits ADD COLUMN overrides TEXT")


def run_script(db: sqlite3.Connection, script: str) -> None:
    # executescript() would COMMIT first and break the migration's transaction, so statements
    # are run one by one (the schema has no ';' inside a statement).
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


SCHEMA_VERSION = max(number for number, _, _ in MIGRATIONS)


def applied(db: sqlite3.Connection, *, create: bool = True) -> set[int]:
    """The numbers of the migrations applied; ``create=False`` reads without creating the table
    (a read-only workspace), and a database without it has none."""
    if create:
        db.execute(
            f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} "
            "(number INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)"
        )
    elif not db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (MIGRATIONS_TABLE,)
    ).fetchone():
        return set()
    return {row[0] for row in db.execute(f"SELECT number FROM {MIGRATIONS_TABLE}")}


def migrate(db: sqlite3.Connection) -> list[int]:
    """Apply every migration not yet applied, each in its own transaction; return their numbers."""
    done = applied(db)
    newer = [n for n in done if n > SCHEMA_VERSION]
    if newer:
        from diptych.core.errors import StoreError

        raise StoreError(
            f"this workspace was written by a newer diptych (schema {max(newer)}, this version "
            f"reads up to {SCHEMA_VERSION}): upgrade with 'pip install -U diptych'"
        )
    ran = []
    for number, name, fn in sorted(MIGRATIONS):
        if number in done:
            continue
        # The connection is in autocommit mode: the transaction is explicit, so a migration
        # and its record land together or not at all.
        db.execute("BEGIN IMMEDIATE")
        # Another process or thread opening the same new workspace may have applied it while
        # this one waited for the write lock: check again under the lock.
        if db.execute("SELECT 1 FROM _migrations WHERE number = ?", (number,)).fetchone():
            db.execute("COMMIT")
            continue
        try:
            fn(db)
            db.execute(
                "INSERT INTO _migrations (number, name, applied_at) VALUES (?, ?, ?)",
                (number, name, time.time()),
            )
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        ran.append(number)
    return ran

"""The recorded audit: which file (by hash) ran, its parts with their runs, status and cost.

Stored in the workspace (tables ``audits`` and ``audit_parts``, migration 6) so that a rerun of
the file continues where it stopped and a report names exactly what produced it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from diptych.core.errors import UsageError
from diptych.core.store import Store
from diptych.core.store.leases import host_name, process_alive, process_start


@dataclass
class PartRecord:
    """One part of a recorded audit: a probe run, a mitigation run or an agent search."""

    position: int
    name: str
    kind: str
    run_id: str | None
    status: str
    cost: float | None
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class AuditRecord:
    """One audit file run (or being run) in the workspace."""

    id: str
    name: str
    file_hash: str
    file_path: str
    file_text: str
    status: str
    report: str | None
    created_at: float
    updated_at: float
    parts: list[PartRecord] = field(default_factory=list)
    #: The process running it, as :func:`this_process` records it (None: recorded before
    #: diptych kept it).
    process: str | None = None
    #: ``audit run --set``'s fields as JSON (None: none, or recorded before diptych kept them).
    overrides: str | None = None

    @property
    def overridden(self) -> dict[str, Any]:
        """``audit run --set``'s fields (dotted path to value) the audit last ran with."""
        return dict(json.loads(self.overrides)) if self.overrides else {}

    @property
    def run_ids(self) -> list[str]:
        """The runs of its parts, in part order, each once."""
        return list(dict.fromkeys(p.run_id for p in self.parts if p.run_id))

    def part(self, name: str) -> PartRecord | None:
        return next((p for p in self.parts if p.name == name), None)


def this_process() -> str:
    """This process as an audit's record names the one running it: its host, pid and when it
    started (so that a pid reused by another process is not taken for it)."""
    pid = os.getpid()
    return json.dumps(
        {"host": host_name(), "pid": pid, "start": process_start(pid)}, sort_keys=True
    )


def process_running(audit: AuditRecord) -> bool | None:
    """Whether the process recorded running ``audit`` still runs on this host (True) or is gone
    (False: killed, or quit before it recorded how the audit stopped); None where none is
    recorded, or it ran on another host: nothing here says whether it runs."""
    try:
        process = json.loads(audit.process or "null")
        host, pid, start = process["host"], int(process["pid"]), str(process["start"])
    except (ValueError, TypeError, KeyError):
        return None
    return process_alive(pid, start) if host == host_name() else None


def process_gone(audit: AuditRecord) -> bool:
    """Whether the process recorded running ``audit`` is gone from this host (killed, or quit
    before it recorded how the audit stopped). False where none is recorded, or it ran on
    another host: nothing here says it stopped."""
    return process_running(audit) is False


def begin(
    store: Store,
    audit_id: str,
    name: str,
    file_hash: str,
    path: str,
    text: str,
    overrides: Mapping[str, Any] | None = None,
) -> None:
    """Record the audit (or mark a recorded one running again) with the process running it,
    from its first moment: one killed before any part stored a run is told from a live one.
    ``overrides`` (``--set``'s fields) are those of this run, replacing any recorded before."""
    now = time.time()
    process = this_process()
    given = json.dumps(dict(overrides)) if overrides else None
    with store.transaction() as db:
        db.execute(
            "INSERT INTO audits (id, name, file_hash, file_path, file_text, status, report,"
            " created_at, updated_at, process, overrides)"
            " VALUES (?, ?, ?, ?, ?, 'running', NULL, ?, ?, ?, ?)"
            " ON CONFLICT(id) DO UPDATE SET status = 'running', file_path = excluded.file_path,"
            " updated_at = excluded.updated_at, process = excluded.process,"
            " overrides = excluded.overrides",
            (audit_id, name, file_hash, path, text, now, now, process, given),
        )


def save_part(store: Store, audit_id: str, part: PartRecord) -> None:
    with store.transaction() as db:
        db.execute(
            "INSERT INTO audit_parts (audit_id, position, name, kind, run_id, status, cost,"
            " detail, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(audit_id, name) DO UPDATE SET position = excluded.position,"
            " kind = excluded.kind, run_id = excluded.run_id, status = excluded.status,"
            " cost = excluded.cost, detail = excluded.detail, updated_at = excluded.updated_at",
            (
                audit_id,
                part.position,
                part.name,
                part.kind,
                part.run_id,
                part.status,
                part.cost,
                json.dumps(part.detail, default=str, sort_keys=True),
                time.time(),
            ),
        )


def finish(store: Store, audit_id: str, status: str, report: str | None = None) -> None:
    """Record the audit's status, and the path of its report where one was written: made
    absolute here, so that ``audit gate``, an export and the terminal app find the report from
    any directory, not only the one the audit ran in (``--out`` is read from there)."""
    if report is not None:
        report = str(Path(report).resolve())
    with store.transaction() as db:
        db.execute(
            "UPDATE audits SET status = ?, report = COALESCE(?, report), updated_at = ?"
            " WHERE id = ?",
            (status, report, time.time(), audit_id),
        )


def asked_since(store: Store, run_ids: list[str], since: float) -> bool:
    """Whether any trial of ``run_ids`` had an answer stored after ``since`` (a time.time())."""
    if not run_ids:
        return False
    marks = ", ".join("?" * len(run_ids))
    row = store.db.execute(
        f"SELECT 1 FROM trials t JOIN results r ON r.key = t.key WHERE t.run_id IN ({marks})"
        " AND r.finished_at > ? LIMIT 1",
        (*run_ids, since),
    ).fetchone()
    return row is not None


def _has_table(store: Store) -> bool:
    row = store.db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audits'"
    ).fetchone()
    return row is not None


def _columns(row: sqlite3.Row, record: type[Any]) -> dict[str, Any]:
    """The row's columns that the dataclass ``record`` has fields of, by name (a table's
    columns are named as its record's fields)."""
    columns = set(row.keys())
    return {f.name: row[f.name] for f in fields(record) if f.name in columns}


def list_audits(store: Store) -> list[AuditRecord]:
    """Every recorded audit, oldest first, with its parts."""
    if not _has_table(store):  # a read-only workspace of an older schema
        return []
    audits = [
        AuditRecord(**_columns(row, AuditRecord))
        for row in store.db.execute("SELECT * FROM audits ORDER BY created_at, id")
    ]
    for audit in audits:
        audit.parts = [
            PartRecord(**{**_columns(row, PartRecord), "detail": json.loads(row["detail"])})
            for row in store.db.execute(
                "SELECT * FROM audit_parts WHERE audit_id = ? ORDER BY position", (audit.id,)
            )
        ]
    return audits


def newest_named(store: Store, name: str) -> tuple[AuditRecord | None, int]:
    """The audit named ``name`` that ran last (its file's newest run here, with or without
    ``--set`` overrides: each set of them is a record of its own) and how many records bear
    the name; (None, 0) if none."""
    named = [a for a in list_audits(store) if a.name == name]
    if not named:
        return None, 0
    return max(named, key=lambda a: (a.updated_at, a.created_at)), len(named)


def get_audit(store: Store, ref: str) -> AuditRecord | None:
    """The audit whose id is ``ref``, else the newest named ``ref`` (an id begins with its
    name, so a name is never taken for a prefix of its records' ids), else the one whose id
    starts with ``ref``; None if none. Raises :class:`UsageError` when a prefix names several."""
    if not ref:
        return None  # the start of every id: an unset variable names no audit
    audits = list_audits(store)
    exact = [a for a in audits if a.id == ref]
    if exact:
        return exact[0]
    named, _ = newest_named(store, ref)
    if named is not None:
        return named
    prefixed = [a for a in audits if a.id.startswith(ref)]
    if len(prefixed) > 1:
        listed = ", ".join(a.id for a in prefixed)
        raise UsageError(f"'{ref}' names {len(prefixed)} audits ({listed}); give more of the id")
    return prefixed[0] if prefixed else None

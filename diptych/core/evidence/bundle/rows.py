"""Records between a workspace and a bundle's tables: read out of one store by scope, written
into another by key.

Reading names a person by (run, trial, position) where the store uses a subject's row number;
writing turns that back into the row number of the receiving store. Parquet holds each table
with the types of :data:`~diptych.core.evidence.bundle.layout.TABLES`.
"""

from __future__ import annotations

import io
import sqlite3
from collections.abc import Sequence
from typing import Any

from diptych.core.errors import MissingDependencyError
from diptych.core.evidence.bundle.layout import BundleError, TableSpec


def _arrow() -> tuple[Any, Any]:
    """pyarrow and its Parquet module, imported where a table is written or read (opening a
    workspace does not load them)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as error:
        raise MissingDependencyError("pyarrow", "evidence", "an evidence bundle") from error
    return pa, pq


_PYTHON: dict[str, tuple[type, ...]] = {"text": (str,), "int": (int,), "real": (float, int)}

_SUBJECT_JOIN = "JOIN subjects s ON s.id = x.subject_id"
_SUBJECT_COLS = "s.run_id AS run_id, s.trial_idx AS trial_idx, s.position AS position"


def _marks(values: Sequence[str]) -> str:
    return ",".join("?" * len(values))


def scope_queries(runs: Sequence[str], audits: Sequence[str]) -> dict[str, tuple[str, list[Any]]]:
    """Per table, the query that reads the records of ``runs`` and ``audits`` (with the
    calibrations of every annotator that labelled those runs)."""
    r, a = _marks(runs), _marks(audits)
    rl, al = list(runs), list(audits)
    in_runs_results = f"key IN (SELECT key FROM trials WHERE run_id IN ({r}))"
    return {
        "runs": (f"SELECT * FROM runs WHERE id IN ({r}) ORDER BY created_at, id", rl),
        "trials": (f"SELECT * FROM trials WHERE run_id IN ({r}) ORDER BY run_id, idx", rl),
        "results": (f"SELECT * FROM results WHERE {in_runs_results} ORDER BY key", rl),
        "subjects": (
            f"SELECT run_id, trial_idx, position, meta FROM subjects WHERE run_id IN ({r})"
            " ORDER BY run_id, trial_idx, position",
            rl,
        ),
        "labels": (
            f"SELECT {_SUBJECT_COLS}, x.annotator, x.dimension, x.label, x.confidence, x.detail,"
            " x.created_at, x.design, x.inclusion_probability, x.sample_draw"
            f" FROM annotations x {_SUBJECT_JOIN} WHERE s.run_id IN ({r})"
            " ORDER BY s.run_id, s.trial_idx, s.position, x.annotator, x.dimension",
            rl,
        ),
        "notes": (
            f"SELECT {_SUBJECT_COLS}, x.annotator, x.note, x.created_at"
            f" FROM notes x {_SUBJECT_JOIN} WHERE s.run_id IN ({r})"
            " ORDER BY s.run_id, s.trial_idx, s.position, x.annotator",
            rl,
        ),
        "label_removals": (
            f"SELECT {_SUBJECT_COLS}, x.annotator, x.dimension, x.label, x.confidence,"
            f" x.detail, x.created_at, x.removed_at FROM label_removals x {_SUBJECT_JOIN}"
            f" WHERE s.run_id IN ({r}) ORDER BY x.id",
            rl,
        ),
        "flags": (
            "SELECT run_id, trial_idx, position, reason, detail, created_at FROM flags"
            f" WHERE run_id IN ({r}) ORDER BY id",
            rl,
        ),
        "calibrations": (
            "SELECT annotator, version, created_at, profile FROM calibrations WHERE annotator IN"
            f" (SELECT DISTINCT x.annotator FROM annotations x {_SUBJECT_JOIN}"
            f" WHERE s.run_id IN ({r})) ORDER BY annotator, created_at",
            rl,
        ),
        "audits": (f"SELECT * FROM audits WHERE id IN ({a}) ORDER BY created_at, id", al),
        "audit_parts": (
            f"SELECT * FROM audit_parts WHERE audit_id IN ({a}) ORDER BY audit_id, position",
            al,
        ),
    }


def read_rows(db: sqlite3.Connection, spec: TableSpec, query: tuple[str, list[Any]]) -> list[dict]:
    sql, args = query
    if not _has_table(db, "audits") and spec.name.startswith("audit"):
        return []
    return [{c: row[c] for c in spec.names} for row in db.execute(sql, args)]


def _has_table(db: sqlite3.Connection, name: str) -> bool:
    found = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
    return found.fetchone() is not None


def to_parquet(spec: TableSpec, rows: list[dict[str, Any]]) -> bytes:
    pa, pq = _arrow()
    arrow = {"text": pa.string(), "int": pa.int64(), "real": pa.float64()}
    schema = pa.schema([pa.field(c.name, arrow[c.kind], nullable=c.nullable) for c in spec.columns])
    table = pa.Table.from_pylist(rows, schema=schema)
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def from_parquet(spec: TableSpec, data: bytes, where: str) -> list[dict[str, Any]]:
    """The rows of a staged table, every column checked against the layout."""
    pa, pq = _arrow()
    try:
        table = pq.read_table(io.BytesIO(data))
    except (pa.ArrowException, OSError) as error:
        raise BundleError(f"{where}: not a readable Parquet table ({error})") from None
    missing = [c for c in spec.names if c not in table.column_names]
    if missing:
        raise BundleError(
            f"{where}: the table lacks the columns {', '.join(missing)}; the bundle was not "
            "written by diptych, or by a diptych that writes another layout"
        )
    rows = table.select(spec.names).to_pylist()
    for number, row in enumerate(rows, 1):
        for column in spec.columns:
            value = row[column.name]
            if value is None and column.nullable:
                continue
            if not isinstance(value, _PYTHON[column.kind]) or isinstance(value, bool):
                wanted = f"a {column.kind}" + (" or null" if column.nullable else "")
                raise BundleError(
                    f"{where}: row {number}, column {column.name} holds {value!r}, not {wanted}"
                )
    return rows

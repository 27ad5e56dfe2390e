"""A bundle's records written into a workspace, inside one transaction the caller holds.

A record the workspace already holds under the same key is left alone when the two agree on
what makes it that record (a label's label and design, a result's output and blob, a run's
parameters and fingerprint) and refused when they do not: importing twice adds nothing, and an
import never overwrites what a workspace recorded itself.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from diptych.core.evidence.bundle.layout import SUBJECT_TABLES, TABLES, BundleError, TableSpec

_SUBJECT_KEY = ("run_id", "trial_idx", "position")


@dataclass
class MergeCounts:
    #: Per table, records added and records already present.
    added: dict[str, int] = field(default_factory=dict)
    present: dict[str, int] = field(default_factory=dict)


def _where(columns: Sequence[str]) -> str:
    # IS, not =: a key column may be null (a flag on a whole image has no position).
    return " AND ".join(f"{c} IS ?" for c in columns)


def _target(spec: TableSpec) -> tuple[str, list[str]]:
    """The store's table for a bundle table, and the bundle columns that name its record there
    (a person's three columns become ``subject_id``)."""
    if spec.name in SUBJECT_TABLES:
        rest = [c for c in spec.key if c not in _SUBJECT_KEY]
        return SUBJECT_TABLES[spec.name], ["subject_id", *rest]
    return spec.name, list(spec.key)


def _record(spec: TableSpec, row: Mapping[str, Any], subjects: Mapping[tuple, int]) -> dict:
    """The row as the store's table holds it."""
    if spec.name not in SUBJECT_TABLES:
        return dict(row)
    person = tuple(row[c] for c in _SUBJECT_KEY)
    if person not in subjects:
        raise BundleError(
            f"the bundle's {spec.name} name a person ({', '.join(map(str, person))}) its "
            "subjects table lacks; the bundle is incomplete: export it again"
        )
    out = {k: v for k, v in row.items() if k not in _SUBJECT_KEY}
    out["subject_id"] = subjects[person]
    return out


def _subjects(db: sqlite3.Connection, runs: Sequence[str]) -> dict[tuple, int]:
    marks = ",".join("?" * len(runs))
    return {
        (r["run_id"], r["trial_idx"], r["position"]): r["id"]
        for r in db.execute(
            f"SELECT id, run_id, trial_idx, position FROM subjects WHERE run_id IN ({marks})",
            list(runs),
        )
    }


def _describe(spec: TableSpec, row: Mapping[str, Any]) -> str:
    return f"{spec.name} record " + "/".join(str(row[c]) for c in spec.key)


def merge(db: sqlite3.Connection, tables: Mapping[str, list[dict[str, Any]]]) -> MergeCounts:
    """Write every record the store lacks; raise :class:`BundleError` on the first record the
    store holds otherwise (the caller's transaction then rolls everything back)."""
    counts = MergeCounts()
    runs = [r["id"] for r in tables.get("runs", [])]
    subjects: dict[tuple, int] = {}
    for spec in TABLES:
        if spec.name in SUBJECT_TABLES and not subjects:
            subjects = _subjects(db, runs)
        table, key = _target(spec)
        added = present = 0
        for row in tables.get(spec.name, []):
            record = _record(spec, row, subjects)
            found = db.execute(
                f"SELECT * FROM {table} WHERE {_where(key)}", [record[c] for c in key]
            ).fetchone()
            if found is not None:
                differs = [c for c in spec.agree if found[c] != record[c]]
                if differs:
                    raise BundleError(
                        f"the workspace already holds {_describe(spec, row)} with another "
                        f"{differs[0]}; import into a fresh workspace (--store) to keep both"
                    )
                present += 1
                continue
            columns = list(record)
            marks = ", ".join("?" * len(columns))
            db.execute(
                f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})",
                [record[c] for c in columns],
            )
            added += 1
        counts.added[spec.name], counts.present[spec.name] = added, present
        if spec.name == "subjects":
            subjects = _subjects(db, runs)
    return counts

"""What the store hands back: a run, a planned trial, a result, a calibration."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection
from dataclasses import dataclass, fields
from typing import Any, TypeVar, cast

R = TypeVar("R")

#: Outcomes a trial is never asked again for (a ``failed`` one is retried).
TERMINAL = ("done", "refused")


#: Each record class's field names, read once.
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def record_from_row(
    cls: type[R],
    row: sqlite3.Row,
    *,
    json_columns: Collection[str] = (),
    nullable_json: Collection[str] = (),
) -> R:
    """The record whose every field is the row's column of the same name, the ``json_columns``
    decoded from their JSON text (``nullable_json`` too, where the column is not NULL)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cast("type[Any]", cls)))
    values = {name: row[name] for name in names}
    for name in json_columns:
        values[name] = json.loads(values[name])
    for name in nullable_json:
        if values[name] is not None:
            values[name] = json.loads(values[name])
    return cls(**values)


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

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> RunRecord:
        return record_from_row(cls, row, json_columns=("params", "models"))


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

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> ResultRecord:
        return record_from_row(cls, row, json_columns=("provenance",), nullable_json=("output",))


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

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> TrialRow:
        return record_from_row(cls, row, json_columns=("payload", "meta"))


@dataclass(frozen=True)
class CalibrationRecord:
    """A stored error profile of an annotator (see diptych.plugins.probes.calibration)."""

    id: int
    annotator: str
    version: str
    created_at: float
    profile: dict[str, Any]

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> CalibrationRecord:
        return record_from_row(cls, row, json_columns=("profile",))

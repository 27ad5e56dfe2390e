"""The stored records a report of some runs rests on, each with its digest, by kind and id.

One digest per record, so that a change names its record: ``label 12/human:w01 changed`` says
which person's label by which reviewer, ``blob 3fa4…`` which image. The kinds:

========== ============================================= ==========================================
kind       id                                            what is hashed
========== ============================================= ==========================================
run        run id                                        probe, its version and parameters, models,
                                                         status, trial count, diptych version
trial      run id / index                                the planned trial: model, key, payload
result     trial key                                     the stored outcome and its provenance
blob       sha256                                        the image or long text's bytes, re-read
subject    run id / trial index / position               a person to be labelled
label      subject / annotator                           the label, confidence, design, draw
note       subject / annotator                           a reviewer's note
removed    subject / annotator / when                    a label taken back, and when
calibration annotator                                    the annotator's error profile in use
build      run id / model id                             the backend builds its results name
version    ``diptych``, ``probe/NAME``                   the versions the report was made with
audit      audit id                                      the audit file, its name and hash
look       audit id / part name                          the part's looks, status and cost
========== ============================================= ==========================================

A record's JSON columns are hashed as the values they encode, not as their text. A run's
``updated_at`` is left out: it moves when a run is opened again without any record of
the evidence changing. Flags for review are derived from labels and provenance (both hashed)
and recomputed at will, so they are not records of their own.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from diptych.core.audit.record import list_audits
from diptych.core.builds import builds_by_model
from diptych.core.evidence.manifest import file_sha256, record_digest
from diptych.core.trials import sha256_hex

if TYPE_CHECKING:
    from diptych.core.store import Store

Records = dict[str, dict[str, str]]


def _rows(store: Store, sql: str, args: Sequence[Any]) -> list[dict[str, Any]]:
    return [
        {k: _value(v) for k, v in dict(row).items()} for row in store.db.execute(sql, tuple(args))
    ]


def _value(value: Any) -> Any:
    """A column's value as its meaning, not its bytes: JSON text (parameters, payloads,
    provenance) as the value it encodes, so that the same record written again by another
    JSON writer (a bundle imported elsewhere) keeps its digest."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _marks(n: int) -> str:
    return ",".join("?" * n)


def collect_records(store: Store, run_ids: Sequence[str], versions: dict[str, str]) -> Records:
    """Every record the report of ``run_ids`` rests on, digested (see the module's table).
    ``versions`` are the diptych and probe versions the report is made with."""
    out: Records = {}

    def put(kind: str, key: str, digest: str) -> None:
        out.setdefault(kind, {})[key] = digest

    ids = list(run_ids)
    marks = _marks(len(ids))
    for row in _rows(store, f"SELECT * FROM runs WHERE id IN ({marks})", ids):
        row.pop("updated_at", None)
        put("run", row["id"], record_digest(row))
    for row in _rows(store, f"SELECT * FROM trials WHERE run_id IN ({marks})", ids):
        put("trial", f"{row['run_id']}/{row['idx']}", record_digest(row))
    results = _rows(
        store,
        f"SELECT * FROM results WHERE key IN (SELECT key FROM trials WHERE run_id IN ({marks}))",
        ids,
    )
    blobs: set[str] = set()
    for row in results:
        put("result", row["key"], record_digest(row))
        if row["blob"]:
            blobs.add(row["blob"])
            listed = row["output"].get("blobs") if isinstance(row["output"], dict) else None
            # An output may list more blobs than its main one (several images of one call).
            blobs.update(sha for sha in listed or () if isinstance(sha, str))
    for sha in sorted(blobs):
        path = store.blob_path(sha)
        # The bytes on disk, not the name they are filed under: a blob changed in place keeps
        # its name. One that is gone is its own digest of nothing.
        put("blob", sha, file_sha256(path) if path.is_file() else sha256_hex(b""))
    _labels(store, ids, put)
    _builds(store, ids, put)
    for name, version in versions.items():
        put("version", name, sha256_hex(version))
    _audits(store, set(ids), put)
    return out


def _labels(store: Store, ids: list[str], put: Any) -> None:
    marks = _marks(len(ids))
    subjects = _rows(store, f"SELECT * FROM subjects WHERE run_id IN ({marks})", ids)
    # A subject is named by its run, trial and position, never by its row id: the same
    # evidence imported into another workspace numbers its rows anew.
    named: dict[int, str] = {}
    for row in subjects:
        name = f"{row['run_id']}/{row['trial_idx']}/{row['position']}"
        named[row.pop("id")] = name
        put("subject", name, record_digest(row))
    annotators: set[str] = set()
    for chunk in _chunks(list(named)):
        m = _marks(len(chunk))
        for row in _rows(store, f"SELECT * FROM annotations WHERE subject_id IN ({m})", chunk):
            annotators.add(row["annotator"])
            subject = named[row.pop("subject_id")]
            row.pop("id", None)
            # A person's gender and tone labels by one annotator are two records; the gender
            # one keeps the key bundles signed before tone labels existed name it by.
            dimension = row.get("dimension") or "gender"
            tail = "" if dimension == "gender" else f"/{dimension}"
            put("label", f"{subject}/{row['annotator']}{tail}", record_digest(row))
        for row in _rows(store, f"SELECT * FROM notes WHERE subject_id IN ({m})", chunk):
            subject = named[row.pop("subject_id")]
            put("note", f"{subject}/{row['annotator']}", record_digest(row))
        for row in _rows(store, f"SELECT * FROM label_removals WHERE subject_id IN ({m})", chunk):
            subject = named[row.pop("subject_id")]
            row.pop("id", None)
            when = repr(row["removed_at"])
            put("removed", f"{subject}/{row['annotator']}/{when}", record_digest(row))
    for annotator in sorted(annotators):
        calibration = store.latest_calibration(annotator)
        if calibration is not None:
            put(
                "calibration",
                annotator,
                record_digest(
                    {
                        "annotator": calibration.annotator,
                        "version": calibration.version,
                        "created_at": calibration.created_at,
                        "profile": calibration.profile,
                    }
                ),
            )


def _builds(store: Store, ids: list[str], put: Any) -> None:
    for run_id in ids:
        results = store.run_results(run_id).values()
        for model, builds in sorted(builds_by_model(results).items()):
            put("build", f"{run_id}/{model}", record_digest({"builds": builds}))


def _audits(store: Store, ids: set[str], put: Any) -> None:
    for audit in list_audits(store):
        parts = [p for p in audit.parts if p.run_id in ids]
        if not parts:
            continue
        put(
            "audit",
            audit.id,
            record_digest(
                {
                    "name": audit.name,
                    "file_hash": audit.file_hash,
                    "file_text": audit.file_text,
                }
            ),
        )
        for part in parts:
            put(
                "look",
                f"{audit.id}/{part.name}",
                record_digest(
                    {
                        "run_id": part.run_id,
                        "kind": part.kind,
                        "status": part.status,
                        "cost": part.cost,
                        "detail": json.loads(json.dumps(part.detail, default=str)),
                    }
                ),
            )


def _chunks(items: list[int], size: int = 500) -> Iterable[list[int]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]

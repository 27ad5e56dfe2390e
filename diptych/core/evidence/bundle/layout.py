"""What a bundle holds and where: its manifest, its tables and their columns, its limits.

A bundle is a zip or tar archive::

    bundle.json                  the manifest: format, format version, diptych version, schema
                                 version, what was exported, and every other member with its
                                 SHA-256 and size
    tables/<table>.parquet       one Parquet table per record kind (see :data:`TABLES`)
    blobs/ab/cdef...             images and long texts, named by their SHA-256 as in a workspace
    report/...                   the report directory, its manifest and signature included

A table's row names its record by the record's own key (a label by run, trial, position and
annotator), never by a row number of the workspace it came from, so that pandas, Hugging Face
``datasets`` and another workspace read it alike. Columns that hold JSON in the workspace hold
the same JSON text here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from diptych.core.errors import InputFileError

#: What the manifest's ``format`` says; anything else is not a diptych bundle.
BUNDLE_FORMAT = "diptych-evidence-bundle"
#: Raised whenever the layout changes so that an older reader would misread it.
FORMAT_VERSION = 1
#: The bundle's own manifest, the archive's first member.
MANIFEST_NAME = "bundle.json"
TABLES_DIR = "tables"
BLOBS_DIR = "blobs"
REPORT_DIR = "report"
#: Where an imported report directory is put, inside the workspace.
IMPORTED_REPORTS = "reports"

_SHA = re.compile(r"[0-9a-f]{64}")


class BundleError(InputFileError):
    """A bundle that cannot be written or read: damaged, altered, oversized, unsafe, or
    conflicting with what the workspace holds."""


@dataclass(frozen=True)
class BundleLimits:
    """Sizes checked before anything is extracted: a bundle that states more is refused, and
    one whose members turn out larger than stated is stopped as it is read."""

    #: Every member together, uncompressed.
    total_bytes: int = 16 * 1024**3
    #: Any one member, uncompressed (an image, a table).
    member_bytes: int = 2 * 1024**3
    #: The manifest (it is read whole into memory).
    manifest_bytes: int = 256 * 1024**2
    #: Members of the archive.
    members: int = 2_000_000


@dataclass(frozen=True)
class Column:
    name: str
    #: "text", "int" or "real": the column's type in the workspace and in Parquet.
    kind: str
    nullable: bool = False


@dataclass(frozen=True)
class TableSpec:
    """One record kind: its columns, the ones that name a record, and the ones two copies of
    the same record must agree on (the rest, such as a status or a time of the last change, may
    have moved on in a workspace that kept working)."""

    name: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]
    agree: tuple[str, ...]

    @property
    def member(self) -> str:
        return f"{TABLES_DIR}/{self.name}.parquet"

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]


def _cols(spec: str) -> tuple[Column, ...]:
    """``"id:text run_id:text? n:int"`` as columns; ``?`` marks a column that may be null."""
    out = []
    for item in spec.split():
        name, kind = item.split(":")
        out.append(Column(name, kind.rstrip("?"), kind.endswith("?")))
    return tuple(out)


_SUBJECT = "run_id:text trial_idx:int position:text"

#: The record kinds a bundle carries, in the order they are written into a workspace.
TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        "runs",
        _cols(
            "id:text probe:text probe_version:text params:text models:text fingerprint:text "
            "status:text n_trials:int diptych_version:text created_at:real updated_at:real "
            "plan_complete:int outcome_counts:text?"
        ),
        key=("id",),
        agree=("probe", "probe_version", "params", "models", "fingerprint"),
    ),
    TableSpec(
        "trials",
        _cols(
            "run_id:text idx:int model_id:text key:text capability:text sample:int "
            "payload:text meta:text"
        ),
        key=("run_id", "idx"),
        agree=("key",),
    ),
    TableSpec(
        "results",
        _cols(
            "key:text model_id:text model_version:text capability:text status:text "
            "output:text? blob:text? error:text? attempts:int started_at:real "
            "finished_at:real duration_s:real provenance:text"
        ),
        key=("key",),
        agree=("status", "output", "blob"),
    ),
    TableSpec(
        "subjects",
        _cols(f"{_SUBJECT} meta:text"),
        key=("run_id", "trial_idx", "position"),
        agree=(),
    ),
    # A label with its annotator (``human:<reviewer>``, ``self``, an automatic annotator), the
    # dimension it labels (``gender`` or ``tone``) and the sampling design that chose the person.
    TableSpec(
        "labels",
        _cols(
            f"{_SUBJECT} annotator:text dimension:text label:text confidence:real? "
            "detail:text created_at:real design:text? inclusion_probability:real? "
            "sample_draw:text?"
        ),
        # One label per person, annotator and dimension (perceived gender, skin tone).
        key=("run_id", "trial_idx", "position", "annotator", "dimension"),
        agree=("label", "confidence", "design", "inclusion_probability"),
    ),
    TableSpec(
        "notes",
        _cols(f"{_SUBJECT} annotator:text note:text created_at:real"),
        key=("run_id", "trial_idx", "position", "annotator"),
        agree=("note",),
    ),
    TableSpec(
        "label_removals",
        _cols(
            f"{_SUBJECT} annotator:text dimension:text label:text confidence:real? "
            "detail:text created_at:real removed_at:real"
        ),
        key=("run_id", "trial_idx", "position", "annotator", "created_at", "removed_at"),
        agree=("label",),
    ),
    TableSpec(
        "flags",
        _cols("run_id:text trial_idx:int position:text? reason:text detail:text created_at:real"),
        key=("run_id", "trial_idx", "position", "reason", "detail"),
        agree=(),
    ),
    TableSpec(
        "calibrations",
        _cols("annotator:text version:text created_at:real profile:text"),
        key=("annotator", "version", "created_at"),
        agree=("profile",),
    ),
    TableSpec(
        "audits",
        _cols(
            "id:text name:text file_hash:text file_path:text file_text:text status:text "
            "report:text? created_at:real updated_at:real"
        ),
        key=("id",),
        agree=("file_hash",),
    ),
    # An audit's parts, each with its run and, in ``detail``, the looks its gates took.
    TableSpec(
        "audit_parts",
        _cols(
            "audit_id:text position:int name:text kind:text run_id:text? status:text "
            "cost:real? detail:text updated_at:real"
        ),
        key=("audit_id", "name"),
        agree=("kind", "run_id"),
    ),
)

#: Tables whose rows name a person by (run, trial, position) where the workspace uses a
#: subject's row number.
SUBJECT_TABLES = {"labels": "annotations", "notes": "notes", "label_removals": "label_removals"}


def blob_member(sha: str) -> str:
    return f"{BLOBS_DIR}/{sha[:2]}/{sha[2:]}"


def blob_of_member(path: str) -> str | None:
    """The SHA-256 a ``blobs/ab/cdef...`` member is named by, or None when it is not one."""
    parts = path.split("/")
    if len(parts) != 3 or parts[0] != BLOBS_DIR:
        return None
    sha = parts[1] + parts[2]
    return sha if len(parts[1]) == 2 and _SHA.fullmatch(sha) else None


def is_sha(text: str) -> bool:
    return bool(_SHA.fullmatch(text))

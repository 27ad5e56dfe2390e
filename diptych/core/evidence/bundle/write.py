"""Writing a bundle: the records of some runs and audits, their blobs and a report directory.

The archive is written beside its final name and renamed into place at the end, so a failed
export (a secret found in a blob, a full disk) leaves no half bundle behind.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diptych._version import __version__
from diptych.core.errors import ManifestError
from diptych.core.evidence.bundle.archive import ArchiveWriter, archive_kind
from diptych.core.evidence.bundle.layout import (
    BUNDLE_FORMAT,
    FORMAT_VERSION,
    MANIFEST_NAME,
    REPORT_DIR,
    TABLES,
    BundleError,
    blob_member,
)
from diptych.core.evidence.bundle.rows import read_rows, scope_queries, to_parquet
from diptych.core.evidence.bundle.scrub import Scrubber, environment_secrets, holds_secret
from diptych.core.evidence.manifest import OWN_FILES, SIGNATURE, report_members
from diptych.core.migrations import SCHEMA_VERSION
from diptych.core.store import Store
from diptych.core.trials import sha256_hex

#: A SHA-256 written anywhere in a record: a result's image, the images a trial shows a model.
_SHA_IN_TEXT = re.compile(r"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])")
#: Columns that may name blobs.
_BLOB_COLUMNS = {"trials": ("payload", "meta"), "results": ("blob", "output", "provenance")}


@dataclass
class ExportSummary:
    path: Path
    runs: list[str]
    audits: list[str]
    #: Rows per table.
    rows: dict[str, int] = field(default_factory=dict)
    blobs: int = 0
    #: The report's files, as its manifest lists them, and whether its manifest and
    #: signature travel with them.
    report_files: int = 0
    report_signed: bool = False
    #: Bytes of every member, uncompressed, and of the archive written.
    member_bytes: int = 0
    archive_bytes: int = 0
    #: Values taken out of records because they were, or looked like, secrets.
    redacted: int = 0


def _scrubbed(rows: list[dict[str, Any]], scrubber: Scrubber) -> list[dict[str, Any]]:
    return [
        {k: scrubber.json_text(v) if isinstance(v, str) else v for k, v in row.items()}
        for row in rows
    ]


def _blob_refs(store: Store, tables: Mapping[str, list[dict[str, Any]]]) -> list[str]:
    """Every blob the records name that the workspace holds, each once, in a stable order."""
    found: dict[str, None] = {}
    for table, columns in _BLOB_COLUMNS.items():
        for row in tables.get(table, []):
            for column in columns:
                if isinstance(row[column], str):
                    found.update(dict.fromkeys(_SHA_IN_TEXT.findall(row[column])))
    return [sha for sha in found if store.has_blob(sha)]


def _report_files(report_dir: Path) -> list[tuple[str, Path]]:
    """(member name, file) of every file of the report directory, as its manifest counts
    them (a workspace kept in the folder is no part of the report); a link is refused, since
    what it points to is no part of the report."""
    if not report_dir.is_dir():
        raise BundleError(f"--report {report_dir}: not a directory; give a report's directory")
    try:
        names = report_members(report_dir)
    except ManifestError as error:
        raise BundleError(f"--report {report_dir}: {error}") from None
    return [(f"{REPORT_DIR}/{name}", report_dir / name) for name in names]


def write_bundle(
    store: Store,
    target: Path,
    *,
    runs: Sequence[str],
    audits: Sequence[str] = (),
    report_dir: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> ExportSummary:
    """Write the records of ``runs`` and ``audits``, their blobs and ``report_dir`` into the
    archive ``target`` (.zip, .tar or .tar.gz)."""
    archive_kind(target)
    secrets = environment_secrets(environ)
    scrubber = Scrubber(secrets)
    queries = scope_queries(runs, audits)
    tables = {
        spec.name: _scrubbed(read_rows(store.db, spec, queries[spec.name]), scrubber)
        for spec in TABLES
    }
    blobs = _blob_refs(store, tables)
    reports = _report_files(report_dir) if report_dir is not None else []
    summary = ExportSummary(target, list(runs), list(audits), redacted=scrubber.redacted)
    summary.rows = {name: len(rows) for name, rows in tables.items()}
    own = {f"{REPORT_DIR}/{name}" for name in OWN_FILES}
    summary.blobs = len(blobs)
    summary.report_files = sum(name not in own for name, _ in reports)
    summary.report_signed = any(name == f"{REPORT_DIR}/{SIGNATURE}" for name, _ in reports)

    table_bytes = {spec.member: to_parquet(spec, tables[spec.name]) for spec in TABLES}

    def members() -> Iterator[tuple[str, bytes]]:
        yield from table_bytes.items()
        for sha in blobs:
            yield blob_member(sha), store.get_blob(sha)
        for name, path in reports:
            yield name, path.read_bytes()

    secret_items = list(secrets.items())
    listed: list[dict[str, Any]] = []
    for name, data in members():
        leaked = holds_secret(data, secret_items)
        if leaked is not None:
            raise BundleError(
                f"{name} holds the value of ${leaked}, which must not leave this machine; "
                + (
                    "write the report again without it, or leave out --report"
                    if name.startswith(REPORT_DIR + "/")
                    else "unset the variable if the value is no secret"
                )
            )
        listed.append({"path": name, "sha256": sha256_hex(data), "size": len(data)})
    manifest = {
        "format": BUNDLE_FORMAT,
        "format_version": FORMAT_VERSION,
        "diptych_version": __version__,
        "schema_version": SCHEMA_VERSION,
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "runs": list(runs),
        "audits": list(audits),
        "tables": {
            spec.name: {"path": spec.member, "rows": len(tables[spec.name])} for spec in TABLES
        },
        "report": ({"path": REPORT_DIR, "name": report_dir.resolve().name} if report_dir else None),
        "members": listed,
    }
    manifest_bytes = json.dumps(manifest, indent=1, sort_keys=True).encode()
    summary.member_bytes = len(manifest_bytes) + sum(m["size"] for m in listed)

    fd, scratch = tempfile.mkstemp(dir=target.absolute().parent, prefix=f".{target.name}.")
    os.close(fd)
    # The scratch file's name ends like the target's, so the writer picks the same format.
    partial = Path(scratch + "".join(target.suffixes[-2:]))
    os.replace(scratch, partial)
    try:
        writer = ArchiveWriter(partial)
        try:
            writer.add(MANIFEST_NAME, manifest_bytes)
            for (name, data), meant in zip(members(), listed, strict=True):
                if sha256_hex(data) != meant["sha256"]:
                    # A report file rewritten while the bundle was being written.
                    raise BundleError(f"{name} changed while it was being exported; export again")
                writer.add(name, data)
        finally:
            writer.close()
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    summary.archive_bytes = target.stat().st_size
    return summary

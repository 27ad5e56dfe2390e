"""The manifest of a report: the SHA-256 of every file of the report and of every stored record
it rests on, with the date and the signer, as canonical JSON.

Canonical means that the same evidence always gives the same bytes: keys sorted, paths relative
to the report's directory with ``/`` between their parts, one digest per record kind and record
id. Two signings of the same report differ only in ``date`` (and in the signature beside the
manifest), so ``diff`` between two manifests shows what changed.

A manifest is read as hostile input: it may have been cut short, grown without bound, list a
file twice or name a path outside the report's directory; each is refused in one line before
anything else is read.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from diptych.core.errors import ManifestError
from diptych.core.store.connection import DB_NAME
from diptych.core.trials import sha256_hex

#: The manifest's and its signature's names inside the report's directory. The signature is
#: what ``ssh-keygen -Y sign`` writes beside the file it signs.
MANIFEST = "manifest.json"
SIGNATURE = "manifest.json.sig"
#: What the manifest says it is, and the version of its layout.
FORMAT = "diptych-report-manifest"
FORMAT_VERSION = 1
#: The largest manifest read: ~100 bytes a record, so a million records with room to spare.
MAX_MANIFEST_BYTES = 256 * 1024**2
#: The files of a report directory that are not part of the report the manifest lists.
OWN_FILES = frozenset({MANIFEST, SIGNATURE})

_HEX64 = re.compile(r"[0-9a-f]{64}")


def canonical_text(value: Any) -> str:
    """Sorted keys, two-space indent, UTF-8 as is, one newline at the end: equal values give
    equal bytes, and a diff of two manifests reads line by line."""
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def record_digest(record: Mapping[str, Any]) -> str:
    """The SHA-256 of one stored record (a row as a mapping), over its canonical JSON."""
    compact = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return sha256_hex(compact)


@dataclass(frozen=True)
class Manifest:
    """What a report rests on. ``report`` says how the report was made (its runs, label
    policy, agent sessions, formats) so that ``verify`` can make it again; ``files`` maps each
    file of the report to its digest; ``records`` maps each record kind to its records' ids
    and digests."""

    date: str
    signer: str
    diptych_version: str
    report: dict[str, Any]
    files: dict[str, str]
    records: dict[str, dict[str, str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "date": self.date,
            "signer": self.signer,
            "diptych_version": self.diptych_version,
            "report": self.report,
            "files": dict(sorted(self.files.items())),
            "records": {k: dict(sorted(v.items())) for k, v in sorted(self.records.items())},
        }

    def text(self) -> str:
        return canonical_text(self.to_json())

    @property
    def n_records(self) -> int:
        return sum(len(ids) for ids in self.records.values())


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, read a block at a time: a file far larger than any a
    report holds is hashed in the memory of one block."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def report_paths(directory: Path) -> list[str]:
    """Every file of the report in ``directory`` (the manifest and its signature aside), by
    its path relative to it. A symbolic link is refused: what it points at may change without
    the report's directory changing."""
    names = (path.relative_to(directory).as_posix() for path in _walk(directory))
    return sorted(name for name in names if name not in OWN_FILES)


def report_members(directory: Path) -> list[str]:
    """What travels as the report in ``directory``: the files its manifest lists
    (:func:`report_paths`) and, when it was signed, the manifest and its signature. A bundle
    carries exactly these, so that a workspace kept in the report's folder stays behind."""
    own = sorted(name for name in OWN_FILES if (directory / name).is_file())
    return report_paths(directory) + own


def report_files(directory: Path, names: Iterable[str] | None = None) -> dict[str, str]:
    """The files of the report in ``directory`` (``names``, else every one) with their
    SHA-256."""
    chosen = report_paths(directory) if names is None else names
    return {name: file_sha256(directory / name) for name in chosen}


def drop_stale_signature(directory: Path) -> str | None:
    """Remove the manifest and its signature from ``directory`` when its files no longer
    match them (a report or a screenshot written again into a signed report's folder), and
    say so in one line; ``None`` when there was none, or it still matches. A signature left
    over the old files would only make the next ``verify`` fail on a file nobody tampered
    with. A manifest that cannot be read is left for ``verify`` to name."""
    if not (directory / MANIFEST).is_file():
        return None
    try:
        manifest, _ = read_manifest(directory)
        current = report_paths(directory)
    except ManifestError:
        return None
    if sorted(manifest.files) == current and all(
        file_sha256(directory / name) == digest for name, digest in manifest.files.items()
    ):
        return None
    removed = []
    for name in (MANIFEST, SIGNATURE):
        if (directory / name).is_file():
            (directory / name).unlink()
            removed.append(name)
    return (
        f"the folder's old signature no longer matched: removed {', '.join(removed)}; "
        "sign again with --sign"
    )


def drop_stale_signatures(written: Mapping[str, Path]) -> list[str]:
    """:func:`drop_stale_signature` in every folder a report wrote a file to (``written``: its
    files by format, its figures directory under ``figures``), one line for each removed: the
    one step the CLI, the terminal app and the screenshot take after writing into a folder."""
    folders = {path.parent for kind, path in written.items() if kind != "figures"}
    return [said for folder in sorted(folders) if (said := drop_stale_signature(folder))]


def _walk(directory: Path) -> Iterator[Path]:
    for entry in os.scandir(directory):
        path = Path(entry.path)
        if entry.is_symlink():
            raise ManifestError(
                f"{path} is a symbolic link: a report's files are its own; copy the file in "
                "its place"
            )
        if entry.is_dir(follow_symlinks=False):
            # A workspace kept beside its report (the demo's .diptych/) is not the report: its
            # database changes with every read, and the bundle carries its records instead.
            if not (path / DB_NAME).is_file():
                yield from _walk(path)
        elif entry.is_file(follow_symlinks=False):
            yield path


def check_path(name: str) -> None:
    """A path the manifest lists stays inside the report's directory: relative, ``/``
    between its parts, no ``.`` or ``..`` part, no part empty."""
    parts = name.split("/")
    if (
        not name
        or name.startswith("/")
        or "\\" in name
        or "\x00" in name
        or PurePosixPath(name).is_absolute()
        or re.match(r"^[A-Za-z]:", name)
        or any(part in ("", ".", "..") for part in parts)
    ):
        raise ManifestError(
            f"{MANIFEST} lists {name!r}, a path outside the report's directory: a manifest "
            "names only files inside it; make the report and its manifest again"
        )


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise ManifestError(
                f"{MANIFEST} lists {key!r} twice: a manifest names each file and record once; "
                "make the report and its manifest again"
            )
        seen[key] = value
    return seen


def read_manifest(directory: Path) -> tuple[Manifest, bytes]:
    """The manifest of the report in ``directory`` and its bytes (what the signature signs),
    checked as hostile input; :class:`ManifestError` names what is wrong and what to do."""
    path = directory / MANIFEST
    try:
        info = path.lstat()
    except FileNotFoundError:
        raise ManifestError(
            f"{directory} holds no {MANIFEST}: sign the report with "
            "`diptych report RUN... --sign KEY`, or give the directory a signed report is in"
        ) from None
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
        raise ManifestError(
            f"{path} is not a regular file (a link, device or directory); put the manifest "
            "the report was signed with in its place"
        )
    if info.st_size > MAX_MANIFEST_BYTES:
        raise ManifestError(
            f"{path} is {info.st_size:,} bytes, more than the {MAX_MANIFEST_BYTES:,} a manifest "
            "may have; it is not one diptych wrote: make the report and its manifest again"
        )
    data = path.read_bytes()
    try:
        raw = json.loads(data.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise ManifestError(
            f"{path} is not whole JSON ({_why(error)}): it was cut short or damaged; copy the "
            "manifest again from where the report was signed"
        ) from None
    return _manifest(raw, path), data


def _why(error: Exception) -> str:
    if isinstance(error, json.JSONDecodeError):
        return f"{error.msg}, byte {error.pos}"
    return type(error).__name__


def _manifest(raw: Any, path: Path) -> Manifest:
    def bad(what: str) -> ManifestError:
        return ManifestError(
            f"{path}: {what}; it is not a manifest diptych wrote: make the report and its "
            "manifest again"
        )

    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise bad(f"it does not say it is a {FORMAT}")
    if raw.get("format_version") != FORMAT_VERSION:
        raise bad(
            f"its format_version is {raw.get('format_version')!r}, this diptych reads "
            f"{FORMAT_VERSION}"
        )
    for key in ("date", "signer", "diptych_version"):
        if not isinstance(raw.get(key), str):
            raise bad(f"{key!r} is missing or not text")
    report, files, records = raw.get("report"), raw.get("files"), raw.get("records")
    if (
        not isinstance(report, dict)
        or not isinstance(report.get("runs"), list)
        or not report["runs"]
        or not all(isinstance(r, str) for r in report["runs"])
    ):
        raise bad("'report' does not name the report's runs")
    if not isinstance(files, dict) or not files:
        raise bad("'files' lists no file of the report")
    for name, digest in files.items():
        check_path(name)
        if name in OWN_FILES:
            raise bad(f"it lists {name}, which is not part of the report")
        if not isinstance(digest, str) or not _HEX64.fullmatch(digest):
            raise bad(f"the digest of {name!r} is not a SHA-256")
    if not isinstance(records, dict):
        raise bad("'records' is missing")
    for kind, ids in records.items():
        if not isinstance(ids, dict) or not all(
            isinstance(d, str) and _HEX64.fullmatch(d) for d in ids.values()
        ):
            raise bad(f"the {kind!r} records are not digests by id")
    return Manifest(
        date=raw["date"],
        signer=raw["signer"],
        diptych_version=raw["diptych_version"],
        report=report,
        files=dict(files),
        records={k: dict(v) for k, v in records.items()},
    )


def first_difference(kind: str, signed: Mapping[str, str], found: Mapping[str, str]) -> str | None:
    """The first id (in sorted order) whose digest differs between what was signed and what is
    found now, in words; None when they agree."""
    for key in sorted(set(signed) | set(found)):
        if key not in found:
            return f"{kind} {key} is gone"
        if key not in signed:
            return f"{kind} {key} is new (not in the signed manifest)"
        if signed[key] != found[key]:
            return f"{kind} {key} changed"
    return None

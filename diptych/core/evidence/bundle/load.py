"""Importing a bundle: check it whole, stage it inside the workspace, then commit it at once.

Nothing of a bundle reaches the workspace's records before every check has passed: the
manifest's format, its members against the archive (none twice, none missing, none unlisted),
every size against the limits before a byte is unpacked, every member's SHA-256 as it is
unpacked into a staging directory inside the workspace, every table's columns. Then the blobs
are stored, the records written in one transaction and the report directory renamed into
``<workspace>/reports/``; a failure on the way takes back what was added.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diptych.core.evidence.bundle.archive import ArchiveReader, safe_name
from diptych.core.evidence.bundle.layout import (
    BUNDLE_FORMAT,
    FORMAT_VERSION,
    IMPORTED_REPORTS,
    MANIFEST_NAME,
    REPORT_DIR,
    TABLES,
    BundleError,
    BundleLimits,
    blob_of_member,
    is_sha,
)
from diptych.core.evidence.bundle.merge import merge
from diptych.core.evidence.bundle.rows import from_parquet
from diptych.core.json_input import parse_json
from diptych.core.store import Store
from diptych.core.store.leases import host_name, process_alive, process_start

_AGAIN = "export it again from the workspace it came from"
_SAFE_DIR = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,120}")


@dataclass
class ImportSummary:
    runs: list[str]
    audits: list[str]
    added: dict[str, int] = field(default_factory=dict)
    present: dict[str, int] = field(default_factory=dict)
    blobs_added: int = 0
    #: Where the bundle's report directory now is (None: the bundle had none).
    report: Path | None = None
    report_added: bool = False


def _no_twice(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    twice = next((k for k in keys if keys.count(k) > 1), None)
    if twice is not None:
        raise BundleError(f"the bundle's manifest names '{twice}' twice; refused: {_AGAIN}")
    return dict(pairs)


def read_manifest(reader: ArchiveReader) -> dict[str, Any]:
    where = f"{reader.path}: "
    if MANIFEST_NAME not in reader.members:
        raise BundleError(f"{where}no {MANIFEST_NAME}: not a diptych evidence bundle")
    data = reader.read(MANIFEST_NAME, reader.limits.manifest_bytes)
    try:
        manifest = json.loads(data, object_pairs_hook=_no_twice)
        parse_json(data.decode(), where)  # depth
    except (ValueError, UnicodeDecodeError) as error:
        raise BundleError(f"{where}{MANIFEST_NAME} is not JSON ({error}); {_AGAIN}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != BUNDLE_FORMAT:
        raise BundleError(f"{where}not a diptych evidence bundle (its manifest's format differs)")
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise BundleError(
            f"{where}bundle format version {version!r}; this diptych reads version "
            f"{FORMAT_VERSION}: import it with the diptych version that wrote it "
            f"({manifest.get('diptych_version', 'unknown')}) or upgrade diptych"
        )
    members = manifest.get("members")
    ok = isinstance(members, list) and all(
        isinstance(m, dict)
        and isinstance(m.get("path"), str)
        and isinstance(m.get("sha256"), str)
        and is_sha(m["sha256"])
        and isinstance(m.get("size"), int)
        and m["size"] >= 0
        for m in members
    )
    if (
        not ok
        or not isinstance(manifest.get("runs"), list)
        or not isinstance(manifest.get("audits"), list)
    ):
        raise BundleError(f"{where}its manifest lacks the members, runs or audits; {_AGAIN}")
    return manifest


def check_members(reader: ArchiveReader, manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The manifest's members by path, each safe, listed once, within the limits, present in
    the archive with the size stated; no archive member unlisted."""
    where, limits = f"{reader.path}: ", reader.limits
    listed: dict[str, dict[str, Any]] = {}
    for member in manifest["members"]:
        path = safe_name(member["path"], str(reader.path))
        if path in listed or path == MANIFEST_NAME:
            raise BundleError(f"{where}the manifest lists member '{path}' twice; {_AGAIN}")
        blob = blob_of_member(path)
        if path.startswith("blobs/") and blob != member["sha256"]:
            raise BundleError(
                f"{where}member '{path}' is not named by its SHA-256; the bundle was altered: "
                f"{_AGAIN}"
            )
        if member["size"] > limits.member_bytes:
            raise BundleError(
                f"{where}member '{path}' states {member['size']} bytes, over the limit of "
                f"{limits.member_bytes}; refused before unpacking"
            )
        listed[path] = member
    if sum(m["size"] for m in listed.values()) > limits.total_bytes:
        raise BundleError(
            f"{where}the members state more than the limit of {limits.total_bytes} bytes; "
            "refused before unpacking: split the export or raise the limit"
        )
    for spec in TABLES:
        if spec.member not in listed:
            raise BundleError(f"{where}the manifest lists no {spec.member}; {_AGAIN}")
    archived = set(reader.members) - {MANIFEST_NAME}
    missing = sorted(set(listed) - archived)
    if missing:
        raise BundleError(
            f"{where}member '{missing[0]}' of the manifest is not in the archive ({len(missing)} "
            "missing): the bundle is truncated or incomplete; copy it again"
        )
    unlisted = sorted(archived - set(listed))
    if unlisted:
        raise BundleError(
            f"{where}member '{unlisted[0]}' is not in the manifest; the bundle was altered: "
            f"{_AGAIN}"
        )
    for path, member in listed.items():
        if reader.members[path].size != member["size"]:
            raise BundleError(
                f"{where}member '{path}' is {reader.members[path].size} bytes, its manifest "
                f"says {member['size']}; the bundle was altered or damaged: {_AGAIN}"
            )
    return listed


def stage(reader: ArchiveReader, listed: dict[str, dict[str, Any]], staging: Path) -> None:
    """Unpack every member into ``staging``, checking its SHA-256 against the manifest."""
    root = staging.resolve()
    for path, member in listed.items():
        target = (staging / path).resolve()
        if not target.is_relative_to(root):  # safe_name already refuses this: belt and braces
            raise BundleError(f"{reader.path}: member '{path}' escapes the staging directory")
        digest, size = hashlib.sha256(), 0
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "xb") as handle:
                for chunk in reader.chunks(path, member["size"]):
                    digest.update(chunk)
                    size += len(chunk)
                    handle.write(chunk)
        except OSError as error:
            # A member named like another's directory ("a" and "a/b"), or a full disk.
            raise BundleError(
                f"{reader.path}: member '{path}' cannot be unpacked ({error.strerror}); {_AGAIN}"
            ) from None
        if size != member["size"] or digest.hexdigest() != member["sha256"]:
            raise BundleError(
                f"{reader.path}: member '{path}' has a SHA-256 other than its manifest states; "
                f"the bundle was altered or damaged: {_AGAIN}"
            )


def _check_references(tables: dict[str, list[dict[str, Any]]], where: str) -> None:
    runs = {r["id"] for r in tables["runs"]}
    audits = {a["id"] for a in tables["audits"]}
    for name, rows in tables.items():
        for row in rows:
            ref = row.get("run_id") if name != "audit_parts" else None
            if ref is not None and ref not in runs:
                raise BundleError(
                    f"{where}{name} name run {ref}, which the bundle's runs table lacks; {_AGAIN}"
                )
            if name == "audit_parts" and row["audit_id"] not in audits:
                raise BundleError(f"{where}audit_parts name an audit it lacks; {_AGAIN}")


def _report_target(store: Store, manifest: dict[str, Any], staged: Path) -> Path | None:
    report = manifest.get("report")
    if not report or not (staged / REPORT_DIR).is_dir():
        return None
    name = report.get("name") if isinstance(report, dict) else None
    if not isinstance(name, str) or not _SAFE_DIR.fullmatch(name) or ".." in name:
        name = "report"
    return store.path / IMPORTED_REPORTS / name


def _same_tree(a: Path, b: Path) -> bool:
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    return files_a == files_b and all((a / f).read_bytes() == (b / f).read_bytes() for f in files_a)


def check_bundle(bundle: Path, *, limits: BundleLimits | None = None) -> None:
    """Refuse a file that is not a whole bundle before any workspace is made for it: its
    archive, its manifest and the members it lists (the records are checked on import)."""
    if not bundle.is_file():
        raise BundleError(f"{bundle}: no such file; give the bundle's path")
    reader = ArchiveReader(bundle, limits or BundleLimits())
    try:
        check_members(reader, read_manifest(reader))
    finally:
        reader.close()


#: An import unpacks a bundle into a folder of the workspace named for its process: one killed
#: (SIGKILL, a power cut) never removes it, and the next import does, once that process is gone.
STAGING = ".bundle-import-"


def _host_tag() -> str:
    return re.sub(r"[^A-Za-z0-9]", "", host_name())[:40] or "host"


def staging_prefix(pid: int) -> str:
    """The start of the staging folder's name of process ``pid`` of this host: its pid, when
    it started (so a reused pid is not taken for it) and the host."""
    return f"{STAGING}{pid}.{process_start(pid) or 0}.{_host_tag()}."


def remove_stale_staging(workspace: Path) -> list[Path]:
    """Remove the staging folders of imports whose process no longer runs; a live import's,
    another host's (whose processes cannot be seen from here) and any folder not named so are
    left. Returns the folders removed."""
    removed = []
    for folder in workspace.glob(f"{STAGING}*"):
        pid, started, host, *_ = [*folder.name[len(STAGING) :].split("."), "", "", ""]
        if not pid.isdigit() or host != _host_tag():
            continue
        if not process_alive(int(pid), "" if started == "0" else started):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def import_bundle(
    store: Store, bundle: Path, *, limits: BundleLimits | None = None
) -> ImportSummary:
    """Add what the bundle holds and the workspace lacks; refuse, adding nothing, a bundle that
    fails any check or holds a record the workspace holds otherwise."""
    store.require_writable("import a bundle")
    if not bundle.is_file():
        raise BundleError(f"{bundle}: no such file; give the bundle's path")
    limits = limits or BundleLimits()
    reader = ArchiveReader(bundle, limits)
    remove_stale_staging(store.path)
    staging = Path(tempfile.mkdtemp(dir=store.path, prefix=staging_prefix(os.getpid())))
    try:
        manifest = read_manifest(reader)
        listed = check_members(reader, manifest)
        stage(reader, listed, staging)
        where = f"{bundle}: "
        tables = {
            spec.name: from_parquet(
                spec, (staging / spec.member).read_bytes(), f"{where}{spec.member}"
            )
            for spec in TABLES
        }
        _check_references(tables, where)
        blobs = {blob_of_member(p): staging / p for p in listed if blob_of_member(p)}
        for row in tables["results"]:
            sha = row["blob"]
            if sha is not None and sha not in blobs and not store.has_blob(sha):
                raise BundleError(
                    f"{where}result {row['key']} names blob {sha}, which neither the bundle "
                    f"nor the workspace holds; {_AGAIN}"
                )
        report_target = _report_target(store, manifest, staging)
        summary = ImportSummary(runs=list(manifest["runs"]), audits=list(manifest["audits"]))
        if report_target is not None and report_target.exists():
            if not _same_tree(staging / REPORT_DIR, report_target):
                raise BundleError(
                    f"the workspace already holds another report at {report_target}; import "
                    "into a fresh workspace (--store), or move that directory away"
                )
            summary.report = report_target
        return _commit(store, tables, blobs, staging, report_target, summary)
    finally:
        reader.close()
        shutil.rmtree(staging, ignore_errors=True)


def _commit(
    store: Store,
    tables: dict[str, list[dict[str, Any]]],
    blobs: dict[str | None, Path],
    staging: Path,
    report_target: Path | None,
    summary: ImportSummary,
) -> ImportSummary:
    new_blobs = [sha for sha in blobs if sha is not None and not store.has_blob(sha)]
    moved = False
    try:
        for sha in new_blobs:
            store.put_blob(blobs[sha].read_bytes())
        with store.transaction() as db:
            counts = merge(db, tables)
            if report_target is not None and summary.report is None:
                report_target.parent.mkdir(exist_ok=True)
                (staging / REPORT_DIR).replace(report_target)
                moved = True
    except BaseException:
        # Blobs are content-addressed and harmless, but an import that failed adds nothing.
        for sha in new_blobs:
            store.blob_path(sha).unlink(missing_ok=True)
        if moved and report_target is not None:
            shutil.rmtree(report_target, ignore_errors=True)
        raise
    summary.added, summary.present = counts.added, counts.present
    summary.blobs_added = len(new_blobs)
    if moved:
        summary.report, summary.report_added = report_target, True
    return summary

"""Content-addressed blobs: images and long texts under ``blobs/ab/cdef...`` by their sha256.

A blob is checked against its name on every read: one damaged on disk is set aside (renamed
``*.corrupt``) and reported, never handed on, and a result whose blob is gone counts as not
stored, so the next resume asks for it again. A full disk stops the writer with one clear error
and leaves no half-written file behind.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import tempfile
from pathlib import Path

from diptych.core.errors import BlobCorruptError, StoreError, StoreFullError
from diptych.core.store.connection import DB_NAME, Connection
from diptych.core.trials import sha256_hex

#: errno values that mean "no room left": no space, or the user's disk quota is used up.
_FULL = {errno.ENOSPC, errno.EDQUOT}


def write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` (the one place blob bytes reach the disk)."""
    with open(path, "wb") as handle:
        handle.write(data)


class Blobs(Connection):
    def blob_path(self, sha: str) -> Path:
        return self.path / "blobs" / sha[:2] / sha[2:]

    def has_blob(self, sha: str) -> bool:
        """Whether the blob is on disk (its content is checked when it is read)."""
        return self.blob_path(sha).is_file()

    def put_blob(self, data: bytes) -> str:
        """Store ``data`` under its sha256 and return it; a blob already present is kept."""
        sha = sha256_hex(data)
        target = self.blob_path(sha)
        if target.exists():
            return sha
        fd, tmp = -1, ""
        try:
            target.parent.mkdir(exist_ok=True)
            # Write then rename: a reader never sees half a blob, even after a kill.
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
            os.close(fd)
            # mkstemp makes the file private (0600); a blob is as readable as the database,
            # so whoever may list the runs may also read their images.
            os.chmod(tmp, self._blob_mode())
            write_file(Path(tmp), data)
            os.replace(tmp, target)
        except OSError as error:
            if tmp:
                Path(tmp).unlink(missing_ok=True)
            if error.errno in _FULL:
                raise StoreFullError.of_disk(self.path, str(error.strerror)) from error
            raise StoreError(f"cannot write blob {sha} in {self.path}/blobs: {error}") from error
        return sha

    def _blob_mode(self) -> int:
        mode: int | None = getattr(self, "_blob_mode_bits", None)
        if mode is None:
            try:
                mode = (self.path / DB_NAME).stat().st_mode & 0o666
            except OSError:
                mode = 0o644
            self._blob_mode_bits = mode
        return mode

    def get_blob(self, sha: str) -> bytes:
        """The blob's bytes, checked against its sha256."""
        path = self.blob_path(sha)
        try:
            data = path.read_bytes()
        except FileNotFoundError as error:
            raise StoreError(
                f"blob {sha} is missing from {self.path}/blobs: resume its run to fetch it again"
            ) from error
        if sha256_hex(data) != sha:
            # Set aside, not deleted: an auditor may want to look at it; the next resume sees
            # the blob gone and asks for the trial again.
            with contextlib.suppress(OSError):  # a read-only workspace keeps it in place
                path.replace(path.with_name(path.name + ".corrupt"))
            raise BlobCorruptError(
                f"blob {sha} in {self.path}/blobs is damaged (its sha256 no longer matches); "
                "it was set aside: resume its run to fetch it again"
            )
        return data

    def drop_results_without_blobs(self, run_id: str) -> int:
        """Forget the run's results whose blob is gone from disk (deleted, or set aside as
        damaged), so that a resume asks for those trials again; how many were forgotten."""
        rows = self.db.execute(
            "SELECT key, blob, output FROM results WHERE key IN"
            " (SELECT key FROM trials WHERE run_id = ?) AND blob IS NOT NULL",
            (run_id,),
        ).fetchall()
        lost = [
            row["key"]
            for row in rows
            if not all(self.has_blob(sha) for sha in _shas(row["blob"], row["output"]))
        ]
        if lost:
            with self.transaction() as db:
                db.executemany("DELETE FROM results WHERE key = ?", [(key,) for key in lost])
        return len(lost)


def _shas(blob: str, output: str | None) -> list[str]:
    """A result's main blob and every blob its output lists."""
    shas = [blob]
    if output:
        listed = json.loads(output)
        if isinstance(listed, dict) and isinstance(listed.get("blobs"), list):
            shas += [sha for sha in listed["blobs"] if isinstance(sha, str)]
    return shas

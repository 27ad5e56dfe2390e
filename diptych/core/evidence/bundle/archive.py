"""Zip and tar archives, written plainly and read with suspicion.

Reading never calls ``extractall``: every member's name, kind and stated size is checked first
(a path that is absolute or climbs out with ``..``, a symlink, a hard link or a device, a name
twice, more bytes than the limits allow), and then each member is copied by hand into the
staging directory, counting the bytes as they come, so a member that inflates past what it
stated (a zip bomb) is stopped there.
"""

from __future__ import annotations

import io
import stat
import tarfile
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, BinaryIO

from diptych.core.evidence.bundle.layout import BundleError, BundleLimits

_CHUNK = 1 << 20
_AGAIN = "export it again from the workspace it came from"


def archive_kind(path: Path) -> str:
    """ "zip", "tar" or "tar.gz", by the name the user gave."""
    name = path.name.lower()
    if name.endswith(".zip"):
        return "zip"
    if name.endswith(".tar"):
        return "tar"
    if name.endswith((".tar.gz", ".tgz")):
        return "tar.gz"
    raise BundleError(f"--bundle {path}: name the file .zip, .tar or .tar.gz")


class ArchiveWriter:
    """Members added one by one, in order, each from bytes."""

    def __init__(self, path: Path) -> None:
        self.kind = archive_kind(path)
        self._zip: zipfile.ZipFile | None = None
        self._tar: tarfile.TarFile | None = None
        if self.kind == "zip":
            self._zip = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED)
        else:
            self._tar = tarfile.open(path, "w:gz" if self.kind == "tar.gz" else "w")

    def add(self, name: str, data: bytes) -> None:
        if self._zip is not None:
            info = zipfile.ZipInfo(name, date_time=time.gmtime()[:6])
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            self._zip.writestr(info, data)
        elif self._tar is not None:
            entry = tarfile.TarInfo(name)
            entry.size, entry.mtime, entry.mode = len(data), int(time.time()), 0o644
            self._tar.addfile(entry, io.BytesIO(data))

    def close(self) -> None:
        for handle in (self._zip, self._tar):
            if handle is not None:
                handle.close()


@dataclass(frozen=True)
class Member:
    name: str
    size: int


def safe_name(name: str, where: str) -> str:
    """``name`` when it is a relative path that stays inside the directory it is unpacked in."""
    if not name or "\\" in name or "\x00" in name or name.startswith("/") or ":" in name:
        raise BundleError(
            f"{where}: member '{name}' is not a relative path inside the bundle; the bundle is "
            f"unsafe, refused: {_AGAIN}"
        )
    parts = PurePosixPath(name).parts
    if any(p in ("..", ".", "") for p in parts) or name.endswith("/"):
        raise BundleError(
            f"{where}: member '{name}' climbs out of the bundle's directory; the bundle is "
            f"unsafe, refused: {_AGAIN}"
        )
    return name


class ArchiveReader:
    """The members of a zip or tar archive, checked before any is read."""

    def __init__(self, path: Path, limits: BundleLimits) -> None:
        self.path = path
        self.limits = limits
        self._zip: zipfile.ZipFile | None = None
        self._tar: tarfile.TarFile | None = None
        self._tar_members: dict[str, tarfile.TarInfo] = {}
        try:
            if zipfile.is_zipfile(path):
                self._zip = zipfile.ZipFile(path)
                self.members = self._zip_members()
            else:
                self._tar = tarfile.open(path, "r:*")
                self.members = self._tar_listing()
        except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as error:
            self.close()
            # tarfile's message lists every compression it tried, one a line: not said.
            why = "" if isinstance(error, tarfile.TarError) else f" ({error})"
            raise BundleError(
                f"{path}: not a whole zip or tar archive{why}; it may be truncated: "
                "copy the bundle again"
            ) from None
        total = sum(m.size for m in self.members.values())
        if len(self.members) > limits.members or total > limits.total_bytes:
            self.close()
            raise BundleError(
                f"{path}: the bundle unpacks to {len(self.members)} members and {total} bytes, "
                f"over the limit of {limits.members} members and {limits.total_bytes} bytes; "
                "refused before unpacking: split the export or raise the limit"
            )

    def _zip_members(self) -> dict[str, Member]:
        assert self._zip is not None
        out: dict[str, Member] = {}
        for info in self._zip.infolist():
            name = safe_name(info.filename, str(self.path))
            # Unix zips keep the file type in the high bits (a symlink's is S_IFLNK); others
            # keep none, and their members are files.
            kind = stat.S_IFMT(info.external_attr >> 16)
            if info.is_dir() or (kind and kind != stat.S_IFREG):
                raise BundleError(
                    f"{self.path}: member '{name}' is not a regular file (a link or a "
                    f"directory); the bundle is unsafe, refused: {_AGAIN}"
                )
            self._one(out, name, info.file_size)
        return out

    def _tar_listing(self) -> dict[str, Member]:
        assert self._tar is not None
        out: dict[str, Member] = {}
        for info in self._tar.getmembers():
            name = safe_name(info.name, str(self.path))
            if not info.isreg():
                kind = (
                    "a hard link"
                    if info.islnk()
                    else "a symlink"
                    if info.issym()
                    else ("not a regular file")
                )
                raise BundleError(
                    f"{self.path}: member '{name}' is {kind}; the bundle is unsafe, refused: "
                    f"{_AGAIN}"
                )
            self._one(out, name, info.size)
            self._tar_members[name] = info
        return out

    def _one(self, out: dict[str, Member], name: str, size: int) -> None:
        if name in out:
            raise BundleError(
                f"{self.path}: member '{name}' is in the archive twice; refused: {_AGAIN}"
            )
        if size > self.limits.member_bytes:
            raise BundleError(
                f"{self.path}: member '{name}' unpacks to {size} bytes, over the limit of "
                f"{self.limits.member_bytes}; refused before unpacking: {_AGAIN}"
            )
        out[name] = Member(name, size)

    def _open(self, name: str) -> IO[bytes]:
        if self._zip is not None:
            return self._zip.open(name)
        assert self._tar is not None
        handle = self._tar.extractfile(self._tar_members[name])
        assert handle is not None  # a regular file, checked above
        return handle

    def chunks(self, name: str, limit: int) -> Iterator[bytes]:
        """The member's bytes in chunks; stops with :class:`BundleError` past ``limit`` bytes or
        when the archive ends early."""
        seen = 0
        try:
            with self._open(name) as handle:
                while chunk := handle.read(_CHUNK):
                    seen += len(chunk)
                    if seen > limit:
                        raise BundleError(
                            f"{self.path}: member '{name}' unpacks to more than the {limit} "
                            f"bytes it states; refused: {_AGAIN}"
                        )
                    yield chunk
        except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as error:
            raise BundleError(
                f"{self.path}: member '{name}' cannot be read ({error}); the bundle is damaged "
                "or truncated: copy it again"
            ) from None

    def read(self, name: str, limit: int) -> bytes:
        return b"".join(self.chunks(name, limit))

    def copy_to(self, name: str, target: BinaryIO, limit: int) -> None:
        for chunk in self.chunks(name, limit):
            target.write(chunk)

    def close(self) -> None:
        for handle in (self._zip, self._tar):
            if handle is not None:
                handle.close()

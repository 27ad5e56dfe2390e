"""Storing what a call brought back, and what to do when the disk is full.

A model's answer is paid for the moment it arrives, so it is held in memory (blobs included)
until its row is written: a call never writes to the workspace itself. When a write fails
because the disk holding the workspace is full, :class:`DiskRoom` stops every worker from
sending another request, keeps the answers already received, and retries their writes every
:data:`DISK_POLL_S` seconds, saying so; if no room comes back within the run's ``disk_wait``,
the run stops with one line naming the space it needs. A process killed meanwhile loses only
the answers it held.

Before a paid run starts, :func:`check_free_space` refuses it when the disk has clearly less
room than its plan will write.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from diptych.core.capabilities import Capability
from diptych.core.engine.reporting import Reporter, warn
from diptych.core.errors import StoreFullError
from diptych.core.store import ResultRecord, Store, TrialRow
from diptych.core.trials import sha256_hex

#: Seconds between two tries of a write that found the disk full.
DISK_POLL_S = 1.0
#: Bytes one result row takes in the database, with its trial, indexes and provenance (a
#: generous figure: a likelihood row measures about 1.7 KB, a chat answer of 1,000 tokens adds
#: about 4 KB).
ROW_BYTES = 8 * 1024
#: Bytes one generated image takes as a PNG blob (a 1024x1024 photograph compresses to 1-2 MB).
IMAGE_BYTES = 2 * 1024 * 1024
#: Room SQLite needs beside what the rows themselves take: its shared-memory index and the
#: scratch of a transaction. The write-ahead log comes on top, as much as the rows written.
SQLITE_BYTES = 1024 * 1024

T = TypeVar("T")


def size_text(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


class HeldBlobs:
    """The store as a call sees it: blobs it makes are kept here, not written; every other
    read goes to the store."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.kept: dict[str, bytes] = {}

    def put_blob(self, data: bytes) -> str:
        sha = sha256_hex(data)
        self.kept[sha] = data
        return sha

    def get_blob(self, sha: str) -> bytes:
        return self.kept[sha] if sha in self.kept else self._store.get_blob(sha)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def referenced_blobs(record: ResultRecord) -> list[str]:
    """The blobs a result refers to: its main one and every one its output lists."""
    shas = [record.blob] if record.blob else []
    output = record.output if isinstance(record.output, dict) else {}
    shas += [sha for sha in output.get("blobs", []) if isinstance(sha, str) and sha not in shas]
    return shas


def write_result(store: Store, record: ResultRecord, blobs: dict[str, bytes]) -> None:
    """Blobs first, then the row (which releases the trial's claim), so that a row never
    names a blob that is not on disk."""
    for sha in referenced_blobs(record):
        if sha in blobs:
            store.put_blob(blobs[sha])
    store.save_result(record)


class DiskRoom:
    """One execution's view of the disk: open until a write finds it full, then closed to new
    requests until every answer held in memory is written (or the wait is over)."""

    def __init__(self, store: Store, reporter: Reporter, wait: float, poll: float = DISK_POLL_S):
        self.store = store
        self.reporter = reporter
        self.wait = wait
        self.poll = poll
        self.open = asyncio.Event()
        self.open.set()
        #: Answers received and not yet written, and their bytes.
        self.held = 0
        self.held_bytes = 0
        #: Answers that were held at some point and written once there was room.
        self.recovered = 0

    async def before_request(self) -> None:
        """Wait while the disk is full: no request is sent whose answer could not be kept."""
        await self.open.wait()

    async def write(self, fn: Callable[[], T], size: int = 0, *, answer: bool = True) -> T:
        """``fn()`` (a write to the store); while the disk is full, retried every ``poll``
        seconds for up to ``wait`` seconds. ``answer``: ``fn`` stores a paid answer (``size``
        bytes of it), counted as held meanwhile."""
        try:
            return fn()
        except StoreFullError as error:
            first = error
        if answer:
            self.held += 1
            self.held_bytes += size
        if self.open.is_set():
            self.open.clear()
            warn(
                self.reporter,
                f"the disk holding {self.store.path} is full: no new requests are sent; "
                f"answers received are kept in memory and their writes retried every "
                f"{self.poll:g} s for up to {self.wait:g} s: free some space",
            )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.wait
        try:
            while True:
                if loop.time() >= deadline:
                    raise StoreFullError(self._gave_up(first)) from None
                await asyncio.sleep(self.poll)
                try:
                    result = fn()
                except StoreFullError:
                    continue
                if answer:
                    self.recovered += 1
                return result
        finally:
            if answer:
                self.held -= 1
                self.held_bytes -= size
            if self.held == 0 and not self.open.is_set():
                self.open.set()
                warn(self.reporter, f"room on {self.store.path} again: requests resume")

    def _gave_up(self, error: StoreFullError) -> str:
        needed = room_needed(self.held, self.held_bytes)
        kept = (
            f"{self.held} paid answers received could not be stored and are lost"
            if self.held
            else "no answer was lost"
        )
        return (
            f"the disk holding {self.store.path} is still full after {self.wait:g} s: {kept}; "
            f"free at least {size_text(needed)} there, then resume the run"
        )


async def persist(
    store: Store,
    record: ResultRecord,
    blobs: dict[str, bytes],
    room: DiskRoom | None,
) -> None:
    """Write one result; with ``room``, held through a full disk (see :class:`DiskRoom`)."""
    if room is None:
        write_result(store, record, blobs)
        return
    size = sum(len(blobs[sha]) for sha in referenced_blobs(record) if sha in blobs)
    await room.write(lambda: write_result(store, record, blobs), size)


def room_needed(rows: int, blob_bytes: int) -> int:
    """The disk room storing ``rows`` result rows and ``blob_bytes`` of blobs takes: the rows,
    the write-ahead log holding a copy of each page written until it is checkpointed, SQLite's
    other files, and the blobs (files beside the database, which no log copies)."""
    return 2 * rows * ROW_BYTES + SQLITE_BYTES + blob_bytes


def planned_bytes(trials: Iterable[TrialRow]) -> int:
    """About how many bytes storing these trials' results takes (:func:`room_needed`): a row
    each, and an image generator's images."""
    rows = images = 0
    for trial in trials:
        rows += 1
        if trial.capability == Capability.IMAGE_GENERATOR:
            images += max(1, int(trial.payload.get("n", 1) or 1))
    return room_needed(rows, images * IMAGE_BYTES)


def check_free_space(path: Path, trials: list[TrialRow]) -> None:
    """Refuse a run, before anything is sent, when the disk holding ``path`` has less room
    than its pending ``trials`` will write."""
    if not trials:
        return
    needed = planned_bytes(trials)
    try:
        free = shutil.disk_usage(path).free
    except OSError:
        return
    if free < needed:
        raise StoreFullError(
            f"the disk holding {path} has {size_text(free)} free and this run's "
            f"{len(trials)} paid trials need about {size_text(needed)}: free some space, or "
            "choose a workspace on another disk with --store PATH"
        )

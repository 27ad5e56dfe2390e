"""The blob drill: damaged and deleted blobs are caught and fetched again; a full disk stops a
run cleanly and it resumes."""

from __future__ import annotations

import errno
import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from diptych.core.errors import BlobCorruptError, StoreError, StoreFullError
from diptych.core.store import blobs as blob_store
from diptych.core.workspace import RunOptions, Workspace


@contextmanager
def full_disk(after: int) -> Iterator[None]:
    """Within the block, every blob write after the first ``after`` fails with ENOSPC, as a
    full disk would fail it."""
    real = blob_store.write_file
    written = 0

    def write(path: Path, data: bytes) -> None:
        nonlocal written
        if written >= after:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        written += 1
        real(path, data)

    blob_store.write_file = write
    try:
        yield
    finally:
        blob_store.write_file = real


@dataclass
class BlobDrill:
    """What the blob drill caught; ``ok`` when every damage was caught and repaired."""

    trials: int
    #: One line per damaged or missing blob, as a reader was told.
    reported: list[str] = field(default_factory=list)
    #: Damaged blobs handed to a reader as if sound (want none).
    used_silently: int = 0
    refetched: int = 0
    full_disk_error: str = ""
    full_disk_status: str = ""
    final_counts: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return (
            len(self.reported) == 2
            and not self.used_silently
            and self.refetched == 2
            and self.full_disk_status == "interrupted"
            and bool(self.full_disk_error)
            and self.final_counts.get("done") == 2 * self.trials
        )


def _blobs(ws: Workspace, run_id: str) -> list[str]:
    out = io.StringIO()
    ws.runs.export(run_id, "jsonl", out)
    return [row["blob"] for row in map(json.loads, out.getvalue().splitlines()) if row["blob"]]


def blob_drill(store: Path, *, trials: int = 12) -> BlobDrill:
    """Damage one blob and delete another of a finished run, read both, resume; then fill the
    disk half-way through a second run and resume it."""
    drill = BlobDrill(trials=trials)
    models = ["scripted-images"]
    params = {"n": trials, "capability": "image_generator"}
    with Workspace.open(store) as ws:
        run = ws.runs.run_sync("scripted", models, params=params)
        first, second = _blobs(ws, run.id)[:2]
        damaged = ws.blob_path(first)
        damaged.write_bytes(damaged.read_bytes()[:-1] + b"\0")
        ws.blob_path(second).unlink()
        view = ws.runs.view(run.id)
        for sha in (first, second):
            try:
                view.blob(sha)
                drill.used_silently += 1
            except StoreError as error:
                drill.reported.append(str(error))
        again = ws.runs.run_sync("scripted", models, params=params)
        shas = _blobs(ws, again.id)
        drill.refetched = sum(1 for sha in (first, second) if sha in shas and view.blob(sha))

        # Twice as many trials: the first half are stored already, the rest need blobs.
        params = {"n": 2 * trials, "capability": "image_generator"}
        with full_disk(after=trials // 2):
            try:
                # The disk does not come back here: the run stops after a short wait.
                ws.runs.run_sync(
                    "scripted", models, params=params, options=RunOptions(disk_wait=0.2)
                )
            except StoreFullError as error:
                drill.full_disk_error = str(error)
        (stopped,) = [r.run for r in ws.runs.list() if r.run.id != run.id]
        drill.full_disk_status = stopped.status
        ws.runs.resume_sync(stopped.id)
        drill.final_counts = ws.runs.counts(stopped.id)
    return drill


__all__ = ["BlobCorruptError", "BlobDrill", "blob_drill", "full_disk"]

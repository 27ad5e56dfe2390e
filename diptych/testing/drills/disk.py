"""The full-disk drill: the workspace's database fills up half-way through a paid run and gets
room back a moment later; every image the service delivered must be stored, none paid twice.

The database fills for real: SQLite's ``max_page_count`` caps the run's connection a few pages
above what the plan took, so claim and result transactions fail with SQLITE_FULL exactly as on
a full disk.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diptych.core.engine import NullReporter, RunOptions, run_probe
from diptych.core.store import RunRecord, Store, open_store

IMAGES_PATH = "/v1/images/generations"
#: SQLite's largest page count: no cap.
UNCAPPED = 1_073_741_823


class FillingDisk(NullReporter):
    """Caps the database ``spare_pages`` pages above its size once the plan is written; lifts
    the cap ``back_after`` seconds after the run says the disk is full (None: never)."""

    def __init__(self, store: Store, back_after: float | None, spare_pages: int = 2) -> None:
        self.store = store
        self.back_after = back_after
        self.spare_pages = spare_pages
        self.notes: list[str] = []

    def run_started(self, run: RunRecord, total: int, cached: int, to_run: int) -> None:
        pages = self.store.db.execute("PRAGMA page_count").fetchone()[0]
        # SQLite fills free pages inside the file (a migration that rebuilt a table leaves
        # some) before it grows it: those count towards the room left.
        free = self.store.db.execute("PRAGMA freelist_count").fetchone()[0]
        room = max(0, self.spare_pages - free)
        self.store.db.execute(f"PRAGMA max_page_count = {pages + room}")

    def note(self, text: str) -> None:
        self.notes.append(text)
        if "is full" in text and self.back_after is not None:
            asyncio.get_running_loop().call_later(self.back_after, self.free)

    def free(self) -> None:
        self.store.db.execute(f"PRAGMA max_page_count = {UNCAPPED}")


@dataclass
class DiskFullDrill:
    trials: int
    #: Images the service delivered (each one paid).
    delivered: int
    #: Trials stored done once the run ended.
    stored: int
    #: Whether the run said the disk was full (the drill did fill it).
    filled: bool
    notes: list[str] = field(default_factory=list)

    @property
    def paid_unstored(self) -> int:
        """Images paid for and not stored: lost, or to be paid again on resume."""
        return self.delivered - self.stored

    @property
    def ok(self) -> bool:
        return self.filled and self.paid_unstored == 0 and self.stored == self.trials


def disk_full_drill(
    workdir: Path, service: Any, *, trials: int = 24, back_after: float = 0.3
) -> DiskFullDrill:
    """One paid run of ``trials`` images through ``openai-images`` on ``service`` (the fake)
    whose database fills up early and gets room back ``back_after`` seconds later."""
    before = sum(1 for r in service.requests if r.path == IMAGES_PATH and r.status == 200)
    with open_store(workdir / "ws") as store:
        reporter = FillingDisk(store, back_after)
        run = run_probe(
            store,
            "scripted",
            [("openai-images", {"base_url": service.base_url, "model": "dall-e-2"})],
            probe_params={"n": trials, "capability": "image_generator"},
            options=RunOptions(concurrency=4, disk_wait=60),
            reporter=reporter,
        )
        stored = store.status_counts(run.id)["done"]
    delivered = sum(1 for r in service.requests if r.path == IMAGES_PATH and r.status == 200)
    return DiskFullDrill(
        trials=trials,
        delivered=delivered - before,
        stored=stored,
        filled=any("is full" in n for n in reporter.notes),
        notes=reporter.notes,
    )

"""A full disk loses no paid answer: requests stop, answers received wait in memory for room,
and a disk that stays full ends the run in one line naming the space it needs.

The database fills for real: SQLite's ``max_page_count`` caps the workspace's connection, so
the claim and result transactions fail with SQLITE_FULL exactly as on a full disk; blob files
fail with ENOSPC through the blob writer. Every image is paid on the loopback fake service.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from diptych.core.engine import NullReporter, RunOptions, run_probe
from diptych.core.engine.persisting import IMAGE_BYTES
from diptych.core.errors import StoreFullError
from diptych.core.store import RunRecord, Store, open_store
from diptych.testing import FakeOpenAIServer
from diptych.testing.drills import disk_full_drill
from diptych.testing.drills.blobs import full_disk
from diptych.testing.drills.disk import FillingDisk

TRIALS = 24
IMAGES = "/v1/images/generations"


@pytest.fixture
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(image_size=(64, 64), latency=0.02) as server:
        yield server


def image_run(store: Store, fake: FakeOpenAIServer, reporter: Any, disk_wait: float) -> RunRecord:
    return run_probe(
        store,
        "scripted",
        [("openai-images", {"base_url": fake.base_url, "model": "dall-e-2", "size": "256x256"})],
        probe_params={"n": TRIALS, "capability": "image_generator"},
        options=RunOptions(concurrency=4, disk_wait=disk_wait),
        reporter=reporter,
    )


def paid(fake: FakeOpenAIServer) -> int:
    return fake.count(path=IMAGES, status=200)


def test_answers_wait_in_memory_until_the_disk_has_room(
    scripted: None, tmp_path: Path, fake: FakeOpenAIServer
) -> None:
    with open_store(tmp_path / "ws") as store:
        reporter = FillingDisk(store, back_after=0.5)
        run = image_run(store, fake, reporter, disk_wait=30)
        counts = store.status_counts(run.id)
        assert store.claims() == []
    assert any("is full" in n and "kept in memory" in n for n in reporter.notes)
    assert any("room" in n and "again" in n for n in reporter.notes)
    assert counts == {"done": TRIALS, "refused": 0, "failed": 0, "pending": 0}
    # Every image paid once: none asked again, none lost.
    assert paid(fake) == TRIALS == fake.count(path=IMAGES)


def test_disk_full_drill_stores_every_paid_answer(
    scripted: None, tmp_path: Path, fake: FakeOpenAIServer
) -> None:
    drill = disk_full_drill(tmp_path, fake, trials=TRIALS, back_after=0.2)
    assert drill.filled and drill.paid_unstored == 0 and drill.stored == TRIALS and drill.ok


def test_a_disk_that_stays_full_stops_in_one_line_and_loses_only_what_it_says(
    scripted: None, tmp_path: Path, fake: FakeOpenAIServer
) -> None:
    with open_store(tmp_path / "ws") as store:
        reporter = FillingDisk(store, back_after=None)
        with pytest.raises(StoreFullError) as stopped:
            image_run(store, fake, reporter, disk_wait=0.3)
        message = str(stopped.value)
        (run,) = store.list_runs()
        stored = store.status_counts(run.id)["done"]
        reporter.free()
    assert "\n" not in message and "free at least" in message and "resume" in message
    received = paid(fake)
    # Stopped at the first failed write: at most the requests already in flight were sent.
    assert received - stored <= 4
    lost = received - stored
    if lost:
        assert f"{lost} paid answers received could not be stored" in message
    with open_store(tmp_path / "ws") as store:
        again = image_run(store, fake, NullReporter(), disk_wait=30)
        assert store.status_counts(again.id)["done"] == TRIALS
    assert paid(fake) == TRIALS + lost


def test_blob_writes_that_find_the_disk_full_are_held_and_retried(
    scripted: None, tmp_path: Path, fake: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes: list[str] = []

    class Freeing(NullReporter):
        def note(self, text: str) -> None:
            notes.append(text)
            if "is full" in text:
                asyncio.get_running_loop().call_later(0.4, room.__exit__, None, None, None)

    room = full_disk(after=TRIALS // 3)
    room.__enter__()
    try:
        with open_store(tmp_path / "ws") as store:
            run = image_run(store, fake, Freeing(), disk_wait=30)
            counts = store.status_counts(run.id)
            blobs = [p for p in (tmp_path / "ws" / "blobs").rglob("*") if p.is_file()]
    finally:
        room.__exit__(None, None, None)
    assert counts["done"] == TRIALS and paid(fake) == TRIALS
    assert len([p for p in blobs if not p.name.startswith(".tmp-")]) == TRIALS
    assert any("is full" in n for n in notes)


def test_a_paid_run_the_disk_cannot_hold_is_refused_before_any_request(
    scripted: None, tmp_path: Path, fake: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    real = shutil.disk_usage

    def nearly_full(path: Any) -> Any:
        usage = real(path)
        return usage._replace(free=TRIALS * IMAGE_BYTES // 2)

    monkeypatch.setattr(shutil, "disk_usage", nearly_full)
    with open_store(tmp_path / "ws") as store, pytest.raises(StoreFullError) as refused:
        image_run(store, fake, NullReporter(), disk_wait=30)
    assert f"this run's {TRIALS} paid trials need about" in str(refused.value)
    assert fake.count(path=IMAGES) == 0


def test_sqlite_full_is_a_store_full_error(tmp_path: Path) -> None:
    with open_store(tmp_path / "ws") as store:
        pages = store.db.execute("PRAGMA page_count").fetchone()[0]
        store.db.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(StoreFullError, match="full"):
            store.set_preference("x", "y" * 100_000)
        assert not store.db.in_transaction
    assert isinstance(sqlite3.SQLITE_FULL, int)

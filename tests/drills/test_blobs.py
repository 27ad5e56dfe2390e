"""Damaged or deleted blobs are caught on read and fetched again; a full disk stops a run."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.errors import BlobCorruptError, StoreError, StoreFullError
from diptych.core.store import open_store
from diptych.testing.drills import blob_drill
from diptych.testing.drills.blobs import full_disk


def test_blob_drill(scripted: None, tmp_path: Path) -> None:
    drill = blob_drill(tmp_path / "ws", trials=8)
    assert drill.used_silently == 0
    assert len(drill.reported) == 2 and all("\n" not in line for line in drill.reported)
    assert "damaged" in drill.reported[0] and "missing" in drill.reported[1]
    assert drill.refetched == 2
    assert drill.full_disk_status == "interrupted"
    assert "full" in drill.full_disk_error and "resume" in drill.full_disk_error
    assert drill.final_counts == {"done": 16, "refused": 0, "failed": 0, "pending": 0}
    assert drill.ok


def test_a_damaged_blob_is_set_aside_never_returned(tmp_path: Path) -> None:
    with open_store(tmp_path / "ws") as store:
        sha = store.put_blob(b"an image")
        store.blob_path(sha).write_bytes(b"another image")
        with pytest.raises(BlobCorruptError, match="sha256"):
            store.get_blob(sha)
        assert not store.has_blob(sha)
        with pytest.raises(StoreError, match="missing"):
            store.get_blob(sha)
        assert store.put_blob(b"an image") == sha and store.get_blob(sha) == b"an image"


def test_a_full_disk_leaves_no_partial_file(tmp_path: Path) -> None:
    with open_store(tmp_path / "ws") as store, full_disk(after=0):
        with pytest.raises(StoreFullError, match="full"):
            store.put_blob(b"x" * 1000)
        assert [p for p in (tmp_path / "ws" / "blobs").rglob("*") if p.is_file()] == []

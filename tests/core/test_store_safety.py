"""The workspace's files: blobs as readable as the database, an empty database refused."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from diptych.core.engine import RetryPolicy, RunOptions
from diptych.core.errors import StoreError
from diptych.core.store import open_store


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_blobs_get_the_databases_permissions(tmp_path: Path, umask: int) -> None:
    previous = os.umask(umask)
    try:
        with open_store(tmp_path / "ws") as store:
            sha = store.put_blob(b"an image")
            blob = stat.S_IMODE(store.blob_path(sha).stat().st_mode)
            db = stat.S_IMODE((tmp_path / "ws" / "diptych.db").stat().st_mode)
    finally:
        os.umask(previous)
    # As readable as the database (SQLite makes it 0644 less the umask), never more.
    assert blob == db & 0o666 and blob & umask == 0 and blob & 0o400


def test_an_empty_database_file_is_refused_not_set_up_again(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "diptych.db").write_bytes(b"")
    with pytest.raises(StoreError, match=r"empty \(0 bytes\)"):
        open_store(tmp_path / "ws")
    assert (tmp_path / "ws" / "diptych.db").stat().st_size == 0


@pytest.mark.parametrize("timeout", [float("nan"), float("inf"), 0.0, -1.0])
def test_a_timeout_that_is_not_a_number_of_seconds_is_refused(timeout: float) -> None:
    with pytest.raises(ValueError, match="timeout"):
        RunOptions(retry=RetryPolicy(timeout=timeout))

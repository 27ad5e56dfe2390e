"""The room a paid run is refused without scales with what it writes: a text run writes rows
only, an image run an image a trial besides. A 144-trial text run once asked for about 18 MB
(a fixed 16 MB kept spare beside 16 KB a row), refusing disks that held it many times over."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from diptych.core.engine.persisting import check_free_space
from diptych.core.errors import StoreFullError
from diptych.core.store import TrialRow

MB = 1024 * 1024


def _trials(count: int, capability: str, **payload: Any) -> list[TrialRow]:
    return [
        TrialRow("run", i, "m", f"k{i}", capability, 0, dict(payload), {}) for i in range(count)
    ]


def _refusal(tmp_path: Path, trials: list[TrialRow]) -> str | None:
    try:
        check_free_space(tmp_path, trials)
    except StoreFullError as refused:
        return str(refused)
    return None


@pytest.fixture
def free(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The free bytes the disk reports: set ``free[0]``."""
    given = [0]
    real = shutil.disk_usage

    def reported(path: Any) -> Any:
        return real(path)._replace(free=given[0])

    monkeypatch.setattr(shutil, "disk_usage", reported)
    return given


def test_a_text_run_asks_for_its_rows_and_their_journal(tmp_path: Path, free: list[int]) -> None:
    # 144 rows of 8 KB (a long chat answer with its provenance and indexes; a likelihood row
    # measured 1.7 KB): 1,179,648 bytes, as much again for SQLite's write-ahead log, and 1 MB
    # for its other files: 3,407,872 bytes, 3.2 MB.
    trials = _trials(144, "chat")
    free[0] = 3_407_872
    assert _refusal(tmp_path, trials) is None
    free[0] = 3_407_871
    said = _refusal(tmp_path, trials)
    assert said is not None and "this run's 144 paid trials need about 3.2 MB" in said, said
    # A disk of 10 MB free holds it: the 18 MB once asked is refused no more.
    free[0] = 10 * MB
    assert _refusal(tmp_path, _trials(144, "text_likelihood")) is None


def test_an_image_run_asks_for_its_images_too(tmp_path: Path, free: list[int]) -> None:
    # 24 trials of 2 images of 2 MB: 100,663,296 bytes; their rows 24 × 8 KB = 196,608 and
    # as much for the log, and 1 MB: 102,105,088 bytes, 97.4 MB.
    trials = _trials(24, "image_generator", n=2)
    free[0] = 102_105_088
    assert _refusal(tmp_path, trials) is None
    free[0] = 50 * MB
    said = _refusal(tmp_path, trials)
    assert said is not None and "has 50.0 MB free" in said and "need about 97.4 MB" in said

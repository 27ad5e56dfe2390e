"""The Runs screen at 80×24 and 60×20 draws every count whole, however many digits it has: each
column of counts is as wide as its widest figure ("1,21" was drawn for 1,212 failed trials)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from steps import SIZES, loaded, settle, shown
from surface import screen_lines
from surface_text import cut_counts

import diptych.tui.screens.runs.screen as runs_screen
from diptych.core.workspace import RunSummary
from diptych.tui.app import DiptychApp
from diptych.tui.workers import load_runs

pytestmark = pytest.mark.surface

#: Counts of four digits and more in every column of counts.
COUNTS = {"done": 12_345, "refused": 1_100, "failed": 1_212, "pending": 0}


def _many(store_path: Path) -> list[RunSummary]:
    rows = load_runs(store_path)
    first = replace(rows[0].run, n_trials=sum(COUNTS.values()))
    return [replace(rows[0], run=first, counts=dict(COUNTS), flagged=2_048), *rows[1:]]


@pytest.mark.parametrize("size", SIZES)
async def test_every_count_of_the_runs_table_is_drawn_whole(
    snapshot_workspace: Path, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runs_screen, "load_runs", _many)
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(3)(pilot)
        await settle(pilot)
        assert cut_counts(app) == [], shown(app)
        (row,) = [line for line in screen_lines(app) if "12,345" in line]
        assert "1,100" in row and "1,212" in row and "2,048" in row, shown(app)

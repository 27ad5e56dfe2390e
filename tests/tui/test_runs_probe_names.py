"""The Runs screen draws a run's probe name whole, as a user types it (``calibration``, not
``calibra…``): the probe column is as wide as the longest probe name among the runs, or, on a
terminal too narrow for it, left out (the line under the table names the highlighted run)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from steps import cell, run_ids, wait_for
from surface import screen_lines

from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from tests.support.store_runs import record_run


def _recorded(workspace: Path, probes: list[str]) -> dict[str, str]:
    """A run of each probe, recorded with nothing else: run id → probe."""
    runs = {f"{p}-{i:08x}": p for i, p in enumerate(probes)}
    with open_store(workspace) as store:
        for run_id, probe in runs.items():
            record_run(store, run_id, probe)
    return runs


def _cut(lines: list[str], names: set[str]) -> list[str]:
    """The names drawn cut by an ellipsis."""
    return [f"{n!r}: {line.strip()!r}" for line in lines for n in names for k in range(1, len(n))
            if re.search(re.escape(n[:k]) + "…", line)]  # fmt: skip


async def test_a_calibration_run_shows_its_probe_whole_at_80_columns(workspace: Path) -> None:
    runs = _recorded(workspace, ["pst-text", "calibration"])
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: len(run_ids(app)) == len(runs), "the runs")
        await pilot.pause()
        for run_id, probe in runs.items():
            assert cell(app, run_id, "probe") == probe
        lines = screen_lines(app)
        assert _cut(lines, set(runs.values())) == []
        assert any(re.search(r"\bcalibration\b", line) for line in lines), "\n".join(lines)


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_no_bundled_probe_name_is_cut(workspace: Path, size: tuple[int, int]) -> None:
    probes = sorted(Workspace.plugins.registry().probes)
    runs = _recorded(workspace, probes)
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: len(run_ids(app)) == len(runs), "the runs")
        await pilot.pause()
        lines = screen_lines(app)
        assert _cut(lines, set(probes)) == [], "\n".join(lines)
        shown = app.screen._shown_columns  # type: ignore[attr-defined]
        if "probe" in shown:
            assert all(cell(app, r, "probe") == p for r, p in runs.items())

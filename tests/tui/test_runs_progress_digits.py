"""The Runs screen's progress reads by the one rule of digits, as the CLI's standings say it: a
run a sequential audit bought a quarter of reads "21.7%" of its design, never "21%"."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import cell, run_ids, wait_for
from surface_text import whole_percents

from diptych.core.digits import percent_text
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.formatting import percent
from tests.support.sequential_audits import decided_at_first_look

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_progress_is_a_share_by_the_rule() -> None:
    assert percent(1_424, 6_560) == "21.7%"
    assert percent(656, 6_560) == "10.0%"
    assert percent(6_559, 6_560) == "99.9%"  # not done: never "100.0%"
    assert percent(6_560, 6_560) == "100.0%"
    assert percent(0, 0) == "—"


@pytest.fixture
def partly_bought(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[str, int, int]:
    """A run a sequential audit decided at its first look: its id, trials finished and planned."""
    monkeypatch.chdir(tmp_path)
    run_id = decided_at_first_look(capsys, str(tmp_path / ".diptych"))
    with Workspace.open(tmp_path / ".diptych") as ws:
        (row,) = [r for r in ws.runs.list() if r.run.id == run_id]
        done = sum(row.counts[k] for k in ("done", "refused"))
        return run_id, done, row.run.n_trials


async def test_a_partly_bought_run_reads_its_share_by_the_rule(
    partly_bought: tuple[str, int, int], tmp_path: Path
) -> None:
    run_id, done, total = partly_bought
    assert 0 < done < total
    app = DiptychApp(tmp_path / ".diptych", refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: run_id in run_ids(app), "the run")
        assert cell(app, run_id, "progress") == percent_text(done / total)
        assert "." in cell(app, run_id, "progress")
        assert whole_percents(app) == []

"""A run its gates decided at look 1, bought on since (``diptych resume RUN --yes``) and stopped
part way reads at 80×24 and 60×20 as ``diptych runs`` says it: its Runs row is "interrupted",
the line under the table and its Run detail say its status in the same words, and the detail
counts the trials it did not get as the store holds them, "pending" (the next resume asks
them), never "not bought"."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from steps import SIZES, cell, loaded, settle, shown, wait_for
from textual.widgets import DataTable, Static

from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.runs.detail import RunDetailScreen
from tests.support.sequential_audits import decided_at_first_look
from tests.support.stopped_runs import bought_on_and_interrupted

pytestmark = [pytest.mark.surface, pytest.mark.usefixtures("scripted_plugin")]


@pytest.fixture
def stopped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, Any]]:
    """The workspace, its run decided, bought on and stopped: the run as listed, its stored
    outcome counts and its requests with an outcome of all its design's."""
    monkeypatch.chdir(tmp_path)
    ws = tmp_path / ".diptych"
    run_id = decided_at_first_look(capsys, str(ws), "-M", "latency=0.01")
    bought_on_and_interrupted(str(ws), run_id)
    with Workspace.open(ws) as opened:
        (listed,) = opened.runs.list()
    with open_store(ws) as store:
        answered, planned = store.requests_answered(run_id)
        counts = store.status_counts(run_id)
    assert listed.run.status == "interrupted" and counts["pending"] > 0
    yield {"run": listed, "counts": counts, "answered": answered, "planned": planned}


def _text(widget: Any) -> str:
    return " ".join(str(widget.render()).replace("\u00a0", " ").split())


@pytest.mark.parametrize("size", SIZES)
async def test_a_bought_on_run_stopped_part_way_reads_pending_as_runs_says(
    stopped: dict[str, Any], size: tuple[int, int]
) -> None:
    listed, counts = stopped["run"], stopped["counts"]
    run_id, words = listed.run.id, listed.said
    answered, planned = stopped["answered"], stopped["planned"]
    assert words == (
        f"interrupted: decided at look 1 of 4, bought on since: {answered} of {planned} "
        f"requests stored, {planned - answered} pending"
    )
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(1)(pilot)
        app.screen.query_one("#runs", DataTable).focus()
        await settle(pilot)
        assert cell(app, run_id, "status") == "interrupted"
        assert cell(app, run_id, "done") == f"{counts['done']:,}"
        selected = app.screen.query_one("#selected", Static)
        await wait_for(
            pilot, lambda: words in _text(selected), "the run's line", lambda: shown(app)
        )
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RunDetailScreen), "the Run detail")
        summary = app.screen.query_one("#summary")
        await wait_for(pilot, lambda: words in _text(summary), "the detail", lambda: shown(app))
        said = _text(summary)
        done, pending = counts["done"], counts["pending"]
        assert f"done {done:,} · refused 0 · failed 0 · pending {pending:,}" in said, said
        assert "not bought" not in said and "not bought" not in _text(selected), said

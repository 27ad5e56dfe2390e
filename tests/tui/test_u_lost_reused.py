"""``u`` on a decided run that reused an earlier run's answers asks about the rest as
``diptych resume`` says it: nothing of lost answers where none is lost; one of its own answers
deleted since, the question says that one is gone and asked again with the rest."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from steps import loaded, run_ids, settle, wait_for
from textual.widgets import DataTable, Static

from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.runs.confirm import ConfirmResume
from tests.support.sequential_audits import decided_on_reused

pytestmark = pytest.mark.usefixtures("scripted_plugin")

GONE = "1 answer its gates were decided on had gone from the store, asked again with the rest."


async def _asked(ws: Path, run_id: str) -> str:
    """What ``u`` on ``run_id`` asks, read off the dialog; answered n."""
    app = DiptychApp(ws, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(2)(pilot)
        table = app.screen.query_one("#runs", DataTable)
        table.focus()
        table.move_cursor(row=run_ids(app).index(run_id))
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmResume), "the question")
        text = " ".join(str(app.screen.query_one("#resume-text", Static).render()).split())
        await pilot.press("n")
        await settle(pilot)
    return text


@pytest.fixture
def reused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str]:
    """The workspace and its run decided on answers partly reused (:func:`decided_on_reused`)."""
    ws = tmp_path / "ws"
    return ws, decided_on_reused(capsys, str(ws))[0]


async def test_u_says_a_lost_answer_only_where_one_is_lost(reused: tuple[Path, str]) -> None:
    ws, run_id = reused
    asked = await _asked(ws, run_id)
    assert asked.startswith(f"{run_id} is decided at look 1 of 4: "), asked
    assert "gone from the store" not in asked, asked
    with Workspace.open(ws) as opened:
        created = opened.runs.get(run_id).created_at
    with sqlite3.connect(ws / "diptych.db") as db:
        (own,) = db.execute(
            "SELECT r.key FROM results r JOIN trials t ON t.key = r.key WHERE t.run_id = ?"
            " AND r.finished_at >= ? ORDER BY r.key LIMIT 1",
            (run_id, created),
        ).fetchone()
        db.execute("DELETE FROM results WHERE key = ?", (own,))
    asked = await _asked(ws, run_id)
    assert f"its gates were decided on the trials bought. {GONE} Resuming buys " in asked, asked

"""The Runs screen with agent sessions: a session's runs stand behind one row, their outcomes
added up; enter on the row shows them under it and hides them again; ``e`` shows every
session's."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import SIZES, cell, run_ids, settle, shown, wait_for
from surface import screen_lines
from textual.widgets import DataTable, Static

from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.runs.rows import session_key

SESSION = "id-test0001"


@pytest.fixture
def session_runs(scripted: None, workspace: Path) -> tuple[str, list[str], int]:
    """A user's run and a session's three (made before any event loop runs); the user's run
    id, the session's, their trials."""
    with Workspace.open(workspace) as ws:
        mine = ws.runs.run_sync("pst-text", ["scripted-likelihood"], params={"setting": "paired"})
        made = []
        with ws.runs.made_by(SESSION):
            for masculine in ("carpenter", "driver", "farmer"):
                params = {"setting": "paired", "masculine": [masculine], "feminine": ["nurse"]}
                made.append(ws.runs.run_sync("pst-text", ["scripted-likelihood"], params=params))
        return mine.id, [r.id for r in made], sum(r.n_trials for r in made)


async def test_a_sessions_runs_open_and_close_under_its_row(
    session_runs: tuple[str, list[str], int], workspace: Path
) -> None:
    mine, made, trials = session_runs
    row = session_key(SESSION)
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=(100, 24)) as pilot:
        await wait_for(pilot, lambda: run_ids(app) == [mine, row], "the two rows")
        # The session's row adds its runs up: all of their trials done.
        assert cell(app, row, "done") == str(trials)
        assert cell(app, row, "progress") == "100.0%"
        assert cell(app, row, "run").startswith("▸ id-")
        assert "3 runs" in cell(app, row, "models")
        await pilot.press("G")  # the cursor on the session's row
        await pilot.pause()
        assert str(app.screen.query_one("#selected").render()).startswith(
            f"agent session {SESSION}\n3 runs · "
        )
        await pilot.press("enter")
        await wait_for(pilot, lambda: run_ids(app) == [mine, row, *made], "the session's runs")
        assert cell(app, made[0], "run").startswith("· ")
        # The cursor stayed on the session's row: enter closes it again.
        await pilot.press("enter")
        await wait_for(pilot, lambda: run_ids(app) == [mine, row], "the runs hidden")
        await pilot.press("e")
        await wait_for(pilot, lambda: run_ids(app) == [mine, row, *made], "every session's runs")
        await pilot.press("e")
        await wait_for(pilot, lambda: run_ids(app) == [mine, row], "hidden again")


AUDIT_SESSION = "audit-smollm2-offline-5c366747d6-identities"


@pytest.fixture
def audit_session_trials(scripted: None, workspace: Path) -> int:
    """One run of an audit search's session (made before any event loop runs); its trials."""
    with Workspace.open(workspace) as ws, ws.runs.made_by(AUDIT_SESSION):
        made = ws.runs.run_sync("pst-text", ["scripted-likelihood"], params={"setting": "paired"})
        return made.n_trials


@pytest.mark.parametrize("size", SIZES)
async def test_an_audit_searchs_session_row_fits(
    audit_session_trials: int, workspace: Path, size: tuple[int, int]
) -> None:
    row = session_key(AUDIT_SESSION)
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: run_ids(app) == [row], "the session's row")
        await settle(pilot)
        # Named by its part and its audit's hash, whole; the line under it names it in full.
        assert cell(app, row, "run") == "▸ identities 5c3667", shown(app)
        assert cell(app, row, "done") == f"{audit_session_trials:,}", shown(app)
        assert not [ln for ln in screen_lines(app) if "…" in ln], shown(app)
        assert f"agent session {AUDIT_SESSION}" in str(app.screen.query_one("#selected").render())


@pytest.mark.parametrize("size", SIZES)
async def test_enter_closes_a_session_that_e_opened(
    session_runs: tuple[str, list[str], int], workspace: Path, size: tuple[int, int]
) -> None:
    mine, made, _ = session_runs
    row = session_key(SESSION)
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: run_ids(app) == [mine, row], "the two rows")
        await pilot.press("e")
        await wait_for(pilot, lambda: run_ids(app) == [mine, row, *made], "every session's runs")
        table = app.screen.query_one("#runs", DataTable)
        table.move_cursor(row=run_ids(app).index(row))
        selected = app.screen.query_one("#selected", Static)
        await wait_for(pilot, lambda: "enter hides its runs" in str(selected.render()), "the line")
        await pilot.press("enter")
        await wait_for(pilot, lambda: run_ids(app) == [mine, row], "the session's runs hidden")
        assert cell(app, row, "run").startswith("▸ "), shown(app)
        await wait_for(pilot, lambda: "enter shows its runs" in str(selected.render()), "shows")
        await pilot.press("enter")
        await wait_for(pilot, lambda: run_ids(app) == [mine, row, *made], "shown again")

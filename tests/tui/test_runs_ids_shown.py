"""The Runs screen with agent sessions, at 80×24 and 60×20: every id it prints — a run's name in
the table, a session's label ("identities d96780", "tui-39e5377a"), the run's or session's whole
id on the line under the table — is taken by ``diptych show``; and the line under the table is
drawn whole, each phrase on one row, none stopping before its end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from steps import SIZES, cell, run_ids, settle, shown, wait_for
from surface_text import cut_text, split_phrases, unfinished_phrases
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from diptych.tui.app import DiptychApp
from tests.support.session_ids import names_right, sessions_workspace, shown_by


@pytest.fixture
def made(scripted: None, workspace: Path) -> dict[str, list[str]]:
    """The sessions' workspace, made before any event loop runs."""
    return sessions_workspace(workspace)


async def _read_rows(pilot: Pilot[Any], problems: list[str]) -> list[str]:
    """Each row's name and the whole id its line under the table gives, row by row; what is
    wrong with that line added to ``problems``."""
    app = pilot.app
    table = app.screen.query_one("#runs", DataTable)
    selected = app.screen.query_one("#selected", Static)
    ids = []
    for i, key in enumerate(run_ids(app)):
        table.move_cursor(row=i)
        await settle(pilot)
        ids.append(cell(app, key, "run").lstrip("▸▾· ").strip())
        line = " ".join(str(selected.render()).split())
        ids.append(line.removeprefix("agent session ").split(" · ")[0].split()[0])
        problems += cut_text(app, selected) + split_phrases(app, selected)
        problems += unfinished_phrases(selected)
    return ids


@pytest.mark.parametrize("size", SIZES)
async def test_every_id_the_runs_screen_prints_is_taken_by_show(
    made: dict[str, list[str]],
    workspace: Path,
    size: tuple[int, int],
    capsys: pytest.CaptureFixture[str],
) -> None:
    app = DiptychApp(workspace, refresh_interval=3600)
    problems: list[str] = []
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: len(run_ids(app)) == 3, "the run and two sessions' rows")
        ids = await _read_rows(pilot, problems)
        await pilot.press("e")  # every session's runs under its row
        every = 1 + sum(len(runs) + 1 for session, runs in made.items() if session)
        await wait_for(pilot, lambda: len(run_ids(app)) == every, "every session's runs")
        ids += await _read_rows(pilot, problems)
        assert problems == [], shown(app)
    assert "identities d96780" in ids and "tui-39e5377a" in ids, ids
    assert all(r in ids for runs in made.values() for r in runs), ids
    for ref in dict.fromkeys(ids):
        assert names_right(shown_by(capsys, workspace, ref), ref, made), ref

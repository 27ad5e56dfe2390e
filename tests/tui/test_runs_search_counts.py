"""The Runs screen's row of an agent search and the line under it count what ``diptych runs``
and ``show`` count: the runs it made and those it reused, each run and each trial once; on that
row, the keys for one run say what to use instead, ``u`` the command that resumes the search,
whole at 80×24 and 60×20."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from steps import SIZES, cell, run_ids, settle, shown, surface, wait_for
from surface import region_lines, screen_lines
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from diptych.core.store import open_store
from diptych.tui.app import DiptychApp
from diptych.tui.screens.runs.rows import session_key
from tests.support.search_counts import EARLIER, SEARCH, SearchCounts, search_workspace

pytestmark = pytest.mark.surface


@pytest.fixture
def search(scripted: None, workspace: Path) -> SearchCounts:
    return search_workspace(workspace)


async def _on_the_search(pilot: Pilot[Any], app: DiptychApp, want: SearchCounts) -> Static:
    """The search's row highlighted: the user's run, the earlier session's row, the search's."""
    row = session_key(SEARCH)
    rows = [want.reused[0], session_key(EARLIER), row]
    await wait_for(pilot, lambda: run_ids(app) == rows, "the rows")
    table = app.screen.query_one("#runs", DataTable)
    table.move_cursor(row=run_ids(app).index(row))
    selected = app.screen.query_one("#selected", Static)
    await wait_for(pilot, lambda: SEARCH in str(selected.render()), "the search's line")
    return selected


async def test_a_searchs_row_and_line_count_its_reused_runs_once(
    search: SearchCounts, workspace: Path
) -> None:
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=(120, 24)) as pilot:
        selected = await _on_the_search(pilot, app, search)
        row = session_key(SEARCH)
        assert cell(app, row, "done") == f"{search.done:,}", shown(app)
        assert cell(app, row, "models").startswith(f"{search.runs} runs"), shown(app)
        line = " ".join(str(selected.render()).split())
        assert (
            f"{search.runs} runs (2 reused, listed where made) · {search.done:,} of "
            f"{search.trials:,} trials done" in line
        ), line


@pytest.mark.parametrize("size", SIZES)
async def test_u_on_a_searchs_row_shows_the_command_whole(
    search: SearchCounts, workspace: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        selected = await _on_the_search(pilot, app, search)
        await pilot.press("u")
        await wait_for(pilot, lambda: "u: " in str(selected.render()), "what u says")
        await settle(pilot)
        drawn = " ".join(" ".join(region_lines(screen_lines(app), selected.content_region)).split())
        # The audit is not recorded here: the command names its file for the user to give.
        said = (
            "u: 'identities 5c3667' is the identities search of audit smollm2-offline-"
            "5c366747d6, not a run: the audit continues, its search included: diptych audit "
            "run AUDIT_FILE"
        )
        assert said in drawn, shown(app)
        # Every other key says what it does on the search's row, or does it.
        assert await surface(pilot) == [], shown(app)


@pytest.fixture
def one_stale(search: SearchCounts, workspace: Path) -> SearchCounts:
    """The search with one of its runs stored as running by a process gone (stale)."""
    with open_store(workspace) as store:
        store.set_run_status(search.made[1], "running")
    return search


@pytest.mark.parametrize("size", SIZES)
async def test_a_searchs_mixed_status_leaves_ref_fail_and_flag_in_view(
    one_stale: SearchCounts, workspace: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        selected = await _on_the_search(pilot, app, one_stale)
        await settle(pilot)
        header = screen_lines(app)[1].split()
        assert header[-3:] == ["ref", "fail", "flag"] and "status" in header, shown(app)
        # Whole in its row where it fits, else "mixed" there and whole under the table.
        status = "4 complete, 1 stale"
        in_row = cell(app, session_key(SEARCH), "status")
        assert in_row == (status if size[0] >= 80 else "mixed"), shown(app)
        assert (status in " ".join(str(selected.render()).split())) == (size[0] < 80), shown(app)
        assert await surface(pilot) == [], shown(app)

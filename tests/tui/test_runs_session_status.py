"""A session's status on the Runs screen reads as ``diptych runs`` gives it: while one of its
runs runs, "2 complete, 1 running" in both, in its row at 80×24; at 60×20 its row says "mixed"
(the ref, fail and flag columns stay in view) and the line under the table says it whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import SIZES, cell, run_ids, shown, wait_for
from support.agent_cli import call
from surface import screen_lines
from textual.widgets import Static

from diptych.cli.runs_cmd import SessionRow, grouped
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.runs.rows import session_key

SESSION = "id-test0002"


@pytest.fixture
def one_running(scripted: None, workspace: Path) -> list[str]:
    """A session's three runs, the last stored as running with this process holding its lease
    (as an agent's run in another shell is); their ids."""
    from diptych.core.store import open_store

    with Workspace.open(workspace) as ws, ws.runs.made_by(SESSION):
        made = [
            ws.runs.run_sync(
                "pst-text",
                ["scripted-likelihood"],
                params={"setting": "paired", "masculine": [m], "feminine": ["nurse"]},
            )
            for m in ("carpenter", "driver", "farmer")
        ]
    with open_store(workspace) as store:
        store.set_run_status(made[-1].id, "running")
        mine, holder = store.acquire_lease(made[-1].id)
        assert mine is not None and holder is None
    return [r.id for r in made]


@pytest.mark.parametrize("size", SIZES)
async def test_a_session_with_a_running_run_reads_as_in_diptych_runs(
    one_running: list[str],
    workspace: Path,
    size: tuple[int, int],
    capsys: pytest.CaptureFixture[str],
) -> None:
    with Workspace.open(workspace) as ws:
        (listed,) = grouped(ws.runs.list())
    assert isinstance(listed, SessionRow)
    assert listed.status == "2 complete, 1 running"
    code, said, _ = call(capsys, "--store", str(workspace), "show", SESSION)
    assert code == 0 and "status: running" in said
    row = session_key(SESSION)
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: run_ids(app) == [row], "the session's row")
        in_row = listed.status if size[0] >= 80 else "mixed"
        await wait_for(pilot, lambda: cell(app, row, "status") == in_row, "its status")
        header = screen_lines(app)[1].split()
        assert header[-3:] == ["ref", "fail", "flag"], shown(app)
        selected = str(app.screen.query_one("#selected", Static).render())
        assert (listed.status in selected) == (size[0] < 80), shown(app)

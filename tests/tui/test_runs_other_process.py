"""A run another diptych process executes (``diptych run`` in a shell): the Runs screen shows
it running, and its keys say that it runs elsewhere and how to stop it there, rather than
"not running"."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from steps import loaded, run_ids, wait_for
from steps import said as said_on

from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp


@pytest.fixture
def held_run(scripted: None, workspace: Path) -> str:
    """A run stored as running whose lease a live process holds (this test's own: the app
    under test did not start it, as it did not start a run of the CLI)."""
    from diptych.core.store import open_store

    with Workspace.open(workspace) as ws:
        run = ws.runs.run_sync("scripted", ["scripted-likelihood"], params={"n": 4})
    with open_store(workspace) as store:
        store.set_run_status(run.id, "running")
        mine, holder = store.acquire_lease(run.id)
        assert mine is not None and holder is None
    return run.id


@pytest.mark.parametrize("key,verb", [("p", "pause"), ("c", "stop"), ("u", "resume")])
async def test_keys_on_a_run_of_another_process_say_where_it_runs_and_how_to_stop_it(
    held_run: str, workspace: Path, key: str, verb: str
) -> None:
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(1)(pilot)
        assert run_ids(app) == [held_run]
        with Workspace.open(workspace) as ws:
            (row,) = ws.runs.list()
        assert row.run.status == "running"  # as `diptych runs` shows it
        before = len(said_on(app))
        await pilot.press(key)
        await wait_for(pilot, lambda: len(said_on(app)) > before, "the answer")
        said = said_on(app)[-1]
        assert "not running" not in said
        assert f"cannot {verb} {held_run} from here: another diptych process runs it" in said
        assert f"kill -INT {os.getpid()}" in said and "Ctrl-C" in said
        assert "interrupted" in said

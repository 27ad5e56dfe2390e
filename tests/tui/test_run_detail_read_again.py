"""Run detail: F5 reads the run again and says what it found, as Standings' F5 does: that
nothing has changed, or how many trials were stored since."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from steps import SIZE, said, shown, wait_for

from diptych.core.engine import resume_run, run_probe
from diptych.core.store import open_store
from diptych.tui.app import DiptychApp
from diptych.tui.screens.runs.detail import RunDetailScreen

UNCHANGED = "read again: nothing has changed"


def _stored(workspace: Path, run_id: str) -> int:
    with open_store(workspace) as store:
        counts = store.status_counts(run_id)
    return sum(n for status, n in counts.items() if status != "pending")


def _resume(workspace: Path, run_id: str) -> None:
    with open_store(workspace) as store:
        resume_run(store, run_id, max_cost=100.0)


@pytest.fixture
def over_budget(scripted: None, workspace: Path) -> str:
    """A run stopped at its budget with trials still to run (made before the test's loop)."""
    with open_store(workspace) as store:
        return run_probe(
            store,
            "scripted",
            [("scripted-likelihood", ["price_per_call=1"])],
            probe_params=["n=6"],
            max_cost=1.0,
        ).id


async def test_f5_says_what_reading_again_found(over_budget: str, workspace: Path) -> None:
    run_id = over_budget
    before = _stored(workspace, run_id)
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(RunDetailScreen(run_id))
        screen = app.screen
        assert isinstance(screen, RunDetailScreen)
        await wait_for(pilot, lambda: screen.result is not None, "the analysis", lambda: shown(app))
        assert UNCHANGED not in said(app)
        await pilot.press("f5")
        await wait_for(pilot, lambda: UNCHANGED in said(app), "the word", lambda: shown(app))
        await asyncio.to_thread(_resume, workspace, run_id)
        new = _stored(workspace, run_id) - before
        assert new > 1
        await pilot.press("f5")
        word = f"read again: {new} new trials"
        await wait_for(pilot, lambda: word in said(app), word, lambda: shown(app))
        assert word in " ".join(shown(app).split())

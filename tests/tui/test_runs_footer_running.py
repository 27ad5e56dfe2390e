"""Runs: the footer offers the keys the highlighted run takes, as docs/tui.md says: on a run
that runs, ``p Pause`` and ``c Stop`` (``c`` left to Help only at 60
columns)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from steps import run_ids, wait_for
from surface import screen_lines
from textual.widgets import DataTable

from diptych.testing import ScriptedLikelihood
from diptych.tui.app import DiptychApp
from diptych.tui.jobs import RunRequest
from diptych.tui.screens.runs.screen import RunsScreen


@pytest.fixture
def held(scripted: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Every call of the scripted likelihood model after the second waits for the event."""
    release = threading.Event()
    answered = [0]
    ask = ScriptedLikelihood.next_token_logprobs

    async def holding(self: ScriptedLikelihood, prompt: str, candidates: Any) -> dict[str, float]:
        answered[0] += 1
        while answered[0] > 2 and not release.is_set():
            await asyncio.sleep(0.01)
        return await ask(self, prompt, candidates)

    monkeypatch.setattr(ScriptedLikelihood, "next_token_logprobs", holding)
    yield release
    release.set()


def footer_row(app: DiptychApp) -> str:
    return screen_lines(app)[app.size.height - 1]


def status_of_highlighted(app: DiptychApp) -> str:
    screen = app.screen
    assert isinstance(screen, RunsScreen)
    run_id = screen.current_run_id()
    return "" if run_id is None else screen._status(screen.rows[run_id], app.job_for_run(run_id))


@pytest.mark.parametrize(("size", "stop_shown"), [((80, 24), True), ((60, 20), False)])
async def test_a_running_row_offers_pause_and_stop(
    held: threading.Event, workspace: Path, size: tuple[int, int], stop_shown: bool
) -> None:
    request = RunRequest(
        probe="scripted",
        probe_params=("n=20",),
        models=(("scripted-likelihood", ("max_concurrency=2",)),),
    )
    app = DiptychApp(workspace, refresh_interval=0.2)
    async with app.run_test(size=size) as pilot:
        job = app.start_run(request)
        await wait_for(pilot, lambda: job.run_id in run_ids(app), "the run in the table")
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        screen.query_one("#runs", DataTable).focus()
        await wait_for(pilot, lambda: "p Pause" in footer_row(app), "p", lambda: footer_row(app))
        row = footer_row(app)
        assert ("c Stop" in row) is stop_shown, row
        assert "Resume" not in row, row
        held.set()

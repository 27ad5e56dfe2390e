"""``u`` on a run an audit was buying look by look (``audit run --until-decided``), stopped
before its gates were decided, asks first, as ``diptych resume`` does: it names the audit and
the command that goes on look by look, says that resuming it alone buys the whole design (its
requests and estimated cost), and buys it only on ``y``; ``n`` buys nothing."""

from __future__ import annotations

import asyncio
import os
import shlex
from pathlib import Path

import pytest
from steps import SIZES, cell, loaded, settle, shown, wait_for
from surface import cut_values
from textual.widgets import DataTable, Label, Static

from diptych.audit import run_audit
from diptych.cli.signals import settle_stopped
from diptych.core.cost import cost_text
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.runs.confirm import ConfirmLookedResume
from diptych.tui.widgets.whole_numbers import WholeNumbers
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit
from tests.support.stopped_runs import FirstTrials


@pytest.fixture
def looked_run(scripted: None, workspace: Path) -> tuple[Path, str, Path]:
    """A run of an audit bought until decided in 4 batches, stopped (as Ctrl-C stops it) once
    a few trials of its first batch are stored: the workspace, the run's id, the audit file."""
    gates = [{"part": "pst-text", "figure": FIGURE, "below": 95}]
    params = {"latency": 0.02, "max_concurrency": 1}
    file = planted_audit(Path("a.yaml"), gates, MASC, FEM, name="looked", seed=2,
                         model_params=params)  # fmt: skip
    with Workspace.open(workspace, create=True) as ws:
        reporter = FirstTrials(3)

        async def stop_early() -> None:
            task = asyncio.create_task(
                run_audit(ws, file, reporter=reporter, until_decided=True, batches=4)
            )
            await reporter.some.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(stop_early())
        (summary,) = ws.runs.list()
        settle_stopped(ws, summary.run.id)
    return workspace, summary.run.id, file


def trials_stored(workspace: Path, run_id: str) -> dict[str, int]:
    with Workspace.open(workspace) as ws:
        return dict(ws.runs.counts(run_id))


def question(app: DiptychApp) -> str:
    # The text the dialog holds, not its lines: a path wider than a line is drawn folded.
    return " ".join(app.screen.query_one("#looked-text", WholeNumbers).text.plain.split())


@pytest.mark.parametrize("size", SIZES)
async def test_u_on_a_run_bought_look_by_look_asks_and_n_buys_nothing(
    looked_run: tuple[Path, str, Path], size: tuple[int, int]
) -> None:
    workspace, run_id, file = looked_run
    with Workspace.open(workspace) as ws:
        assert ws.runs.get(run_id).status == "interrupted"
        (audit,) = ws.audits.list()
        est = ws.runs.plan_resume(run_id)
    before = trials_stored(workspace, run_id)
    going_on = shlex.join(["diptych", "--store", os.path.abspath(workspace), "audit", "run",
                           str(file.resolve()), "--until-decided", "--batches", "4"])  # fmt: skip
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(1)(pilot)
        app.screen.query_one("#runs", DataTable).focus()
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmLookedResume), "the question")
        await settle(pilot)
        said = question(app).replace("\u00a0", " ")
        assert said.startswith(
            f"{run_id} is bought look by look by audit looked ({audit.id}), stopped in batch 1 "
            "of 4 before its gates were decided: the audit goes on batch by batch, deciding "
            f"after each: {going_on}. Resuming it alone buys the whole design: the remaining "
            f"{est.to_run:,} requests ({est.planned - est.cached:,} trials), estimated cost "
            f"{cost_text(est.cost)}."
        ), said
        keys = str(app.screen.query_one("#looked-keys", Label).render())
        assert keys == "(y buys the whole design, n or escape cancels)"
        # Drawn whole: every row of the question inside the screen, none cut.
        assert cut_values(app) == [], shown(app)
        text = app.screen.query_one("#looked-text", Static)
        assert text.region.bottom <= size[1] and text.size.height == text.virtual_size.height
        await pilot.press("n")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmLookedResume)
        assert app.job_for_run(run_id) is None
    assert trials_stored(workspace, run_id) == before
    with Workspace.open(workspace) as ws:
        assert ws.runs.get(run_id).status == "interrupted"


async def test_enter_on_the_question_buys_nothing(looked_run: tuple[Path, str, Path]) -> None:
    workspace, run_id, _ = looked_run
    before = trials_stored(workspace, run_id)
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(1)(pilot)
        app.screen.query_one("#runs", DataTable).focus()
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmLookedResume), "the question")
        await pilot.press("enter")  # Cancel is focused: an unread question buys nothing
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmLookedResume)
        assert app.job_for_run(run_id) is None
    assert trials_stored(workspace, run_id) == before


async def test_y_buys_the_whole_design(looked_run: tuple[Path, str, Path]) -> None:
    workspace, run_id, _ = looked_run
    app = DiptychApp(workspace, refresh_interval=0.2)
    async with app.run_test(size=(60, 20)) as pilot:
        await loaded(1)(pilot)
        app.screen.query_one("#runs", DataTable).focus()
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmLookedResume), "the question")
        await pilot.press("y")
        await wait_for(pilot, lambda: cell(app, run_id, "status") == "complete", "the design")
    with Workspace.open(workspace) as ws:
        assert ws.runs.get(run_id).status == "complete"
        counts = ws.runs.counts(run_id)
        assert not counts.get("pending"), counts

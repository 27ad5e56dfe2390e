"""``u`` on a run an audit's gates decided asks before it buys the rest of the design: the
question says the trials, the requests and the estimated cost (the plan's, in the one wording
of a cost) and its keys; ``n`` leaves the run decided and asks nothing of the model."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import SIZES, cell, loaded, said, settle, shown, wait_for
from surface import cut_values
from textual.widgets import DataTable, Label, Static

from diptych.core.audit.sequential import WHOLE_DESIGN, PartLooks
from diptych.core.cost import cost_text
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.runs.confirm import ConfirmResume
from tests.support.sequential_audits import FIGURE


@pytest.mark.parametrize("size", SIZES)
async def test_u_on_a_decided_run_says_what_the_rest_buys_and_n_buys_nothing(
    decided_run: Path, size: tuple[int, int]
) -> None:
    with Workspace.open(decided_run) as ws:
        (run,) = ws.runs.list()
        est = ws.runs.plan_resume(run.run.id)
    # 1,640 trials, 1,640 requests: the rest is every trial without an outcome.
    left = run.counts["pending"]
    assert est.planned - est.cached == left and 0 < est.to_run < 1640
    app = DiptychApp(decided_run, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(1)(pilot)
        app.screen.query_one("#runs", DataTable).focus()
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmResume), "the question")
        await settle(pilot)
        said = " ".join(str(app.screen.query_one("#resume-text", Static).render()).split())
        keys = str(app.screen.query_one("#resume-keys", Label).render())
        assert keys == "(y buys the rest, n or escape cancels)"
        for words in (f"{left:,} trials", f"{est.to_run:,} requests",
                      f"estimated cost {cost_text(est.cost)}."):  # fmt: skip
            assert words in said, said
        assert cut_values(app) == [], shown(app)
        await pilot.press("n")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmResume)
        assert app.job_for_run(run.run.id) is None
    with Workspace.open(decided_run) as ws:
        assert ws.runs.get(run.run.id).status == "decided"
        assert ws.runs.counts(run.run.id) == run.counts


@pytest.mark.parametrize("key", ["p", "c"])
async def test_p_on_a_decided_run_says_what_u_then_does(decided_run: Path, key: str) -> None:
    # p and c say where the run was decided and what u buys, in the words u's question and
    # `diptych resume` use: not "u resumes it", which it does only once the rest is bought.
    with Workspace.open(decided_run) as ws:
        (run,) = ws.runs.list()
        est = ws.runs.plan_resume(run.run.id)
        status = ws.runs.status_text(run.run.id)
    look = status.partition(":")[0]
    assert look.startswith("decided at look ") and look.endswith(" of 10"), status
    left = run.counts["pending"]
    app = DiptychApp(decided_run, refresh_interval=3600)
    async with app.run_test() as pilot:
        await loaded(1)(pilot)
        app.screen.query_one("#runs", DataTable).focus()
        before = len(said(app))
        await pilot.press(key)
        await wait_for(pilot, lambda: len(said(app)) > before, "the line")
        (line,) = said(app)[before:]
        assert line == (
            f"{run.run.id} is not running: {look}; u buys the remaining {est.to_run:,}\u00a0"
            f"requests ({left:,}\u00a0trials), estimated cost {cost_text(est.cost)}"
        )
        assert not isinstance(app.screen, ConfirmResume)
    with Workspace.open(decided_run) as ws:
        assert ws.runs.get(run.run.id).status == "decided"


async def test_y_buys_the_rest_of_a_decided_run(decided_run: Path) -> None:
    with Workspace.open(decided_run) as ws:
        (run,) = ws.runs.list()
    app = DiptychApp(decided_run, refresh_interval=0.2)
    async with app.run_test() as pilot:
        await loaded(1)(pilot)
        app.screen.query_one("#runs", DataTable).focus()
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmResume), "the question")
        await pilot.press("y")
        await wait_for(pilot, lambda: cell(app, run.run.id, "status") == "complete", "the rest")
    with Workspace.open(decided_run) as ws:
        assert ws.runs.get(run.run.id).status == "complete"
        # Bought whole, as diptych resume records it: its complete design is the last look of
        # its audit's plan, which every listing then reads, and no look its gates stopped at.
        (audit,) = ws.audits.list()
        looks = PartLooks.of(audit.parts[0].detail)
        assert looks is not None and looks.last is not None and looks.last.complete
        number = ws.audits.read(run.run.id).numbers[FIGURE]
        assert number["interval_name"].endswith(looks.at) and looks.at.startswith(WHOLE_DESIGN)
        assert ws.audits.as_now(audit).parts[0].status == "complete"

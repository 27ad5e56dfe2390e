"""The Standings screen while a text run is still running, at 80×24 and 60×20: it says what is
true of the runs there (no finished run has the figure; no labelling advice for a text run, no
CLI flag), ranks again by itself once the run finishes, and its ``f`` key steps through the
figures the runs have. The checks of tests/tui/surface.py and surface_keys.py run on each state
(``steps.surface``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from steps import (
    SIZES,
    help_check,
    loaded,
    next_figure,
    screen_lines,
    settle,
    shown,
    surface,
    wait_for,
)

from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.standings import StandingsScreen

pytestmark = pytest.mark.surface

MASC = ["carpenter", "sheriff", "farmer"]
FEM = ["editor", "designer", "writer"]


@pytest.fixture
def running_text_run(scripted: None, workspace: Path) -> tuple[Path, str]:
    """A pst-text run of both settings planned and stored as running, its lease held by this
    process (as `diptych run` in another shell holds it), nothing answered yet."""
    from diptych.core.engine import ModelSlot, prepare_run
    from diptych.core.plugins import get_model, get_probe
    from diptych.core.store import open_store

    path = workspace
    planted = {**dict.fromkeys(MASC, 0.2), **dict.fromkeys(FEM, 0.8)}
    design = {"masculine": MASC, "feminine": FEM, "samples_paired": 1, "samples_single": 1}
    Workspace.open(path).close()
    with open_store(path) as store:
        probe = get_probe("pst-text", design)
        model = get_model("scripted-likelihood", {"p_feminine": planted})
        plan = prepare_run(store, probe, [ModelSlot.of(model)])
        store.set_run_status(plan.run.id, "running")
        mine, _ = store.acquire_lease(plan.run.id)
        assert mine is not None
    return path, plan.run.id


def finish(path: Path, run_id: str) -> None:
    """The run's lease let go and the run resumed to its end."""
    from diptych.core.store import open_store

    with open_store(path) as store:
        lease = store.lease(run_id)
        assert lease is not None
        store.release_lease(lease)
    with Workspace.open(path) as ws:
        ws.runs.resume_sync(run_id)


def status_line(screen: StandingsScreen) -> str:
    found = screen.query("#standings-status")
    return " ".join(str(found.first().render()).split()) if found else ""


@pytest.mark.parametrize("size", SIZES)
async def test_a_running_text_run_then_its_ranking_by_itself_then_another_figure(
    running_text_run: tuple[Path, str], size: tuple[int, int]
) -> None:
    path, run_id = running_text_run
    app = DiptychApp(path, refresh_interval=0.2)
    async with app.run_test(size=size) as pilot:
        await loaded(1)(pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, StandingsScreen), "the screen")
        screen = app.screen
        assert isinstance(screen, StandingsScreen)
        await wait_for(pilot, lambda: "still running" in status_line(screen), "the status")
        await settle(pilot)
        said = status_line(screen)
        assert said == (
            f"no finished run here has the figure 'STS paired' to rank yet; {run_id} is still "
            "running (ranked again when it finishes; F5 now)"
        ), said
        # A text run needs no labels, and a screen has no command-line flags.
        assert "label" not in said and "--figure" not in said
        assert "f Figure" in " ".join(screen_lines(app)[-2:]), shown(app)
        assert await surface(pilot, leave=("escape", "f")) == [], shown(app)
        assert await help_check(pilot, StandingsScreen) == []

        # The run finishes elsewhere (a thread of its own here, as another process): the
        # screen ranks it without a key pressed.
        await asyncio.to_thread(finish, path, run_id)
        await wait_for(pilot, lambda: screen.standings is not None, "the ranking")
        await settle(pilot)
        (table,) = screen.standings.tables
        assert table.figure == "STS paired (expected from P(he), P(she))"
        assert screen.figures == ["STS paired", "STS single"]
        assert await surface(pilot, leave=("escape", "f")) == [], shown(app)

        # f ranks the next figure the runs have, and after the last the first again.
        await next_figure(pilot, screen, "STS single")
        drawn = " ".join(" ".join(screen_lines(app)).split())
        assert "STS single (expected from P(he), P(she))" in drawn, shown(app)
        await next_figure(pilot, screen, "STS paired")

"""The Runs and Plugins screens at 80×24 and 60×20, read as a user reads them (a run's own
screens: ``test_surface_run_detail.py``).

Each screen is opened as a user opens it, on data with known values, and the checks of
tests/tui/surface.py and surface_keys.py run on what is drawn (``steps.surface`` runs them all).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import (
    SIZES,
    help_check,
    loaded,
    settle,
    shown,
    surface,
    wait_for,
)
from surface import (
    cut_values,
    missing_values,
    screen_lines,
)
from surface_keys import (
    cut_footer_keys,
    footer_lacks,
    unreachable_keys,
)

from diptych.core.engine import run_probe
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.plugins import PluginsScreen

pytestmark = pytest.mark.surface


@pytest.mark.parametrize("size", SIZES)
async def test_runs_screen(snapshot_workspace: Path, size: tuple[int, int]) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(3)(pilot)
        assert await help_check(pilot, type(app.screen)) == []
        # n, r and i open screens; u, p and c say why they do nothing on a finished run.
        assert await surface(pilot) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_runs_footer_shows_every_key_or_says_more_are_under_help(
    snapshot_workspace: Path, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With every key of the Runs screen offered (a run executing offers u, p and c), a footer
    too narrow for them all says how many more keys Help lists."""
    from diptych.tui.screens.runs.screen import RunsScreen

    every = {"resume": "Resume", "pause": "Pause", "stop": "Stop"}
    monkeypatch.setattr(RunsScreen, "footer_labels", lambda self: every)
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(3)(pilot)
        await settle(pilot)
        found = unreachable_keys(app) + cut_footer_keys(app) + footer_lacks(app)
        assert found == [], shown(app)
        if size == (60, 20):
            assert "+" in screen_lines(app)[-1], shown(app)  # some keys are under Help


@pytest.fixture
def one_design_thrice(few_plugins: None, workspace: Path) -> Path:
    """Three runs of one design (two asked for anew): their ids share 8 hex digits."""
    with open_store(workspace) as store:
        for new in (False, True, True):
            run_probe(store, "scripted", ["scripted-likelihood"], probe_params=["n=4"], new=new)
    return workspace


@pytest.mark.parametrize("size", SIZES)
async def test_runs_screen_prints_each_run_by_a_name_every_command_takes(
    one_design_thrice: Path, size: tuple[int, int]
) -> None:
    with Workspace.open(one_design_thrice) as ws:
        names = [s.name for s in ws.runs.list()]
        # Each name, typed, names its run alone (the CLI's lookup: tests/cli).
        assert [ws.runs.get(n).id for n in names] == [s.run.id for s in ws.runs.list()]
    assert len(set(names)) == 3 and len({n[:8] for n in names}) == 1
    app = DiptychApp(one_design_thrice, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(3)(pilot)
        await settle(pilot)
        # Printed whole in the run column: no "0663f62…".
        assert missing_values(screen_lines(app), names) == [], shown(app)
        assert cut_values(app) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_plugins_screen(snapshot_workspace: Path, size: tuple[int, int]) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(3)(pilot)
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, PluginsScreen), "the plugins")
        assert await help_check(pilot, PluginsScreen) == []
        assert await surface(pilot) == [], shown(app)

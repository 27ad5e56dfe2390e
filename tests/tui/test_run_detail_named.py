"""Run detail of a run an audit's gates decided, at 80×24 and 60×20: every interval of its
headline figures is named (the gated one anytime-valid, every other one too, whatever look the
gates read last), and the line naming a table's intervals on a design stopped early is drawn in
the section's pane, under its table, never laid out below it where nothing scrolls to it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from steps import SIZES, analysed, settle, show_section, shown
from surface import out_of_reach, screen_lines

from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.runs.detail import RunDetailScreen
from diptych.tui.widgets.fit_table import FitTable
from tests.support.cli import call
from tests.support.named_intervals import bare_dashes, unnamed_intervals
from tests.support.sequential_audits import decided_at_first_look

pytestmark = pytest.mark.surface


async def _detail(pilot: object, app: DiptychApp, run_id: str) -> RunDetailScreen:
    screen = RunDetailScreen(run_id)
    await app.push_screen(screen)
    await analysed(pilot, screen)  # type: ignore[arg-type]
    return screen


@pytest.fixture(params=["at its stop", "bought whole"])
def gated_run(
    scripted: None, tmp_path: Path, capsys: pytest.CaptureFixture[str], request: Any
) -> tuple[Path, str]:
    """A run decided at look 1 of 4, as it stopped or then bought whole (its gate then read at
    look 2 of 4): its workspace and id."""
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws)
    if request.param == "bought whole":
        code, out = call(capsys, "--store", ws, "resume", run_id, "--yes")
        assert code == 0, out
    return Path(ws), run_id


@pytest.mark.parametrize("size", SIZES)
async def test_every_headline_interval_of_a_decided_run_is_named(
    gated_run: tuple[Path, str], size: tuple[int, int]
) -> None:
    ws, run_id = gated_run
    app = DiptychApp(ws, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await _detail(pilot, app, run_id)
        table = screen.query_one("#section-numbers", FitTable)
        cells = [" ".join(cells) for _, cells in table.source]
        assert sum("[" in c for c in cells) > 2, cells
        assert unnamed_intervals(cells) == [], shown(app)
        rows = ["│ " + " │ ".join(cells) + " │" for _, cells in table.source]
        assert bare_dashes(rows) == [], shown(app)
        # A look that read the whole design says so, in the words of `diptych show`.
        whole = [c for c in cells if "look 2" in c]
        assert all(re.search(r"the whole design read at look 2\)", c) for c in whole), cells
        with Workspace.open(ws) as opened:
            complete = opened.runs.get(run_id).status == "complete"
        assert bool(whole) == complete, cells


@pytest.mark.parametrize("size", SIZES)
async def test_a_tables_intervals_line_is_in_its_pane(
    decided_run: Path, size: tuple[int, int]
) -> None:
    with Workspace.open(decided_run) as ws:
        (summary,) = ws.runs.list()
        result = ws.audits.read(summary.run.id)
    named = [t.title for t in result.tables if t.interval_name]
    assert named, [t.title for t in result.tables]
    app = DiptychApp(decided_run, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await _detail(pilot, app, summary.run.id)
        for title in named:
            await show_section(pilot, screen, title)
            await settle(pilot)
            assert out_of_reach(app) == [], (title, shown(app))
            pane = screen.query_one("#content").region
            inside = screen_lines(app)[pane.y : pane.bottom]
            assert any(line.strip().startswith("intervals: fixed-design") for line in inside), (
                title,
                shown(app),
            )
            # The intervals (plural) do not hold: the line's verb agrees with its subject.
            said = " ".join(" ".join(inside).split())
            assert "does not hold" not in said, (title, shown(app))
            assert "intervals: fixed-design; do not hold after the stop at look 1 of" in (said), (
                title,
                shown(app),
            )

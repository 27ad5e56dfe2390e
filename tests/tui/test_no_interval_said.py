"""A figure with no interval says why wherever it is printed, in the report's words ("no
interval (one masculine identity only)"): `diptych show` at 60 and 80 columns, `diptych
standings`, the terminal app's Run detail and Standings at 80×24 and 60×20 — never a bare dash
beside a figure whose analysis knows the reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import SIZES, analysed, settle, shown, wait_for
from surface import screen_lines

from diptych.core.engine import run_probe
from diptych.core.report.formatting import no_interval
from diptych.core.report.verdict import resamples_text
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.runs.detail import RunDetailScreen
from diptych.tui.screens.standings import StandingsScreen
from diptych.tui.widgets.fit_table import FitTable
from tests.support.cli import call

pytestmark = pytest.mark.surface

#: One masculine identity: every figure that resamples both identity lists has no interval.
PARAMS = ["masculine=carpenter", "feminine=nurse,editor,secretary", "setting=both"]
FIGURE = "STS single (expected from P(he), P(she))"
WHY = "no interval (one masculine identity only)"


@pytest.fixture
def one_masculine(few_plugins: None, workspace: Path) -> tuple[Path, str]:
    with open_store(workspace) as store:
        run_id = run_probe(store, "pst-text", ["scripted-likelihood"], probe_params=PARAMS).id
    return workspace, run_id


def _without(ws: Path, run_id: str) -> dict[str, dict[str, object]]:
    """The figures of the run that have no interval and a reason: the report says each so."""
    with Workspace.open(ws) as opened:
        numbers = opened.audits.read(run_id).numbers
    out = {k: dict(v) for k, v in numbers.items() if no_interval(v)}
    assert FIGURE in out and no_interval(out[FIGURE]) == WHY
    # The report's "What each interval resamples" says the same words.
    assert all(resamples_text(v).startswith(no_interval(v)) for v in out.values())
    return out


@pytest.mark.parametrize("columns", ["60", "80"])
def test_show_and_standings_say_why_a_figure_has_no_interval(
    one_masculine: tuple[Path, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    columns: str,
) -> None:
    ws, run_id = one_masculine
    without = _without(ws, run_id)
    monkeypatch.setenv("COLUMNS", columns)
    code, out = call(capsys, "--store", str(ws), "show", run_id)
    assert code == 0, out
    # Read down the interval column: the wrapped cell joined again. At 60 columns the table
    # drops its edges to fit its five columns: the column is found by its header.
    table = out.split("Headline figures", 1)[1].split("└", 1)[0]
    header = next(line for line in table.splitlines() if "95% interval" in line)
    at = [cell.strip() for cell in header.split("┃")].index("95% interval")
    column = " ".join(
        " ".join(line.split("│")[at].split()) for line in table.splitlines() if line.count("│") > 3
    )
    # Each figure without an interval says its own reason (a diagnostic has none to make).
    assert column.count("no interval (") == len(without), out
    assert all(no_interval(v) in column for v in without.values()), out
    code, ranked = call(capsys, "--store", str(ws), "standings", "--figure", "STS single")
    assert code == 0, ranked
    assert WHY in " ".join(ranked.split()), ranked


@pytest.mark.parametrize("size", SIZES)
async def test_run_detail_and_standings_say_why_a_figure_has_no_interval(
    one_masculine: tuple[Path, str], size: tuple[int, int]
) -> None:
    ws, run_id = one_masculine
    without = _without(ws, run_id)
    app = DiptychApp(ws, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = RunDetailScreen(run_id)
        await app.push_screen(screen)
        await analysed(pilot, screen)
        table = screen.query_one("#section-numbers", FitTable)
        cells = {name: row[2] for name, row in table.source}
        # In the words of `diptych show`, at either size: "no interval (one masculine identity
        # only)", never a dash for the words.
        for name, number in without.items():
            assert cells[name] == no_interval(number), cells[name]
        assert cells[FIGURE] == WHY, cells
        drawn = " ".join(" ".join(screen_lines(app)).split())
        assert "no interval" in drawn and "— (one" not in drawn, shown(app)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, StandingsScreen), "the screen")
        standings = app.screen
        assert isinstance(standings, StandingsScreen)
        await wait_for(pilot, lambda: standings.standings is not None, "the standings")
        await pilot.press("f")  # to STS single
        await settle(pilot)
        await wait_for(pilot, lambda: "STS single" in " ".join(screen_lines(app)), "STS single")
        await settle(pilot)
        drawn = " ".join(" ".join(screen_lines(app)).split())
        assert WHY in drawn, shown(app)

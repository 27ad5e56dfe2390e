"""The Standings screen of a run its gate decided at its first look, then bought on with
``diptych resume`` and interrupted, at 80×24 and 60×20: the gated figure's line under the table
says what holds (read from all its trials with a fixed-design interval, and what its gate read
at the look, value and anytime-valid interval), never that its looks did not record it — they
did. A figure its looks truly did not record still says so."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from steps import SIZES, loaded, screen_lines, settle, shown, wait_for
from textual.containers import VerticalScroll
from textual.pilot import Pilot

from diptych.core.audit.record import list_audits, save_part
from diptych.core.report.formatting import bounds, figure_text
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.standings import StandingsScreen
from tests.support.sequential_audits import FIGURE, decided_at_first_look
from tests.support.stopped_runs import bought_on_and_interrupted

pytestmark = [pytest.mark.surface, pytest.mark.usefixtures("scripted_plugin")]

HOLDS = (
    "fixed-design; does not hold after the stop at look 1 of 4: the run was bought on past the "
    "stop, so the figure is read from all its trials with a fixed-design interval"
)


@pytest.fixture
def bought_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, Any]]:
    """The workspace, decided at look 1 of 4, bought on and interrupted; what its gate read at
    the look (``value``, ``ci_low``, ``ci_high``)."""
    monkeypatch.chdir(tmp_path)
    ws = str(tmp_path / ".diptych")
    run_id = decided_at_first_look(capsys, ws, "-M", "latency=0.01")
    with Workspace.open(ws) as opened:
        read = dict(opened.audits.read(run_id).numbers[FIGURE])
    assert read["interval_name"] == "95% anytime-valid interval, look 1 of 4"
    bought_on_and_interrupted(ws, run_id)
    with Workspace.open(ws) as opened:
        assert opened.runs.get(run_id).status == "interrupted"
    yield read


async def _page_words(pilot: Pilot[Any], screen: StandingsScreen) -> str:
    """Every word the page draws, read down it a screenful at a time (as a reader scrolls)."""
    body = screen.query_one("#body", VerticalScroll)
    seen: list[str] = []
    y = 0
    while True:
        body.scroll_to(y=y, animate=False)
        await settle(pilot)
        # The page's rows between the header and the footer, each once.
        seen += [line.strip(" │▐▌█▇▆▅▄▃▂▁") for line in screen_lines(pilot.app)[1:-1]]
        if y >= body.max_scroll_y:
            break
        y = min(y + body.scrollable_content_region.height, body.max_scroll_y)
    return " ".join(" ".join(seen).split())


async def _standings(pilot: Pilot[Any]) -> StandingsScreen:
    app = pilot.app
    await loaded(1)(pilot)
    await pilot.press("s")
    await wait_for(pilot, lambda: isinstance(app.screen, StandingsScreen), "the screen")
    screen = app.screen
    assert isinstance(screen, StandingsScreen)
    await wait_for(pilot, lambda: screen.standings is not None, "the standings")
    await settle(pilot)
    return screen


@pytest.mark.parametrize("size", SIZES)
async def test_the_gated_figure_bought_on_says_what_its_gate_read(
    bought_on: dict[str, Any], size: tuple[int, int]
) -> None:
    read = bought_on
    reading = (
        f"the gate's reading at look 1 of 4 was {figure_text(read['value'])} "
        f"{bounds(read['ci_low'], read['ci_high'])}, its 95% anytime-valid interval"
    )
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await _standings(pilot)
        words = await _page_words(pilot, screen)
        assert f"{HOLDS}; {reading}" in words, shown(app)
        assert "did not record" not in words, words


async def test_a_figure_its_looks_did_not_record_still_says_so(bought_on: dict[str, Any]) -> None:
    """Looks recorded before they kept the figure, and no gate reading it: its line says, at
    60×20, that its looks did not record it."""
    with open_store(Path(".diptych")) as db:
        (rec,) = list_audits(db)
        (part,) = rec.parts
        detail = dict(part.detail)
        for look in detail["sequential"]["looks"]:
            look["numbers"] = {}
        save_part(db, rec.id, replace(part, detail=detail))
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await _standings(pilot)
        words = await _page_words(pilot, screen)
        assert "the gate's reading" not in words
        assert f"{HOLDS}; its looks did not record it" in words, shown(app)

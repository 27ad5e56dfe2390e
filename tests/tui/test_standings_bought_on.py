"""The Standings screen of a run its gate decided at its first look, then bought on with
``diptych resume`` and interrupted, at 80×24 and 60×20: the gated figure is ranked on the
interval its decision used, the look's, named with its value on all the trials stored since
as a value only, as ``diptych show`` prints it: the page holds that one interval, never a
fixed-design one of the trials stored since beside it. A figure its looks truly did not record
says so; one its look read without an interval has none."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from steps import SIZES, open_standings, screen_lines, settle, shown, wait_for
from textual.containers import VerticalScroll
from textual.pilot import Pilot

from diptych.core.audit.record import list_audits, save_part
from diptych.core.digits import percent_text
from diptych.core.report.formatting import bounds, no_interval
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.standings import StandingsScreen
from tests.support.sequential_audits import (
    FIGURE,
    SINGLE,
    decided_at_first_look,
    decided_single_without_interval,
)
from tests.support.stopped_runs import (
    bought_on_and_audited_again,
    bought_on_and_interrupted,
    last_look,
)

pytestmark = [pytest.mark.surface, pytest.mark.usefixtures("scripted_plugin")]

#: The ``‡`` line of the gated figure, after its interval's name.
HOLDS = (
    " stored since: the interval its looks read at the stop, the one its decision used; "
    "the run was bought on since, and no interval is made of the trials stored since"
)
#: Bounds as the one formatter prints them.
BOUNDS = re.compile(r"\[[−\d.,]+, [−\d.,]+\]")


@pytest.fixture
def bought_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, Any]]:
    """The workspace, decided at look 1 of 4, bought on and interrupted; what its gate read at
    the look (``value``, ``ci_low``, ``ci_high``) and the share of its design the look read
    (``share``)."""
    monkeypatch.chdir(tmp_path)
    ws = str(tmp_path / ".diptych")
    run_id = decided_at_first_look(capsys, ws, "-M", "latency=0.01")
    with Workspace.open(ws) as opened:
        read = dict(opened.audits.read(run_id).numbers[FIGURE])
    assert read["interval_name"] == "95% anytime-valid interval, look 1 of 4"
    read["share"] = percent_text(last_look(ws).fraction)
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


@pytest.mark.parametrize("size", SIZES)
async def test_the_gated_figure_bought_on_is_ranked_on_its_decisions_interval(
    bought_on: dict[str, Any], size: tuple[int, int]
) -> None:
    read = bought_on
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_standings(pilot, runs=1)
        words = await _page_words(pilot, screen)
        assert "95% anytime-valid interval, look 1 of 4; " in words, shown(app)
        assert HOLDS in words, words
        # One interval on the page: the look's, in the row; its line names it, with none other.
        assert set(BOUNDS.findall(words)) == {bounds(read["ci_low"], read["ci_high"])}, words
        assert "fixed-design" not in words and "did not record" not in words, words
        # Ranked on the look's share of its design, what it was bought on to named after it.
        said = f"ranked on {read['share']} of its design (interrupted: decided at look 1 of 4, "
        assert f"{said}bought on since: " in words, words


async def test_a_figure_its_looks_did_not_record_still_says_so(bought_on: dict[str, Any]) -> None:
    """Looks recorded before they kept the figure, and no gate reading it: its line says, at
    60×20, that its looks did not record it, its interval named as not holding."""
    with open_store(Path(".diptych")) as db:
        (rec,) = list_audits(db)
        (part,) = rec.parts
        detail = dict(part.detail)
        for look in detail["sequential"]["looks"]:
            look["numbers"] = {}
        save_part(db, rec.id, replace(part, detail=detail))
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await open_standings(pilot, runs=1)
        words = await _page_words(pilot, screen)
        assert "trials stored since" not in words
        assert (
            "fixed-design; does not hold after the stop at look 1 of 4: its looks did not record "
            "it, so no interval of its own holds after the stop"
        ) in words, shown(app)


@pytest.fixture
def audited_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, Any]]:
    """The workspace, decided at look 1 of 4, bought on, interrupted and audited again: the
    gated figure as ``diptych show`` reads it."""
    monkeypatch.chdir(tmp_path)
    ws = str(tmp_path / ".diptych")
    run_id, _ = bought_on_and_audited_again(capsys, ws, "-M", "latency=0.01")
    with Workspace.open(ws) as opened:
        yield dict(opened.audits.read(run_id).numbers[FIGURE])


@pytest.mark.parametrize("size", SIZES)
async def test_a_run_audited_again_after_buying_on_is_ranked_as_show_reads_it(
    audited_again: dict[str, Any], size: tuple[int, int]
) -> None:
    read = audited_again
    name = str(read["interval_name"])
    assert name.startswith("95% anytime-valid interval, look 1 of 4; "), name
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_standings(pilot, runs=1)
        words = await _page_words(pilot, screen)
        assert f"{name}: the interval its looks read at the stop" in words, shown(app)
        assert set(BOUNDS.findall(words)) == {bounds(read["ci_low"], read["ci_high"])}, words
        assert "fixed-design" not in words, words


@pytest.fixture
def bought_on_without_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The workspace, decided at look 1 of 8 where the look read the single setting's STS of
    one masculine identity only, then bought on well past it and interrupted: the figure as
    ``diptych show`` reads it, and as all the trials give it now."""
    monkeypatch.chdir(tmp_path)
    ws = str(tmp_path / ".diptych")
    run_id = decided_single_without_interval(capsys, ws, "-M", "latency=0.01")
    bought_on_and_interrupted(ws, run_id, after=60)
    with Workspace.open(ws) as opened:
        read = dict(opened.audits.read(run_id).numbers[SINGLE])
        yield no_interval(read), dict(opened.analysis.analyze(run_id).numbers[SINGLE])


@pytest.mark.parametrize("size", SIZES)
async def test_a_figure_its_look_read_without_an_interval_keeps_none_on_the_screen(
    bought_on_without_interval: tuple[str, dict[str, Any]], size: tuple[int, int]
) -> None:
    named, everything = bought_on_without_interval
    assert named.startswith("no interval (one masculine identity only, look 1 of 8; "), named
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_standings(pilot, runs=1)
        await pilot.press("f")  # to STS single
        await wait_for(
            pilot, lambda: screen.figure == "STS single" and "STS single" in screen._page_text(),
            "STS single",
        )  # fmt: skip
        await settle(pilot)
        words = await _page_words(pilot, screen)
        assert "no interval (one masculine identity only) ‡" in words, shown(app)
        assert f"{named}: its looks read it at the stop without an interval" in words, words
        # Never the fixed-design interval of all the trials stored since.
        assert bounds(everything["ci_low"], everything["ci_high"]) not in words, words
        assert not BOUNDS.search(words), words

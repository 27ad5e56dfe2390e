"""The Standings screen, reached from the runs list: three scripted models with planted
stereotypes ranked in the planted order, every figure, interval and rank interval whole on the
screen at 80×24 and at 60×20, and the way back home."""

from __future__ import annotations

import pytest
from steps import open_standings, row_shows, screen_lines, settle, wait_for
from surface_text import cut_text

from diptych.core.report.formatting import bounds, figure_text
from diptych.core.report.standings_tables import rank_interval_text, standings_text
from diptych.tui.app import DiptychApp
from diptych.tui.screens.help import HelpScreen, screen_classes, screen_title
from diptych.tui.screens.runs.screen import RunsScreen
from diptych.tui.screens.standings import StandingsScreen


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_standings_from_the_runs_list_fit_the_terminal(
    standings_app: DiptychApp, size: tuple[int, int]
) -> None:
    app = standings_app
    async with app.run_test(size=size) as pilot:
        screen = await open_standings(pilot)
        (table,) = screen.standings.tables
        # The planted order: P(she) 0.1 first, 0.5 last.
        planted = [s.measured.params["p_feminine"]["carpenter"] for s in table.standings]
        assert planted == [0.1, 0.3, 0.5]
        lines = screen_lines(app)
        shown = "\n".join(lines)
        for k, s in enumerate(table.standings, start=1):
            value = figure_text(s.figure.value)
            interval = bounds(s.figure.ci_low, s.figure.ci_high)
            ranks = rank_interval_text(s.rank_low, s.rank_high)
            # The row's number, its rank interval, the figure and its whole interval (at 60
            # columns a row is set as items on lines of their own).
            assert row_shows(lines, f"#{k}", [ranks, value, interval], below=2), (k, shown)
        assert "? Help" in lines[-1] and "q Quit" in lines[-1]
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, RunsScreen), "the runs list")


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_standings_show_their_design_and_help_of_their_own(
    standings_app: DiptychApp, size: tuple[int, int]
) -> None:
    """The design line (what was compared, on which figure) is in view whole as the screen
    opens; Help opened here is the Standings screen's, with the keys of every screen after
    it and no other screen's section."""
    app = standings_app
    async with app.run_test(size=size) as pilot:
        screen = await open_standings(pilot)
        (table,) = screen.standings.tables
        heading = screen.query(".heading").first()
        design = standings_text(table).title
        assert str(heading.render()) == design
        drawn = " ".join(" ".join(screen_lines(app)).split())
        assert " ".join(design.split()) in drawn, "\n".join(screen_lines(app))
        assert cut_text(app, heading) == [], "\n".join(screen_lines(app))
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await settle(pilot)
        help_screen = app.screen
        titles = [str(w.render()) for w in help_screen.query(".help-title")]
        assert titles[0] == screen_title(StandingsScreen), titles
        others = {screen_title(s) for s in screen_classes()} - {screen_title(StandingsScreen)}
        assert not others & set(titles), titles


async def test_an_error_while_ranking_is_one_line_and_f5_ranks_again(
    standings_app: DiptychApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure of the ranking replaces "Ranking the models…" with one line naming it; F5
    asks again, and once the ranking works the tables are there."""
    from diptych.core.workspace.standings import Standings

    table = Standings.table

    def broken(self: Standings, *args: object, **kwargs: object) -> object:
        raise ValueError("a planted failure\nover two lines")

    monkeypatch.setattr(Standings, "table", broken)
    app = standings_app
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_standings(pilot, ranked=False)

        def status() -> str:
            found = screen.query("#standings-status")
            return str(found.first().render()) if found else ""

        await wait_for(pilot, lambda: "planted failure" in status(), "the error")
        assert status() == (
            "could not rank the models: ValueError: a planted failure over two lines "
            "(F5 tries again)"
        )
        assert screen.standings is None
        monkeypatch.setattr(Standings, "table", table)
        await pilot.press("f5")
        await wait_for(pilot, lambda: screen.standings is not None, "the standings")
        await settle(pilot)
        assert len(screen.query("FitTable")) == 2  # the ranks and the pairs


async def test_the_interval_says_what_it_rests_on(standings_app: DiptychApp) -> None:
    """The column names the interval by its level, and a line under the table says what it
    resamples — the identities, or where it fell to its floor (†, as here: few identities)
    the pairings seen only — never a header that is untrue of a floored interval."""
    app = standings_app
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_standings(pilot)
        drawn = " ".join(" ".join(screen_lines(app)).split())
        assert "95% interval" in drawn and "interval over identities" not in drawn, drawn
        assert "95% CI" not in drawn
        page = " ".join(screen._page_text().split())
        assert (
            "95% interval: over the masculine × feminine identities crossed in scenes, or, "
            "marked †, over the pairings of identities seen only (it fell to its floor)"
        ) in page


@pytest.mark.parametrize("key", ["home", "up"])
async def test_the_page_opens_at_its_design_line_and_home_or_up_bring_it_back(
    standings_app: DiptychApp, key: str
) -> None:
    """At 60×20 the page opens at its top, the design line (what was compared, on which
    figure) in view; scrolled down, Home or Up on the table's first row bring it back."""
    from textual.containers import VerticalScroll

    app = standings_app
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await open_standings(pilot)
        body = screen.query_one("#body", VerticalScroll)
        assert body.max_scroll_y > 0  # the page is taller than the terminal
        (table,) = screen.standings.tables
        design = " ".join(table.design_label.split())
        assert body.scroll_y == 0 and design in " ".join(" ".join(screen_lines(app)).split())
        body.scroll_end(animate=False)
        await settle(pilot)
        assert body.scroll_y > 0
        await pilot.press(key)
        await settle(pilot)
        assert body.scroll_y == 0
        assert design in " ".join(" ".join(screen_lines(app)).split())

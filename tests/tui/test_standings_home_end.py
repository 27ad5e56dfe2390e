"""The Standings screen's End and Home keys read the page as a whole from the moment it
opens: End goes to the last row of the page's last table (the pairwise differences), Home back
to the first row of the first and the design line above it — no Tab first."""

from __future__ import annotations

from steps import open_standings, screen_lines

from diptych.tui.app import DiptychApp


async def test_end_and_home_go_to_the_page_ends_as_it_opens(standings_app: DiptychApp) -> None:
    app = standings_app
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_standings(pilot)
        body = screen.query_one("#body")
        assert app.focused is not None and app.focused.id == "ranks-1"
        await pilot.press("end")
        await pilot.pause()
        lines = screen_lines(app)
        # Three models make three pairs: the last one is #2 against #3.
        focused = app.focused
        assert focused is not None and focused.id == "pairs-1", "\n".join(lines)
        assert focused.cursor_row == 2
        assert any(line.split()[:2] == ["#2", "#3"] for line in lines if line.split()), lines
        # The page has moved on to the pairwise table, the ranks above it out of view.
        assert body.scroll_y > 0
        assert not any(line.split()[:1] == ["#1"] and "1–3" in line for line in lines), lines
        await pilot.press("home")
        await pilot.pause()
        focused = app.focused
        assert focused is not None and focused.id == "ranks-1"
        assert focused.cursor_row == 0
        assert body.scroll_y == 0
        assert "STS paired" in screen_lines(app)[1]

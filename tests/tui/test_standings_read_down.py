"""The Standings screen reads down to its end with the arrow keys alone at 60×20: Down on a
table's last row moves on to what follows it (the pairwise table, the notes, the method),
without Tab, as Up on its first row brings the heading above it back."""

from __future__ import annotations

from steps import open_standings, screen_lines, wait_for

from diptych.tui.app import DiptychApp


async def test_down_reads_the_page_to_its_end(standings_app: DiptychApp) -> None:
    app = standings_app
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await open_standings(pilot)
        body = screen.query_one("#body")
        assert body.max_scroll_y > 0, "the page fits at 60×20: nothing to read down to"
        method_start = screen.standings.method.split()[0:3]

        async def down_to_end() -> bool:
            await pilot.press("down")
            await pilot.pause()
            return body.scroll_y >= body.max_scroll_y

        for _ in range(60):
            if await down_to_end():
                break
        assert body.scroll_y >= body.max_scroll_y, "\n".join(screen_lines(app))
        await wait_for(
            pilot,
            lambda: " ".join(method_start) in " ".join(" ".join(screen_lines(app)).split()),
            "the method's words on screen at the page's end",
        )
        # Up brings the page back to its top, the design line first.
        for _ in range(60):
            await pilot.press("up")
        await pilot.pause()
        assert body.scroll_y == 0

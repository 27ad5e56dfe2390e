"""The Standings screen laid out again for the terminal's new width as soon as it is resized
(80×24 to 60×20): every figure's interval whole in its table, never cut at the old width
until a key is pressed — also where a table's own resize came before the page around it was
laid out at the new size (the screen looks at every table's width again then)."""

from __future__ import annotations

from typing import Any

import pytest
from steps import open_standings, row_shows, screen_lines, wait_for
from surface import cut_values

from diptych.core.report.formatting import bounds
from diptych.tui.app import DiptychApp
from diptych.tui.widgets.fit_table import FitTable


@pytest.mark.parametrize("own_resize", [True, False], ids=["own-resize", "own-resize-stale"])
async def test_a_resize_lays_the_tables_out_for_the_new_width(
    standings_app: DiptychApp, own_resize: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not own_resize:
        # The table's own resize handled while its width was still the old one.
        def stale(self: FitTable, event: Any) -> None:
            pass

        monkeypatch.setattr(FitTable, "on_resize", stale)
    app = standings_app
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_standings(pilot)
        (table,) = screen.standings.tables
        intervals = [bounds(s.figure.ci_low, s.figure.ci_high) for s in table.standings]
        await pilot.resize_terminal(60, 20)

        def whole() -> bool:
            lines = screen_lines(app)
            shows = all(
                row_shows(lines, f"#{k}", [interval], below=2)
                for k, interval in enumerate(intervals, start=1)
            )
            return app.size.width == 60 and shows and not cut_values(app)

        await wait_for(pilot, whole, "every interval whole at 60 columns")
        assert cut_values(app) == [], "\n".join(screen_lines(app))

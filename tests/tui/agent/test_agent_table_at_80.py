"""At 80×24 the Agent screen's proposals are a table: one line a row, under a header, each
row's status, search score, interval and q whole on its line — "not tested" where a pair's
held-out test did not run — never each row a block of "name: value" lines."""

from __future__ import annotations

import re

from hosts import start_session
from steps import settle, shown
from surface import screen_lines

from diptych.core.report.agent_cells import NOT_TESTED
from diptych.core.report.formatting import bounds, figure_text
from diptych.tui.app import DiptychApp
from diptych.tui.screens.agent.screen import AgentScreen
from diptych.tui.widgets.fit_table import FitTable


async def test_proposals_are_a_table_at_80x24(agent_tui: DiptychApp) -> None:
    app = agent_tui
    async with app.run_test(size=(80, 24)) as pilot:
        await start_session(pilot)
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AgentScreen)
        table = screen.query_one("#agent-proposals", FitTable)
        assert table.plan is not None and not table.plan.stacked, shown(app)
        assert table.show_header
        lines = screen_lines(app)
        # The header names q on the table's first line (no "q (BH, held-out): " item per row).
        assert any(re.search(r"\bq, held-out\b", line) for line in lines), shown(app)
        assert not any("q, held-out:" in line for line in lines), shown(app)
        scored = [r for r in screen._rows.by_id.values() if r.score is not None]
        assert scored
        for row in scored:
            # The scripted session re-tests none on held-out data: q reads "not tested".
            assert row.q_value is None and row.q_across == 0
            assert row.ci_low is not None and row.ci_high is not None
            line = next((ln for ln in lines if f" {row.id} " in f" {ln} "), "")
            for cell in (row.status, figure_text(row.score), NOT_TESTED):
                assert cell in line, (cell, line, shown(app))
            # The interval whole, on its value's line or the one under it (set under its value).
            at = lines.index(line)
            assert any(bounds(row.ci_low, row.ci_high) in ln for ln in lines[at : at + 2]), shown(
                app
            )

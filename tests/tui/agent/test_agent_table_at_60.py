"""At 60×20 the Agent screen's proposals do not fit as columns: the table has no header row
because each row is set as "name: value" items, every figure named on the row itself (a
header above them would repeat the names), as at 80×24 the header names them once."""

from __future__ import annotations

from hosts import start_session
from steps import settle, shown
from surface import screen_lines

from diptych.tui.app import DiptychApp
from diptych.tui.screens.agent.screen import PROPOSAL_COLUMNS, AgentScreen
from diptych.tui.widgets.fit_table import FitTable


async def test_each_stacked_row_names_its_figures_at_60x20(agent_tui: DiptychApp) -> None:
    app = agent_tui
    async with app.run_test(size=(60, 20)) as pilot:
        await start_session(pilot)
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AgentScreen)
        table = screen.query_one("#agent-proposals", FitTable)
        assert table.plan is not None and table.plan.stacked, shown(app)
        said = " ".join(" ".join(screen_lines(app)).split())
        # The first row in view names each of its figures ("id" is the row's lead, unnamed).
        for name in PROPOSAL_COLUMNS[1:4]:
            assert f"{name}:" in said, (name, shown(app))

"""a or x before the session has listed a proposal says so, and that line goes once the state
it describes has changed: a proposal listed, a session started, or any other key pressed."""

from __future__ import annotations

from typing import Any

import pytest
from hosts import status
from steps import SIZES, screen_lines, settle, wait_for
from textual.pilot import Pilot

from diptych.agent.rows import AgentRow
from diptych.tui.app import DiptychApp
from diptych.tui.screens.agent.screen import AgentScreen
from diptych.tui.screens.agent.session import AgentProposed, AgentScored

NOTHING = "no proposal to reject yet"


def drawn(app: DiptychApp) -> str:
    return " ".join(" ".join(screen_lines(app)).split())


async def opened(pilot: Pilot[Any]) -> AgentScreen:
    await pilot.press("a")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, AgentScreen), "the Agent screen")
    screen = pilot.app.screen
    assert isinstance(screen, AgentScreen)
    return screen


@pytest.mark.parametrize("size", SIZES)
async def test_a_proposal_listed_takes_back_no_proposal_yet(
    agent_tui: DiptychApp, size: tuple[int, int]
) -> None:
    app = agent_tui
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot)
        # A session that lists its proposals only when told (its worker does nothing).
        screen._run = lambda request: None  # type: ignore[method-assign]
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "asking" in status(pilot), "the session")
        screen.post_message(AgentProposed(0, 1))
        await wait_for(pilot, lambda: "running it" in status(pilot), "the round")
        screen.query_one("#agent-proposals").focus()
        await pilot.press("x")
        await wait_for(pilot, lambda: NOTHING in drawn(app), "x's answer", lambda: drawn(app))
        screen.post_message(AgentScored(AgentRow("r0p0", "pair", "pilot | nurse", "finding", 12.5)))
        await wait_for(pilot, lambda: "r0p0" in drawn(app), "the proposal listed")
        await settle(pilot)
        assert NOTHING not in drawn(app), drawn(app)
        assert "running it" in status(pilot)


@pytest.mark.parametrize("size", SIZES)
async def test_the_next_key_takes_back_no_proposal_yet(
    agent_tui: DiptychApp, size: tuple[int, int]
) -> None:
    app = agent_tui
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot)
        screen.query_one("#agent-proposals").focus()
        await pilot.press("x")
        await wait_for(pilot, lambda: NOTHING in drawn(app), "x's answer", lambda: drawn(app))
        assert "^s starts a session" in drawn(app)
        await pilot.press("tab")  # an action that says nothing of its own
        await settle(pilot)
        assert NOTHING not in drawn(app), drawn(app)

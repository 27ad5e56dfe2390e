"""The Agent screen's number fields: a value a session cannot take ("-", "", "1e3", a number
past the limit) stays as typed, the field is marked ✗ with its name and the line says what it
takes; ^s then starts nothing and focuses the field. A good value, spaces around it, starts."""

from __future__ import annotations

import pytest
from hosts import status
from steps import wait_for
from textual.widgets import Input, Label

from diptych.tui.app import DiptychApp
from diptych.tui.screens.agent.screen import AgentScreen

TAKES = {
    "agent-rounds": ("rounds", "rounds takes a whole number from 1 to 1,000"),
    "agent-per-round": ("per round", "per round takes a whole number from 1 to 10"),
}


@pytest.mark.parametrize("field_id", sorted(TAKES))
@pytest.mark.parametrize("typed", ["-", "", "1e3", "99999999999999999999", "0"])
async def test_a_bad_number_is_kept_marked_and_refused(
    agent_tui: DiptychApp, field_id: str, typed: str
) -> None:
    app = agent_tui
    name, words = TAKES[field_id]
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, AgentScreen), "the Agent screen")
        screen = app.screen
        assert isinstance(screen, AgentScreen)
        field = screen.query_one(f"#{field_id}", Input)
        field.focus()
        await wait_for(pilot, lambda: app.focused is field, "the field's focus")
        await pilot.press("end", *["backspace"] * 3, *typed)
        screen.query_one("#agent-kind").focus()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: words in status(pilot), "the refusal", lambda: status(pilot))
        assert app.screen is screen
        assert field.value == typed
        assert app.focused is field
        assert not screen.session
        label = screen.query_one(f"#{field_id}-label", Label)
        await wait_for(pilot, lambda: str(label.render()) == f"✗ {name}", "the mark")
        assert status(pilot).startswith("the session cannot start: ")
        # Fixed, the mark goes.
        await pilot.press("end", *["backspace"] * 25, "2")
        await wait_for(pilot, lambda: str(label.render()) == name, "the mark taken back")


async def test_spaces_around_a_number_are_no_error(agent_tui: DiptychApp) -> None:
    app = agent_tui
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, AgentScreen), "the Agent screen")
        screen = app.screen
        assert isinstance(screen, AgentScreen)
        screen.query_one("#agent-per-round", Input).value = " 3 "
        screen.query_one("#agent-rounds", Input).value = " 1"
        request = screen.request()
        assert request is not None
        assert (request.rounds, request.per_round) == (1, 3)

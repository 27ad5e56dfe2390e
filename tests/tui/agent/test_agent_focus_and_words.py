"""After a session with proposals to decide, the focus is on the proposals, so that a and x
decide rather than type into the field last edited; the question before accepting a proposal
that is not a finding says its status in the words the docs use."""

from __future__ import annotations

import pytest
from hosts import status, table
from steps import wait_for
from textual.widgets import Input

from diptych.tui.app import DiptychApp
from diptych.tui.screens.agent.confirm import confirmation_text
from diptych.tui.screens.agent.screen import AgentScreen


async def test_the_proposals_take_the_focus_when_a_session_ends(agent_tui: DiptychApp) -> None:
    app = agent_tui
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, AgentScreen), "the Agent screen")
        screen = app.screen
        assert isinstance(screen, AgentScreen)
        screen.new_session_id = lambda: "tui-test"
        screen.query_one("#agent-target", Input).value = "scripted-likelihood"
        screen.query_one("#agent-model", Input).value = "scripted-chat"
        screen.query_one("#agent-rounds", Input).value = "1"
        per_round = screen.query_one("#agent-per-round", Input)
        per_round.focus()
        await wait_for(pilot, lambda: app.focused is per_round, "the field's focus")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "findings" in status(pilot), "the session to finish")
        await wait_for(pilot, lambda: app.focused is table(pilot), "the proposals' focus")
        rows = table(pilot)
        rows.move_cursor(row=rows.get_row_index("r0p2"))
        await pilot.press("x")
        await wait_for(pilot, lambda: "recorded" in status(pilot), "the rejection")
        assert per_round.value == "3"


@pytest.mark.parametrize(
    ("state", "said"),
    [
        ("not confirmed", "r0p0 dancer | civil engineer is not confirmed, not a finding: why."),
        ("no finding", "r0p0 dancer | civil engineer has no finding: why."),
        ("screened out", "r0p0 dancer | civil engineer was screened out, not a finding: why."),
    ],
)
def test_the_question_says_the_status_as_the_docs_do(state: str, said: str) -> None:
    text = confirmation_text("r0p0", "dancer | civil engineer", state, "why")
    assert text.splitlines()[0] == said
    assert "is no finding" not in text

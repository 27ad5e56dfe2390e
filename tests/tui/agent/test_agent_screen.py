"""The Agent screen: a session on scripted models, proposals listed as they arrive, accepting a
pair into the workspace's own identity list and rejecting another (recorded too); every form
field labelled, the highlighted row's whole reason under the table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hosts import start_session, status, table
from steps import wait_for
from textual.widgets import Checkbox, Input, Label, Select, Static

from diptych.agent.rows import AgentRow
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.agent.confirm import ConfirmAccept
from diptych.tui.screens.agent.screen import AgentScreen


async def test_a_session_lists_proposals_and_accepts_a_pair(
    agent_tui: DiptychApp,
) -> None:
    workspace, app = Path("ws"), agent_tui
    async with app.run_test(size=(100, 30)) as pilot:
        await start_session(pilot)
        # The scripted models declare no price: the spend says so, never "$0.00".
        assert "; spent not priced" in status(pilot) and "$0.00" not in status(pilot)
        rows = table(pilot)
        assert rows.row_count == 3
        statuses = {str(rows.get_row(k)[0]): str(rows.get_row(k)[2]) for k in rows.rows}
        assert statuses["r0p1"] == "rejected"
        assert "paper" in pilot.app.screen._rows.by_id["r0p1"].reason
        assert {statuses["r0p0"], statuses["r0p2"]} <= {"finding", "no finding", "screened out"}
        # A rejected proposal cannot be accepted: nothing is stored.
        rows.move_cursor(row=rows.get_row_index("r0p1"))
        await pilot.press("a")
        assert "only measured" in status(pilot)
        # Accept the first measured pair; reject the other.
        rows.move_cursor(row=rows.get_row_index("r0p0"))
        await pilot.press("a")
        if statuses["r0p0"] != "finding":
            # Not a finding: accepted only once the auditor says yes to the question.
            await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmAccept), "asking")
            await pilot.press("y")
        await wait_for(pilot, lambda: "in the workspace's list" in status(pilot), "the accept")
        assert str(rows.get_row("r0p0")[7]) == "accepted"
        rows.move_cursor(row=rows.get_row_index("r0p2"))
        await pilot.press("x")
        await wait_for(pilot, lambda: "recorded" in status(pilot), "the rejection")
        assert str(rows.get_row("r0p2")[7]) == "rejected"
    with Workspace.open(workspace) as ws:
        [pair] = ws.lists.identities()
        assert (pair.masculine, pair.feminine) == ("astronaut", "florist")
        assert "tui-test" in pair.source
        assert ws.lists.identity_params()["masculine"] == ["astronaut"]
        [rejection] = ws.lists.rejections()
        assert (rejection.kind, rejection.what) == ("pair", "pilot | dietitian")
        assert "tui-test" in rejection.source and "r0p2" in rejection.source


async def test_every_field_is_labelled_and_the_whole_reason_is_shown(
    agent_tui: DiptychApp,
) -> None:
    app = agent_tui
    async with app.run_test(size=(80, 24)) as pilot:
        await start_session(pilot)
        screen = pilot.app.screen
        labels = [str(label.render()) for label in screen.query("#agent-form Label").results(Label)]
        assert labels == [
            "search",
            "probe",
            "rounds",
            "per round",
            "target model",
            "agent model",
            "proposer",
            "allow new",
        ]
        # Each label sits right above its field, inside the 80 columns.
        fields = ("kind", "target", "probe", "rounds", "per-round", "model", "proposer")
        for field in (*fields, "allow-new"):
            label = screen.query_one(f"#agent-{field}-label", Label).region
            widget = screen.query_one(f"#agent-{field}").region
            assert label.x == widget.x and label.bottom == widget.y
            # A field takes a word at least; the allow-new box the three cells of "[ ]".
            assert widget.right <= 80 and widget.width >= (3 if field == "allow-new" else 6)
        # The agent's model has two columns' width: a name with parameters shows whole.
        assert screen.query_one("#agent-model", Input).content_region.width >= 44
        assert "(agent scripted-chat)" in status(pilot)
        rows = table(pilot)
        rows.move_cursor(row=rows.get_row_index("r0p1"))
        await pilot.pause()
        reason = str(screen.query_one("#agent-reason", Static).render())
        rejected = screen._rows.by_id["r0p1"]
        assert rejected.status == "rejected" and len(rejected.reason) > 20
        assert reason.startswith("r0p1 carpenter | nurse: rejected")
        assert rejected.reason in reason.replace("\n", " ") or rejected.reason in reason
        rows.move_cursor(row=rows.get_row_index("r0p0"))
        await pilot.pause()
        scored = str(screen.query_one("#agent-reason", Static).render())
        assert scored.startswith("r0p0 astronaut | florist: ")
        assert "search 95% CI, unadjusted [" in scored


def test_snapshot_agent_screen(snap_compare: Any, agent_tui: DiptychApp) -> None:
    assert snap_compare(agent_tui, terminal_size=(80, 24), run_before=start_session)


async def test_the_form_sets_per_round_proposer_and_allow_new(
    agent_tui: DiptychApp,
) -> None:
    from diptych.agent.checkpoint import stored_state

    workspace, app = Path("ws"), agent_tui
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, AgentScreen), "the screen")
        screen = pilot.app.screen
        assert isinstance(screen, AgentScreen)
        screen.new_session_id = lambda: "tui-form"
        screen.query_one("#agent-target", Input).value = "scripted-likelihood"
        screen.query_one("#agent-model", Input).value = "scripted-chat"
        screen.query_one("#agent-rounds", Input).value = "1"
        screen.query_one("#agent-per-round", Input).value = "1"
        screen.query_one("#agent-proposer", Select).value = "lexicon"
        screen.query_one("#agent-allow-new", Checkbox).value = True
        request = screen.request()
        assert request is not None
        assert (request.per_round, request.proposer, request.allow_new) == (1, "lexicon", True)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "findings" in status(pilot), "the session to finish")
        # One proposal, drawn from the lexicon: the agent's model was never asked.
        assert table(pilot).row_count == 1
    settings = stored_state(workspace, "tui-form")["settings"]
    assert (settings["per_round"], settings["proposer"], settings["allow_new"]) == (
        1,
        "lexicon",
        True,
    )


async def test_accepting_what_is_not_a_finding_asks_why_first(
    agent_tui: DiptychApp,
) -> None:
    workspace, app = Path("ws"), agent_tui
    reason = "held-out STS 4.2 [-10.5, 18.9] does not lie above 0"
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, AgentScreen), "the screen")
        screen = pilot.app.screen
        assert isinstance(screen, AgentScreen)
        screen.session = "tui-confirm"
        screen._show(
            AgentRow(
                "r0p0", "pair", "astronaut | florist", "not confirmed", 21.5, 3.0, 40.0,
                reason, {"masculine": "astronaut", "feminine": "florist"},
            )
        )  # fmt: skip
        await pilot.pause()
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmAccept), "the question")
        question = str(pilot.app.screen.query_one("#confirm-text", Static).render())
        assert question.startswith("r0p0 astronaut | florist is not confirmed, not a finding")
        assert reason in question.replace("\n", " ")
        # No: nothing is stored.
        await pilot.press("n")
        await wait_for(pilot, lambda: pilot.app.screen is screen, "the question closed")
        assert "r0p0 not accepted (not confirmed)" in status(pilot)
        # Yes: stored, with its status in its source.
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmAccept), "the question")
        await pilot.press("y")
        await wait_for(pilot, lambda: "in the workspace's list" in status(pilot), "the accept")
    with Workspace.open(workspace) as ws:
        [pair] = ws.lists.identities()
        assert (pair.masculine, pair.feminine) == ("astronaut", "florist")
        assert "not confirmed" in pair.source and "tui-confirm" in pair.source

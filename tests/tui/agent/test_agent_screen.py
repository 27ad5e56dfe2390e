"""The Agent screen: a session on scripted models, proposals listed as they arrive, accepting a
pair into the workspace's own identity list and rejecting another (recorded too); every form
field labelled, the highlighted row's whole reason under the table."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox, DataTable, Input, Label, Select, Static

from diptych.agent.memory import HashingEmbedder
from diptych.agent.rows import AgentRow
from diptych.core.capabilities import Model
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.agent.confirm import ConfirmAccept
from diptych.tui.screens.agent.screen import AgentScreen

PAIRS = [("astronaut", "florist"), ("carpenter", "nurse"), ("pilot", "dietitian")]


def scripted_models() -> Callable[[Workspace, str], Model]:
    """The agent proposes three pairs (one of them Table 7's, so rejected) in one round; the
    target is the zero-latency scripted likelihood model."""
    made: dict[str, Model] = {}

    def model_of(ws: Workspace, name: str) -> Model:
        if name not in made:
            made[name] = ws.plugins.model(name)
            if name == "scripted-chat":
                made[name].enqueue(  # type: ignore[attr-defined]
                    json.dumps(
                        {
                            "proposals": [
                                {
                                    "masculine": m,
                                    "feminine": f,
                                    "kind": "occupation",
                                    "rationale": "r",
                                }
                                for m, f in PAIRS
                            ]
                        }
                    )
                )
        return made[name]

    return model_of


def agent_app(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> DiptychApp:
    """The app with an Agent screen whose models are scripted (fresh for each app)."""
    models = scripted_models()
    monkeypatch.setattr(AgentScreen, "model_of", staticmethod(models))
    monkeypatch.setattr(AgentScreen, "agent_of", staticmethod(models))
    monkeypatch.setattr(AgentScreen, "embedder", HashingEmbedder())
    return DiptychApp(workspace, refresh_interval=3600)


async def wait_for(pilot: Pilot[Any], condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)


def table(pilot: Pilot[Any]) -> DataTable[Any]:
    return pilot.app.screen.query_one("#agent-proposals", DataTable)


def status(pilot: Pilot[Any]) -> str:
    return str(pilot.app.screen.query_one("#agent-status", Static).render())


async def start_session(pilot: Pilot[Any]) -> None:
    await pilot.press("a")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, AgentScreen), "the Agent screen")
    screen = pilot.app.screen
    assert isinstance(screen, AgentScreen)
    screen.new_session_id = lambda: "tui-test"
    screen.query_one("#agent-target", Input).value = "scripted-likelihood"
    screen.query_one("#agent-model", Input).value = "scripted-chat"
    screen.query_one("#agent-rounds", Input).value = "1"
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: "findings" in status(pilot), "the session to finish")
    await pilot.pause()


async def test_a_session_lists_proposals_and_accepts_a_pair(
    scripted: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = tmp_path / "ws"
    Workspace.open(workspace).close()
    app = agent_app(workspace, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        await start_session(pilot)
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
        assert str(rows.get_row("r0p0")[6]) == "accepted"
        rows.move_cursor(row=rows.get_row_index("r0p2"))
        await pilot.press("x")
        await wait_for(pilot, lambda: "recorded" in status(pilot), "the rejection")
        assert str(rows.get_row("r0p2")[6]) == "rejected"
    with Workspace.open(workspace) as ws:
        [pair] = ws.lists.identities()
        assert (pair.masculine, pair.feminine) == ("astronaut", "florist")
        assert "tui-test" in pair.source
        assert ws.lists.identity_params()["masculine"] == ["astronaut"]
        [rejection] = ws.lists.rejections()
        assert (rejection.kind, rejection.what) == ("pair", "pilot | dietitian")
        assert "tui-test" in rejection.source and "r0p2" in rejection.source


async def test_every_field_is_labelled_and_the_whole_reason_is_shown(
    scripted: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = tmp_path / "ws"
    Workspace.open(workspace).close()
    app = agent_app(workspace, monkeypatch)
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
        assert scored.startswith("r0p0 astronaut | florist: ") and "95% CI [" in scored


def test_snapshot_agent_screen(
    snap_compare: Any, scripted: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A relative workspace path: the header shows it, the same on every machine.
    monkeypatch.chdir(tmp_path)
    Workspace.open(Path("ws")).close()
    app = agent_app(Path("ws"), monkeypatch)
    assert snap_compare(app, terminal_size=(80, 24), run_before=start_session)


async def test_the_form_sets_per_round_proposer_and_allow_new(
    scripted: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from diptych.agent.checkpoint import stored_state

    workspace = tmp_path / "ws"
    Workspace.open(workspace).close()
    app = agent_app(workspace, monkeypatch)
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
    scripted: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = tmp_path / "ws"
    Workspace.open(workspace).close()
    app = agent_app(workspace, monkeypatch)
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
        question = str(pilot.app.screen.query_one("#confirm-text", Label).render())
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

"""ctrl+r on an audit whose gates were decided (here one made on the command line by ``diptych
run --gate --until-decided``) asks before it buys the rest of the design, in the words and with
the cost line ``u`` on the Runs screen asks with, then says that nothing else is left to run;
``n`` buys nothing, ``y`` buys the rest."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import open_recorded_audit, resume_question, said, settle, shown, wait_for
from textual.widgets import Label, Static

from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.workers import rest_of_decided_run
from tests.support.sequential_audits import decided_at_first_look

pytestmark = pytest.mark.usefixtures("scripted_plugin")


@pytest.fixture
def decided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> str:
    """The workspace ``.diptych`` here, its audit decided at its first look: the run's id."""
    monkeypatch.chdir(tmp_path)
    return decided_at_first_look(capsys, str(tmp_path / ".diptych"))


async def test_ctrl_r_on_a_decided_audit_asks_before_it_buys_the_rest(
    decided: str, tmp_path: Path
) -> None:
    ws, run_id = tmp_path / ".diptych", decided
    with Workspace.open(ws) as opened:
        before = opened.runs.counts(run_id)
    # Its one part is the decided run: nothing else of the audit is left to run after it.
    asked = " ".join(rest_of_decided_run(ws, run_id).split())
    asked += " Nothing else of the audit is left to run."
    assert before["pending"] > 0 and f"{before['pending']:,} trials" in asked
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recorded_audit(pilot)
        text = await resume_question(pilot)
        assert text == asked
        keys = str(app.screen.query_one("#resume-keys", Label).render())
        assert keys == "(y buys the rest, n or escape cancels)"
        await pilot.press("n")
        await settle(pilot)
        summary = str(screen.query_one("#summary", Static).render())
        assert "nothing bought" in summary, shown(app)
        with Workspace.open(ws) as opened:
            assert opened.runs.get(run_id).status == "decided"
            assert opened.runs.counts(run_id) == before
        await resume_question(pilot)
        await pilot.press("y")
        await wait_for(pilot, lambda: "audit complete" in str(
            screen.query_one("#summary", Static).render()), "the rest bought",
            lambda: shown(app) + repr(said(app)))  # fmt: skip
    with Workspace.open(ws) as opened:
        assert opened.runs.get(run_id).status == "complete"
        assert opened.runs.counts(run_id)["pending"] == 0

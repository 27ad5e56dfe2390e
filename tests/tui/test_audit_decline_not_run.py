"""ctrl+r on an audit bought until decided, whose agent search its gates did not need, asks
before it buys the rest; declined (``n``), the Audit screen's line names the parts not run and
how to run them, in the words the command line's answer uses, whole at 80x24 and 60x20."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from steps import SIZES, open_audit, shown, wait_for
from surface_text import cut_text
from textual.widgets import Label, OptionList, Static

from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.runs.confirm import ConfirmResume
from diptych.tui.workers import rest_of_decided_run
from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")

DECLINED = (
    "nothing bought: the decided parts are left as they are; not run: identities (the audit "
    "runs them once the rest is bought: ^r, answered y)"
)


@pytest.fixture
def searched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Path:
    """The workspace ``.diptych`` here, holding an audit of a gated pst-text part and an
    identity search, run until decided: the part decided, the search not run."""
    from diptych.agent import session
    from diptych.agent.memory import HashingEmbedder

    monkeypatch.setattr(session, "SentenceEmbedder", HashingEmbedder)
    monkeypatch.chdir(tmp_path)
    planted = {**dict.fromkeys(MASC, 0.2), **dict.fromkeys(FEM, 0.8)}
    target = {"plugin": "scripted-likelihood", "params": {"p_feminine": planted, "noise": 0.3}}
    search = {"name": "identities", "kind": "identities", "target": "target",
              "agent_model": "agent", "rounds": 1, "per_round": 1, "patience": 0}  # fmt: skip
    gates = [{"part": "pst-text", "figure": FIGURE, "below": 95}]
    file = planted_audit(
        tmp_path / "a.yaml", gates, MASC, FEM, name="declined", seed=2,
        models={"target": target, "agent": {"plugin": "scripted-chat"}}, searches=[search],
    )  # fmt: skip
    ws = tmp_path / ".diptych"
    code, out = call(capsys, "--store", str(ws), "audit", "run", str(file), "--quiet",
                     "--until-decided", "--batches", "4")  # fmt: skip
    assert code == 0 and "not run (no gate reads them): identities" in out, out
    return ws


@pytest.mark.parametrize("size", SIZES)
async def test_declining_the_rest_names_the_parts_not_run(
    searched: Path, size: tuple[int, int]
) -> None:
    with Workspace.open(searched) as opened:
        (audit,) = opened.audits.list()
        (run_id,) = opened.audits.decided_runs(audit.id)
        before = opened.runs.counts(run_id)
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        recorded = screen.query_one("#recorded", OptionList)
        await wait_for(pilot, lambda: recorded.display and recorded.option_count == 1, "the list")
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.plan is not None and bool(screen.status), "the plan")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmResume), "the question")
        await pilot.press("n")
        summary = screen.query_one("#summary", Static)

        def declined() -> bool:
            return " ".join(str(summary.render()).split()) == DECLINED

        await wait_for(pilot, declined, "the answer", lambda: shown(app))
        await wait_for(pilot, lambda: not cut_text(app, summary), "the answer whole",
                       lambda: "\n".join(cut_text(app, summary)))  # fmt: skip
    with Workspace.open(searched) as opened:
        assert opened.runs.counts(run_id) == before
        assert opened.audits.get(audit.id).part("identities") is None


def _placebo_requests(capsys: pytest.CaptureFixture[str], ws: Path) -> int:
    """The requests the search's placebo words take, as ``diptych audit check --json`` plans
    them: the least it buys before its agent proposes anything."""
    code, out = call(capsys, "--store", str(ws), "audit", "check", "a.yaml", "--json")
    assert code == 0, out
    (search,) = [p for p in json.loads(out)["parts"] if p["name"] == "identities"]
    return int(search["placebo"]["search"]["to_run"])


@pytest.mark.parametrize("size", SIZES)
async def test_the_question_names_the_search_the_audit_runs_after_the_rest(
    searched: Path, capsys: pytest.CaptureFixture[str], size: tuple[int, int]
) -> None:
    with Workspace.open(searched) as opened:
        (audit,) = opened.audits.list()
        (run_id,) = opened.audits.decided_runs(audit.id)
    rest = " ".join(rest_of_decided_run(searched, run_id).split())
    least = _placebo_requests(capsys, searched)
    assert least > 0
    # The search has no max_requests of its own and the audit no budget.max_requests: nothing
    # bounds what its agent buys after its placebo words.
    asked = (
        f"{rest} Running the audit whole then runs identities, an identities search: at least "
        f"{least:,} requests (its placebo words), then as many as its agent proposes, no "
        "max_requests bounding them."
    )
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        recorded = screen.query_one("#recorded", OptionList)
        await wait_for(pilot, lambda: recorded.display and recorded.option_count == 1, "the list")
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.plan is not None and bool(screen.status), "the plan")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmResume), "the question")
        await pilot.pause()
        question = app.screen.query_one("#resume-text", Static)
        assert " ".join(str(question.render()).split()) == asked
        # Read whole, the keys and the buttons under it in view too.
        keys = app.screen.query_one("#resume-keys", Label)
        assert not cut_text(app, question) and not cut_text(app, keys), shown(app)
        drawn = " ".join(shown(app).split())
        assert "Buy the rest (y)" in drawn and "Cancel (n)" in drawn, shown(app)

"""ctrl+r on an audit bought until decided, whose agent search its gates did not need, asks
before it buys the rest; declined (``n``), the Audit screen's line names the parts not run and
how to run them, in the words the command line's answer uses, whole at 80x24 and 60x20."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from audit_fixtures import searched_audit
from steps import SIZES, open_recorded_audit, resume_question, shown, wait_for
from surface_text import cut_text
from textual.widgets import Label, Static

from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.workers import rest_of_decided_run
from tests.support.cli import call

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
    file = searched_audit(tmp_path, monkeypatch, "declined", 95)
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
        screen = await open_recorded_audit(pilot)
        await resume_question(pilot)
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
        await open_recorded_audit(pilot)
        assert await resume_question(pilot) == asked
        await pilot.pause()
        question = app.screen.query_one("#resume-text", Static)
        # Read whole, the keys and the buttons under it in view too.
        keys = app.screen.query_one("#resume-keys", Label)
        assert not cut_text(app, question) and not cut_text(app, keys), shown(app)
        drawn = " ".join(shown(app).split())
        assert "Buy the rest (y)" in drawn and "Cancel (n)" in drawn, shown(app)

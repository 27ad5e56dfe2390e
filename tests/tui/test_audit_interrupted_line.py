"""An audit file decided at its first look, its part's run then bought on and stopped (Ctrl-C),
as the Audit screen opens it at 80×24 and 60×20: the line under the parts says the audit is
interrupted, as ``diptych audit list`` says it, and what runs it on from there — not the plan
alone, which reads as an audit never run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from steps import SIZES, open_audit, settle, wait_for
from textual.widgets import Input, Static

from diptych.tui.app import DiptychApp
from tests.support.cli import call
from tests.support.sequential_audits import file_decided_and_bought_on

pytestmark = pytest.mark.usefixtures("scripted_plugin")


@pytest.fixture
def interrupted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[str, str, str]:
    """The workspace and the audit file, its part bought on and stopped; the audit's name."""
    monkeypatch.chdir(tmp_path)
    ws, file, _ = file_decided_and_bought_on(capsys, tmp_path)
    code, out = call(capsys, "--store", ws, "audit", "list", "--json")
    assert code == 0, out
    ((status, name),) = [(a["status_text"], a["name"]) for a in json.loads(out)]
    assert status == "interrupted"
    return ws, file, name


@pytest.mark.parametrize("size", SIZES)
async def test_an_interrupted_audit_says_so_and_what_runs_it_on(
    interrupted: tuple[str, str, str], size: tuple[int, int]
) -> None:
    ws, file, name = interrupted
    app = DiptychApp(Path(ws), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        field = screen.query_one("#file", Input)
        field.focus()
        field.value = file
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.plan is not None and bool(screen.status), "the plan")
        await settle(pilot)
        summary = " ".join(str(screen.query_one("#summary", Static).render()).split())
    first, _, rest = summary.partition(f" {name}: ")
    assert first == "audit interrupted: ^r runs it on from where it stopped", summary
    assert rest.startswith("144 trials planned"), summary

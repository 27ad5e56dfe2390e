"""The Audit screen says an audit's status in the words ``diptych audit list`` says it: bought
until decided with its search left out, its closing line reads "1 of 2 parts complete; not
run: identities", never "complete"; and its list of recorded audits names every audit by the
id the commands take, at 80x24 and 60x20."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from audit_fixtures import searched_audit
from steps import SIZES, open_audit, shown, wait_for
from surface_text import cut_text
from textual.widgets import OptionList, Static

from diptych.tui.app import DiptychApp
from tests.support.cli import call

pytestmark = pytest.mark.usefixtures("scripted_plugin")

LEFT_OUT = "1 of 2 parts complete; not run: identities"


def _summary(app: DiptychApp) -> str:
    return " ".join(str(app.screen.query_one("#summary", Static).render()).split())


@pytest.mark.parametrize("size", SIZES)
async def test_the_run_ends_on_the_words_audit_list_says(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    size: tuple[int, int],
) -> None:
    # No look of the figure near 60 decides a limit of 60.5 early: its design is bought whole.
    searched_audit(tmp_path, monkeypatch, "whole", 60.5)
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        await pilot.press(*"a.yaml", "enter")
        await wait_for(pilot, lambda: screen.plan is not None, "the plan")
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: screen.report is not None, "the report", lambda: shown(app))
        await wait_for(pilot, lambda: _summary(app).startswith("audit "), "the end",
                       lambda: _summary(app))  # fmt: skip
        assert _summary(app).startswith(f"audit {LEFT_OUT} · cost "), _summary(app)
        summary = screen.query_one("#summary", Static)
        # Said, then laid out at its new height by a later refresh: waited for drawn whole.
        await wait_for(pilot, lambda: not cut_text(app, summary), "the summary drawn whole",
                       lambda: "; ".join(cut_text(app, summary)))  # fmt: skip
    code, out = call(capsys, "--store", ".diptych", "audit", "list", "--json")
    assert code == 0, out
    (audit,) = json.loads(out)
    assert audit["status_text"] == LEFT_OUT, audit


@pytest.fixture
def decided(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[str, str]:
    """The audit of :func:`audit_fixtures.searched_audit` bought until decided from the
    command line: its id and its status as ``diptych audit list --json`` says it."""
    file = searched_audit(tmp_path, monkeypatch, "listed", 95)
    code, out = call(capsys, "--store", ".diptych", "audit", "run", str(file), "--quiet",
                     "--until-decided", "--batches", "4")  # fmt: skip
    assert code == 0, out
    (audit,) = json.loads(call(capsys, "--store", ".diptych", "audit", "list", "--json")[1])
    return str(audit["id"]), str(audit["status_text"])


@pytest.mark.parametrize("size", SIZES)
async def test_every_recorded_audit_is_listed_by_its_id(
    decided: tuple[str, str], capsys: pytest.CaptureFixture[str], size: tuple[int, int]
) -> None:
    audit_id, words = decided
    assert words.startswith("decided at look 1 of 4: "), words
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        listed = screen.query_one("#recorded", OptionList)
        await wait_for(pilot, lambda: listed.display and listed.option_count == 1, "the list")
        line = " ".join(str(listed.get_option_at_index(0).prompt).split())
        assert listed.get_option_at_index(0).id == audit_id
        assert line == f"{audit_id} · {words} · a.yaml", line
    # The id shown is one the commands take.
    code, out = call(capsys, "--store", ".diptych", "audit", "gate", audit_id)
    assert code == 0 and f"gates of audit {audit_id}" in out, out

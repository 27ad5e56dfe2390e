"""The Audit screen at 80×24, after a second audit file bought the first's run further: the
first record's row in the list and its part's row name the look its own gates stopped at, as
``audit gate`` and ``audit list`` read it, never the second record's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from steps import open_audit, wait_for
from textual.widgets import DataTable, OptionList

from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit import AuditScreen
from tests.support.bought_further import AT_LOOK_2, bought_further
from tests.support.cli import call


def _rows(screen: AuditScreen) -> list[list[str]]:
    table = screen.query_one("#parts", DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def _part_status(screen: AuditScreen) -> str:
    """The first record's part's status, as its row says it (at 80 columns a row is stacked,
    one line a field: "status: …")."""
    if screen.plan is None or not screen.plan.id.startswith("first-"):
        return ""
    said = re.findall(r"^status: (.*)$", "\n".join(sum(_rows(screen), [])), re.M)
    return said[0] if said else ""


@pytest.fixture
def further(
    scripted_plugin: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The workspace ``.diptych`` here, the first file's run bought further by the second's."""
    monkeypatch.chdir(tmp_path)
    bought_further(capsys, tmp_path)
    code, out = call(capsys, "audit", "gate", "first.yaml")
    assert code == 0 and "(anytime-valid, look 2 of 4); below 72" in out, out


@pytest.mark.usefixtures("further")
async def test_the_first_records_rows_read_its_own_look() -> None:
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_audit(pilot)
        listed = screen.query_one("#recorded", OptionList)
        await wait_for(pilot, lambda: listed.display and listed.option_count == 2, "the list")
        prompts = [str(listed.get_option_at_index(i).prompt) for i in range(2)]
        assert prompts[1].startswith("first-") and f"· {AT_LOOK_2} ·" in prompts[1], prompts
        # The older record, second in the list: its part's row at its own look.
        await pilot.press("down", "enter")
        await wait_for(
            pilot,
            lambda: _part_status(screen).startswith("decided at"),
            "its part",
            lambda: f"{screen.plan and screen.plan.id} {_rows(screen)}",
        )
        assert _part_status(screen) == AT_LOOK_2

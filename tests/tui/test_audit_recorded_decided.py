"""An audit its gates decided at its first look, before any buy-on, in the Audit screen's list of
recorded audits at 80×24 and 60×20: its line says the look and what stopping there saved, in
the words of ``diptych audit list`` and ``diptych runs`` ("decided at look 1 of 4: 39 of 156
requests, 117 saved"), never "decided" alone."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from steps import SIZES, open_audit, wait_for
from textual.widgets import OptionList

from diptych.tui.app import DiptychApp
from tests.support.cli import call
from tests.support.sequential_audits import decided_at_first_look

pytestmark = pytest.mark.usefixtures("scripted_plugin")


@pytest.fixture
def said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> str:
    """The workspace ``.diptych`` here, decided at look 1 of 4: the audit's status as
    ``diptych audit list`` says it."""
    monkeypatch.chdir(tmp_path)
    decided_at_first_look(capsys, ".diptych")
    (rec,) = json.loads(call(capsys, "--store", ".diptych", "audit", "list", "--json")[1])
    said = str(rec["status_text"])
    assert re.fullmatch(r"decided at look 1 of 4: [\d,]+ of [\d,]+ requests, [\d,]+ saved", said)
    return said


@pytest.mark.parametrize("size", SIZES)
async def test_a_decided_audit_is_listed_with_its_look_and_savings(
    said: str, size: tuple[int, int]
) -> None:
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        recorded = screen.query_one("#recorded", OptionList)
        await wait_for(pilot, lambda: recorded.display and recorded.option_count == 1, "the list")
        line = " ".join(str(recorded.get_option_at_index(0).prompt).split())
        assert f" · {said} · (command line)" in line, line

"""An audit whose part's run ended with failed trials, as the Audit screen shows it: its line in
the list of recorded audits, and the line under the parts once ``ctrl+r`` has run it again (its
model still failing), say ``incomplete`` with how many trials failed and what asks them again,
in the words of ``diptych audit list``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from steps import SIZES, open_audit, open_recorded_audit, settle, shown, surface, wait_for
from surface import screen_lines
from textual.widgets import OptionList, Static

from diptych.tui.app import DiptychApp
from diptych.tui.widgets.fit_table import FitTable
from tests.support.cli import call
from tests.support.failing_audits import fail_on_nurses, failing_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")


@pytest.fixture
def said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> str:
    """The workspace ``.diptych`` here, its audit run with failed trials (its model still
    failing them): the audit's status as ``diptych audit list`` says it."""
    monkeypatch.chdir(tmp_path)
    fail_on_nurses(monkeypatch)
    file = str(failing_audit(tmp_path / "audit.yaml"))
    code, out = call(capsys, "--store", ".diptych", "audit", "run", file, "--quiet")
    assert code == 1, out
    (rec,) = json.loads(call(capsys, "--store", ".diptych", "audit", "list", "--json")[1])
    said = str(rec["status_text"])
    assert said.startswith("incomplete: ") and " trials failed; diptych resume " in said, rec
    return said


async def test_the_audit_screen_says_an_audit_with_failed_trials_is_incomplete(said: str) -> None:
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_audit(pilot)
        recorded = screen.query_one("#recorded", OptionList)
        await wait_for(pilot, lambda: recorded.display and recorded.option_count == 1, "the list")
        line = " ".join(str(recorded.get_option_at_index(0).prompt).split())
        assert line.startswith("failing-") and f" · {said} · " in line, line
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.plan is not None and bool(screen.status), "the plan")
        await settle(pilot)
        await pilot.press("ctrl+r")

        def summary() -> str:
            return " ".join(str(screen.query_one("#summary", Static).render()).split())

        await wait_for(pilot, lambda: summary().startswith("audit incomplete"), "the run",
                       lambda: shown(app))  # fmt: skip
        assert summary().startswith(f"audit {said} · cost "), summary()


@pytest.mark.parametrize("size", SIZES)
async def test_an_audit_with_failed_trials_opened_says_so_whole(
    said: str, size: tuple[int, int]
) -> None:
    """Opened from the list (not run again), the audit says it is incomplete as ``audit
    list`` does, above its plan, and its parts' counts each name their unit."""
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_recorded_audit(pilot)
        summary = " ".join(str(screen.query_one("#summary", Static).render()).split())
        assert summary.startswith(f"audit {said} failing: "), summary
        lines = " ".join(" ".join(screen_lines(app)).split())
        assert f"audit {said}" in lines, shown(app)
        parts = screen.query_one("#parts", FitTable)
        assert parts.headers[3:6] == ["trials", "trials stored", "requests to run"], parts.headers
        assert await surface(pilot, leave=("ctrl+r", "ctrl+g", "ctrl+o", "escape")) == [], shown(
            app
        )

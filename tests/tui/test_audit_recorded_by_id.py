"""A record picked from the Audit screen's list of recorded audits opens by its id at 80×24:
an older run of a file with ``--set`` shows its own plan, parts and gates, not those of the
file's newest record (all of them bear the file's name, a prefix of each id)."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import open_audit, wait_for
from textual.widgets import DataTable, OptionList, Static

from diptych.core.audit.record import AuditRecord
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit import AuditScreen
from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")


@pytest.fixture
def records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> list[AuditRecord]:
    """The workspace ``.diptych`` here with three records of one file, oldest first: run as
    written, with ``--set`` noise, and (newest) with other noise and its gate set to fail."""
    monkeypatch.chdir(tmp_path)
    # The file's gate passes (expected STS near 60, below 100); the newest run's, set to 10,
    # fails: a "pass" in the gates box is the older record's own.
    gate = {"part": "pst-text", "figure": FIGURE, "below": 100}
    planted_audit(tmp_path / "a.yaml", [gate], MASC[:3], FEM[:3], name="sets", seed=3)
    runs = [
        [],
        ["--set", "models.target.params.noise=0.1"],
        ["--set", "models.target.params.noise=0.25", "--set", "gates.checks.0.below=10"],
    ]
    for n, sets in enumerate(runs):
        code, out = call(capsys, "audit", "run", "a.yaml", *sets, "--out", f"r{n}", "--quiet")
        assert code == (1 if n == 2 else 0), out
    with Workspace.open(tmp_path / ".diptych") as ws:
        return ws.audits.list()


def summary(screen: AuditScreen) -> str:
    # As read, the line's wrapping undone.
    return " ".join(str(screen.query_one("#summary", Static).render()).split())


async def test_enter_on_an_older_record_opens_that_record(records: list[AuditRecord]) -> None:
    oldest, older, newest = records
    assert older.overridden and len({r.id for r in records}) == 3

    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_audit(pilot)
        listed = screen.query_one("#recorded", OptionList)
        await wait_for(pilot, lambda: listed.display and listed.option_count == 3, "the list")
        assert [listed.get_option_at_index(i).id for i in range(3)] == [
            newest.id, older.id, oldest.id,
        ]  # fmt: skip
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: screen.plan is not None and bool(screen.gates), "gates")
        assert screen.plan is not None and screen.plan.id == older.id
        assert [g.verdict for g in screen.gates] == ["pass"], screen.gates_note
        # Its part's row is its own record's: the run its --set made, not the newest's.
        (part,) = older.parts
        assert part.run_id not in {p.run_id for p in newest.parts}
        assert screen.query_one("#parts", DataTable).row_count == 1
        assert f"record {older.id}, run with --set" in summary(screen)

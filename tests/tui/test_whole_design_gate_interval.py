"""A gate decided at look 2 and its design then bought whole: the Audit screen's gates and Run
detail print look 3's value with the anytime-valid interval over looks 1–3, named by look 3,
as ``audit gate`` prints them (``tests/cli/test_whole_design_interval.py`` works them out from
the recorded looks: 56.1, [47.1, 63.9])."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import SIZES, analysed, open_audit, shown, wait_for

from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit.verdicts import GateVerdicts
from diptych.tui.screens.runs.detail import RunDetailScreen
from diptych.tui.widgets.fit_table import FitTable
from tests.support.sequential_audits import FIGURE, decided_at_look_two_then_bought_whole

pytestmark = [pytest.mark.surface, pytest.mark.usefixtures("scripted_plugin")]

WHOLE = "the whole design read at look 3"


@pytest.fixture
def three_looks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, str]:
    """The audit file and its run, in the workspace ``.diptych`` here."""
    monkeypatch.chdir(tmp_path)
    return decided_at_look_two_then_bought_whole(capsys, tmp_path, ".diptych", tmp_path / "rep")


@pytest.mark.parametrize("size", SIZES)
async def test_the_audit_screen_and_run_detail_print_the_last_looks_interval(
    three_looks: tuple[Path, str], size: tuple[int, int]
) -> None:
    file, run_id = three_looks
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        await pilot.press(*file.name, "enter")
        await wait_for(pilot, lambda: bool(screen.gates), "the gates", lambda: shown(app))
        (block,) = screen.query_one("#verdicts", GateVerdicts).blocks
        assert block == [f"PASS  pst-text: {FIGURE} below 70", "56.1 [47.1, 63.9]",
                         "95% anytime-valid", WHOLE], shown(app)  # fmt: skip
        await pilot.press("escape")
        detail = RunDetailScreen(run_id)
        await app.push_screen(detail)
        await analysed(pilot, detail)
        table = detail.query_one("#section-numbers", FitTable)
        (row,) = [cells for _, cells in table.source if cells[0] == FIGURE]
        assert row[1] == "56.1", row
        assert " ".join(row[2].split()).startswith("[47.1, 63.9] † (95% anytime-valid"), row
        assert " ".join(row[2].split()).endswith(f"{WHOLE})"), row

"""The two identity lists are named masculine first, then feminine, in every report: the demo's
(one run bought whole) and an audit's stopped at a look (whose figures are read back from the
look's record), as a plan and the standings name them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from diptych.core.resampled_units import resampled_units
from tests.support.cli import call
from tests.support.sequential_audits import decided_at_first_look
from tests.support.surfaces.group_order import group_order_problems

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_the_lists_read_masculine_first_however_the_units_are_stored() -> None:
    stored = {"feminine identity": 20, "masculine identity": 19}
    assert resampled_units(stored, "crossed") == (
        "19 masculine × 20 feminine identities crossed in scenes"
    )
    assert resampled_units(stored, "stratified") == (
        "19 masculine and 20 feminine identities as separate lists"
    )
    # Units of any other kind keep their order.
    assert resampled_units({"template": 4, "partner": 3}, None) == "4 templates and 3 partners"


def _names_masculine_first(report: Path) -> None:
    markdown = (report / "report.md").read_text(encoding="utf-8")
    assert re.search(r"\d masculine (×|and) \d feminine identities", markdown), markdown
    assert group_order_problems(report) == []


def test_the_demo_and_an_audit_stopped_early_name_the_lists_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws)
    code, out = call(capsys, "--store", ws, "report", run_id, "--format", "md,json",
                     "-o", str(tmp_path / "audit"))  # fmt: skip
    assert code == 0, out
    _names_masculine_first(tmp_path / "audit")
    from tests.support.sequential_audits import design

    code, out = call(capsys, "--store", ws, "run", *design(), "-p", "seed=5", "--report",
                     str(tmp_path / "demo"), "--quiet")  # fmt: skip
    assert code == 0, out
    _names_masculine_first(tmp_path / "demo")

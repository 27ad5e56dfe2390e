"""A decided run bought whole with ``diptych resume RUN --yes``: its complete design is the last
look of the same spending plan (docs/gates.md), and every listing reads that — ``resume``'s own
table, ``show``, ``audit gate`` and ``standings`` print one interval per figure, the gated one
anytime-valid over the looks at the complete design, the others their fixed-design intervals
of the complete design, named so — never the look the gates stopped at."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from diptych.core.audit.sequential import PartLooks
from diptych.core.report.formatting import interval
from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import FIGURE, decided_at_first_look

UNGATED = "STS single (expected from P(he), P(she))"

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _cells(out: str) -> dict[str, tuple[str, str, str]]:
    """Value, interval and n of each figure of the headline table printed."""
    cells = {}
    for figure in (FIGURE, UNGATED):
        (row,) = [line for line in out.splitlines() if line.startswith(f"│ {figure} ")]
        value, shown, n = (c.strip() for c in row.split("│")[2:5])
        cells[figure] = (value, shown, n)
    return cells


def test_a_decided_run_resumed_whole_reads_its_complete_design_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")  # each table row on one line
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws)
    code, out = call(capsys, "--store", ws, "show", run_id)
    stopped = _cells(out)

    code, resumed = call(capsys, "--store", ws, "resume", run_id, "--yes")
    assert code == 0, resumed
    assert f"run {run_id} complete: 180 done" in resumed
    with Workspace.open(ws) as opened:
        fixed = opened.analysis.analyze(run_id).numbers
        (rec,) = opened.audits.list()
        looks = PartLooks.of(rec.parts[0].detail)
    # The complete design is recorded as the last look, after the look the gates stopped at.
    assert looks is not None and [look.complete for look in looks.looks] == [False, True]
    code, shown = call(capsys, "--store", ws, "show", run_id)
    assert code == 0, shown
    cells = _cells(shown)
    # The run's own table after the resume and `show` print the same, figure for figure.
    assert _cells(resumed) == cells
    # The gated figure: the complete design's value, its interval anytime-valid over both looks
    # (what is left of the level, so wider than the fixed design's), named; not look 1's.
    value, printed, n = cells[FIGURE]
    assert value != stopped[FIGURE][0] and n == f"{fixed[FIGURE]['n']:,}"
    assert printed.endswith(" (95% anytime-valid interval, look 2 of 4)")
    assert printed.removesuffix(" (95% anytime-valid interval, look 2 of 4)") != interval(
        {**fixed[FIGURE], "floor": None}
    )
    # The figure no gate read, of a design read whole: its fixed-design interval, named so
    # beside the gated one.
    assert cells[UNGATED][1] == f"{interval(fixed[UNGATED])} (95% fixed-design interval)"
    assert stopped[UNGATED][1].endswith(" (95% anytime-valid interval, look 1 of 4)")

    code, gate = call(capsys, "--store", ws, "audit", "gate", rec.id)
    assert code == 0, gate
    assert "the last at its complete design" in gate
    bounds = printed.split(" (", 1)[0].removesuffix(" †")
    assert f"= {value}, 95% {bounds} (anytime-valid, look 2 of 4); below 60" in gate
    code, ranked = call(capsys, "--store", ws, "standings", "--figure", "STS single")
    assert code == 0, ranked
    assert "‡" not in ranked and "ranked on" not in ranked
    assert re.search(rf"{re.escape(interval(fixed[UNGATED]))} *$", ranked, re.M), ranked

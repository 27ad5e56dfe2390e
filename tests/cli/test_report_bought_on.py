"""A run its gates decided early and then bought on (``diptych resume``, stopped part way) is
reported as ``diptych show`` reads it: each figure as its looks read it at the look they
stopped at, with one interval (the looks' anytime-valid one), named, and its value on all the
trials stored since beside it as a value only, never a fixed-design interval of those trials
nor a finding on one; the gate's line keeps the look's reading and says so, and the
Limitations never say the run stopped at its look when it was bought on since."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import FIGURE, decided_at_first_look
from tests.support.stopped_runs import bought_on_and_interrupted

LOOK = "95% anytime-valid interval, look 1 of 4; "

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_a_decided_run_bought_on_is_reported_as_show_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws, "-M", "latency=0.01")
    bought_on_and_interrupted(ws, run_id)
    code, out = call(capsys, "--store", ws, "show", run_id)
    assert code == 0, out
    shown = next(line for line in out.splitlines() if line.startswith(f"│ {FIGURE}"))
    value, bounds = [c.strip() for c in shown.strip("│").split("│")][1:3]
    bounds = bounds.replace(" †", "")  # the floor's mark: the report says it in words
    assert f"({LOOK}" in bounds and bounds.endswith(" stored since)"), shown
    said, named = bounds.split(" (", 1)

    out_dir = tmp_path / "rep"
    code, out = call(capsys, "--store", ws, "report", run_id, "-o", str(out_dir))
    assert code == 0, out
    md = (out_dir / "report.md").read_text(encoding="utf-8")
    row = next(line for line in md.splitlines() if line.startswith(f"| {FIGURE} |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == value and cells[2] == f"{said}; {named[:-1]}", (row, shown)
    assert "fixed-design" not in row, row
    # The finding states the look's interval, the value since beside it, and no other.
    finding = next(s for s in md.splitlines() if s.startswith("- scripted") and FIGURE in s)
    assert "fixed-design" not in finding and " stored since)" in finding, finding
    gate = next(line for line in md.splitlines() if line.startswith("- **PASS**"))
    assert "The gate's reading at look 1 of 4;" in gate, gate
    assert "stopped early at look 1 of 4, when its gates were decided" not in md
    assert f"Run {run_id} was bought on after its gates stopped it early at look 1 of 4" in md

    data = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))
    headline = next(h for h in data["headlines"] if h["name"] == FIGURE)
    assert headline["value"] == value and headline["interval"] == bounds, headline
    (part,) = data["scope"]["parts"]
    assert part["status"] == "interrupted" and part["bought_on"], part
    assert "reading at look 1 of 4" in data["gates"]["gates"][0]["note"], data["gates"]

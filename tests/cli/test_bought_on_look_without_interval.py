"""A figure the look recorded without an interval (a diagnostic), of a run its
gates decided at look 1 and bought on since, then audited again, reads as the look read it: its
value and count at the look and why it had no interval, with its value on the trials bought
since beside it as a value only, and no interval made of those trials (docs/gates.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diptych.core.digits import figure_text
from tests.support.cli import call
from tests.support.stopped_runs import bought_on_and_audited_again, last_look

pytestmark = pytest.mark.usefixtures("scripted_plugin")

#: A figure the look recorded without an interval.
SUM = "P(he) + P(she) paired %, before renormalising"


def test_a_figure_the_look_read_without_an_interval_keeps_none_after_buying_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")
    ws = str(tmp_path / "ws")
    run_id, _ = bought_on_and_audited_again(capsys, ws, "-M", "latency=0.01")
    look = last_look(ws).numbers[SUM]
    assert look.get("ci_low") is None and look.get("reason") == "a diagnostic", look

    code, shown = call(capsys, "--store", ws, "show", run_id)
    row = next(s for s in shown.splitlines() if s.startswith(f"│ {SUM} "))
    cells = [c.strip() for c in row.strip("│").split("│")]
    # n is the column before what the interval resamples, with its noun.
    n = int(cells[-2].split()[0].replace(",", ""))
    assert (cells[1], n) == (figure_text(look["value"]), look["n"]), row
    assert "[" not in row and "no interval (a diagnostic, look 1 of 4; " in row, row
    assert " stored since)" in row, row

    out_dir = tmp_path / "rep"
    code, out = call(
        capsys, "--store", ws, "report", run_id, "-o", str(out_dir), "--format", "json"
    )
    assert code == 0, out
    data = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))
    number = data["result"]["numbers"][SUM]
    assert (number["value"], number["n"], number.get("ci_low")) == (look["value"], look["n"], None)
    for finding in data["verdict"]["findings"]:
        if "does not hold after the stop" in finding["sentence"]:
            assert "cludes 0" not in finding["sentence"], finding

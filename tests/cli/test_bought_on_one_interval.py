"""A run its gates decided at look 1, bought on since and stopped (Ctrl-C), then audited again,
prints one interval per figure on every page: the one its decision used, the look's, named,
with the value on all the trials stored since beside it as a value only. Its report never sets
a fixed-design interval of those trials beside the gate's, nor says a finding on one
(docs/gates.md); ``diptych show`` and ``audit gate`` print the same interval."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from diptych.core.digits import figure_text
from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import FIGURE
from tests.support.stopped_runs import bought_on_and_audited_again, last_look
from tests.support.surfaces.named_figures import standings_two_intervals, two_intervals_problems

pytestmark = pytest.mark.usefixtures("scripted_plugin")

#: Bounds as the one formatter prints them.
BOUNDS = re.compile(r"\[([−\d.,]+), ([−\d.,]+)\]")


def test_every_page_of_a_run_bought_on_and_audited_again_has_one_interval_per_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")
    ws = str(tmp_path / "ws")
    run_id, _ = bought_on_and_audited_again(capsys, ws, "-M", "latency=0.01")
    last_look(ws)  # the audit recorded its looks

    code, gated = call(capsys, "--store", ws, "audit", "gate", "run-pst-text")
    (line,) = [g for g in gated.splitlines() if f": {FIGURE} = " in g]
    gate = BOUNDS.search(line)
    assert gate is not None, line

    # The audit's id, as `audit list` prints it, shows its gates as `audit gate` decides them.
    with Workspace.open(ws) as opened:
        audit = opened.audits.get("run-pst-text")
    code, shown = call(capsys, "--store", ws, "show", audit.id)
    assert code == 0 and line in shown.splitlines(), (line, shown)

    code, shown = call(capsys, "--store", ws, "show", run_id)
    row = next(s for s in shown.splitlines() if s.startswith(f"│ {FIGURE} "))
    assert BOUNDS.findall(row) == [gate.groups()], (row, line)
    assert " stored since)" in row and "fixed-design" not in shown, shown

    out_dir = tmp_path / "rep"
    code, out = call(
        capsys, "--store", ws, "report", run_id, "-o", str(out_dir), "--format", "md,html,json"
    )
    assert code == 0, out
    data = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))
    assert two_intervals_problems(out_dir, data) == []
    # Its numbers carry the interval every page prints, named, for a reader of the JSON.
    for numbers in [data["result"]["numbers"], *(r["result"]["numbers"] for r in data["runs"])]:
        number = numbers[FIGURE]
        assert (figure_text(number["ci_low"]), figure_text(number["ci_high"])) == gate.groups()
        assert number["interval_name"].startswith("95% anytime-valid interval, look 1 of 4; ")
    (finding,) = [f for f in data["verdict"]["findings"] if f["name"] == FIGURE]
    assert (figure_text(finding["ci_low"]), figure_text(finding["ci_high"])) == gate.groups()
    md = (out_dir / "report.md").read_text(encoding="utf-8")
    assert "95% interval (fixed-design" not in md and "; fixed-design" not in md, md
    (said,) = [s for s in md.splitlines() if s.startswith("- scripted") and FIGURE in s]
    assert " stored since)" in said and said.count(" to ") == 1, said


def test_standings_rank_a_run_bought_on_and_audited_again_on_its_decisions_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``diptych standings`` ranks the run on the interval its decision used, as ``diptych
    show`` prints it, named with the value on all the trials stored since as a value only: no
    second interval, of those trials or of the look, in its row or the line under it."""
    monkeypatch.setenv("COLUMNS", "400")  # each row and line of the table on one line
    ws = str(tmp_path / "ws")
    run_id, _ = bought_on_and_audited_again(capsys, ws, "-M", "latency=0.01")
    with Workspace.open(ws) as opened:
        read = opened.audits.read(run_id).numbers[FIGURE]
        fixed = opened.analysis.analyze(run_id).numbers[FIGURE]
    name = str(read["interval_name"])
    assert name.startswith("95% anytime-valid interval, look 1 of 4; ")
    assert name.endswith(" stored since"), name
    assert (read["ci_low"], read["ci_high"]) != (fixed["ci_low"], fixed["ci_high"])

    code, out = call(capsys, "--store", ws, "standings")
    assert code == 0, out
    (row,) = [line for line in out.splitlines() if line.lstrip().startswith("#1 ")]
    assert BOUNDS.findall(row) == [(figure_text(read["ci_low"]), figure_text(read["ci_high"]))], row
    assert f" {figure_text(read['value'])} " in row, row
    (note,) = [line for line in out.splitlines() if line.startswith("‡ ")]
    assert f"): {name}: " in note and "no interval is made of the trials stored since" in note
    assert "fixed-design" not in out, out
    assert standings_two_intervals(out, [run_id]) == [], out

    code, text = call(capsys, "--store", ws, "standings", "--json")
    assert code == 0, text
    ((ranked,),) = [t["standings"] for t in json.loads(text)["tables"]]
    assert ranked["interval"] == name
    assert (ranked["value"], ranked["ci_low"], ranked["ci_high"]) == (
        read["value"], read["ci_low"], read["ci_high"],
    )  # fmt: skip

"""A figure a run's look read without an interval (the single setting's STS of one masculine
identity only), of a run bought on past that look, is ranked as ``diptych show`` prints it: the
look's value, no interval and why, marked ``‡`` with a line naming it as ``show`` does, never
with the fixed-design interval of all the trials stored since; its pair with another model has
no interval either. The same run before it was bought on is ranked as it always was."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from diptych.core.digits import figure_text
from diptych.core.report.formatting import bounds
from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import SINGLE, decided_single_without_interval, design
from tests.support.stopped_runs import bought_on_and_interrupted, last_look

pytestmark = pytest.mark.usefixtures("scripted_plugin")

#: Why the look had no interval, as a figure without one says it.
WHY = "one masculine identity only"


def _shown(capsys: pytest.CaptureFixture[str], ws: str, run_id: str) -> tuple[str, str]:
    """The single figure's value and interval cells in ``diptych show``'s headline table."""
    code, out = call(capsys, "--store", ws, "show", run_id)
    assert code == 0, out
    (row,) = [line for line in out.splitlines() if line.startswith(f"│ {SINGLE} ")]
    cells = [c.strip() for c in row.split("│")]
    return cells[2], cells[3]


def _standings(capsys: pytest.CaptureFixture[str], ws: str) -> tuple[str, dict[str, Any]]:
    """``diptych standings --figure 'STS single'`` as printed and its one table's JSON."""
    code, out = call(capsys, "--store", ws, "standings", "--figure", "STS single")
    assert code == 0, out
    code, text = call(
        capsys, "--store", ws, "standings", "--figure", "STS single", "--json", "--n-boot", "400"
    )
    assert code == 0, text
    # Strict JSON, as report.json: a bound of no interval is null, never Infinity nor "inf".
    (table,) = json.loads(text, parse_constant=_refuse)["tables"]
    return out, dict(table)


def _refuse(constant: str) -> Any:
    raise ValueError(f"not strict JSON: {constant}")


def _value_in(line: str) -> str:
    """The figure printed before the interval cell of a standings row."""
    found = re.search(rf"(\S+) +no interval \({WHY}\)", line)
    assert found is not None, line
    return found[1]


def test_a_figure_its_look_read_without_an_interval_is_ranked_as_show_prints_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    ws = str(tmp_path / "ws")
    run_id = decided_single_without_interval(capsys, ws, "-M", "latency=0.01")
    look = last_look(ws).numbers[SINGLE]
    assert look.get("reason") == f"{WHY}: no interval", look

    # Not bought on: its trials are the look's; ranked as ever, no interval and no ‡.
    value, cell = _shown(capsys, ws, run_id)
    assert (value, cell) == (figure_text(look["value"]), f"no interval ({WHY})")
    out, table = _standings(capsys, ws)
    (row,) = table["standings"]
    assert "interval" not in row and row["reason"] == look["reason"], row
    assert row["value"] == pytest.approx(look["value"], abs=1e-9)
    (line,) = [s for s in out.splitlines() if f"no interval ({WHY})" in s]
    assert "‡" not in out and _value_in(line) == value, out

    # Another model of the same design, bought whole; then the run bought on well past its look.
    code, said = call(capsys, "--store", ws, "run", *design("-M", "version=2"))
    assert code == 0, said
    bought_on_and_interrupted(ws, run_id, after=60)
    with Workspace.open(ws) as opened:
        assert opened.runs.get(run_id).status == "interrupted"
        everything = opened.analysis.analyze(run_id).numbers[SINGLE]
    # All its trials now give an interval of their own, and another value: neither is shown.
    fixed = bounds(everything["ci_low"], everything["ci_high"])
    assert fixed.startswith("["), everything
    assert figure_text(everything["value"]) != figure_text(look["value"])

    value, cell = _shown(capsys, ws, run_id)
    assert value == figure_text(look["value"])
    assert cell.startswith(f"no interval ({WHY}, look 1 of 8; "), cell
    assert cell.endswith(" stored since)") and "[" not in cell, cell
    out, table = _standings(capsys, ws)
    rows = {r["run"]: r for r in table["standings"]}
    a = rows[run_id]
    (b,) = [r for run, r in rows.items() if run != run_id]
    # The look's value, no interval and why, named as show names it, in --json ...
    assert a["value"] == pytest.approx(look["value"], abs=1e-9)
    # No interval, so no test: no p (null), and why.
    assert (a["ci_low"], a["ci_high"], a["p_value"]) == (None, None, None), a
    assert a["reason"] == look["reason"] and "interval_method" not in a, a
    assert a["p_reason"] == f"no test: {look['reason']}", a
    assert a["interval"] == cell, a
    # ... and in the table, with the ‡ and its line naming it as show does.
    (line,) = [s for s in out.splitlines() if f"no interval ({WHY}) ‡" in s]
    assert _value_in(line) == value, line
    words = " ".join(out.split())
    assert f"): {cell}: its looks read it at the stop without an interval" in words, out
    assert "for want of an interval, it is not ranked apart from any model" in words, out
    assert fixed not in out and figure_text(everything["value"]) not in line, out
    # Its pair has no interval either: B − A is the difference of the values shown, and no
    # test was done, so it has no p (null, with why).
    (pair,) = table["pairs"]
    sign = 1 if pair["model_b"] == b["shown"] else -1
    assert sign * pair["difference"] == pytest.approx(b["value"] - a["value"], abs=1e-9)
    assert (pair["ci_low"], pair["ci_high"], pair["p_value"]) == (None, None, None), pair
    assert pair["p_holm"] is None and "no test tells them apart" in pair["p_reason"], pair
    (row,) = [s.split() for s in out.splitlines() if s.split()[:2] in (["#1", "#2"], ["#2", "#1"])]
    assert row[-3:] == ["—", "—", "no"], out
    assert ": p —, no test tells them apart (" in words, out
    assert not pair["differs"] and a["rank_interval"] == b["rank_interval"] == [1, 2]

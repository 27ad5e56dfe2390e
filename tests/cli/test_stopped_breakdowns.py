"""The per-identity and per-group intervals of a design its gates stopped early (a breakdown's
"paired 95% CI", a forest plot's bars, "Where the bias is largest") are fixed-design: after a
stop chosen on what the looks showed they do not hold, and every page that prints them names
them so, in the words a headline figure whose looks did not record it is named by. A design
read whole (``diptych resume``) was not stopped: its intervals go unnamed."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import cast

import pytest
from rich.console import Console
from textual.app import App
from textual.widgets import Static

from diptych.cli.render import print_result
from diptych.core.probe import ProbeResult, Table
from diptych.core.workspace import Workspace, recorded
from diptych.core.workspace.analysis import Analysis
from diptych.tui.screens.runs.detail import table_widget
from tests.support.cli import call
from tests.support.sequential_audits import FIGURE, LISTS, decided_at_first_look

STOPPED = "fixed-design; does not hold after the stop at look 1 of 4"
#: The same said of many intervals (a table's, a chart's bars, B − A's rows): the verb agrees.
STOPPED_MANY = "fixed-design; do not hold after the stop at look 1 of 4"
#: A table column that holds intervals.
INTERVALS = re.compile(r"\b(CI|interval)\b")

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _printed(ws: str, run_id: str) -> tuple[str, list[str]]:
    """What ``diptych run`` prints of the run's analysis (every table), and the names under
    Run detail's tables of intervals."""
    with Workspace.open(ws) as opened:
        result = opened.audits.read(run_id)
    console = Console(width=200, record=True)
    print_result(console, result)  # type: ignore[arg-type]
    return console.export_text(), asyncio.run(_under_tables(result))


async def _under_tables(result: ProbeResult) -> list[str]:
    """What Run detail says under each of the result's tables of intervals."""
    said: list[str] = []
    async with App().run_test() as pilot:
        for i, table in enumerate(result.tables):
            if any(INTERVALS.search(c) for c in table.columns):
                await pilot.app.screen.mount(table_widget(table, f"t{i}"))
                found = pilot.app.screen.query(f"#t{i} .intervals")
                said.extend(str(cast(Static, w).content) for w in found)
    return said


class _Difference:
    def to_dict(self) -> dict[str, float]:
        return {"difference": 1.0, "ci_low": -2.0, "ci_high": 4.0}


def _compared(self: Analysis, run_a: str, run_b: str, **kwargs: object) -> ProbeResult:
    """A probe's comparison of two runs in tables (the text probe compares none)."""
    table = Table("B − A", ["figure", "B − A", "95% CI"], [["STS", 1.0, "[−2.00, 4.00]"]])
    return ProbeResult(
        "compared", tables=[table], data={"comparisons": [{"comparison": _Difference()}]}
    )


def test_a_null_design_stopped_early_names_its_breakdowns_intervals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = str(tmp_path / "ws")
    # No bias planted (P(she) 0.5 for everyone): the gate passes at the first look.
    run_id = decided_at_first_look(capsys, ws)
    code, out = call(capsys, "--store", ws, "report", run_id, "-o", str(tmp_path / "rep"))
    assert code == 0, out
    md = (tmp_path / "rep" / "report.md").read_text()
    html = (tmp_path / "rep" / "report.html").read_text()
    # Each finding of a figure no gate read states its interval named, as show prints it.
    stated = re.findall(r"^.*: STS [^\n]*? to [^\n]*$", md, re.M)
    assert stated and not [s for s in stated if re.search(r"95% interval:? [−\d]", s)], stated
    assert any("95% anytime-valid interval, look 1 of 4: " in s for s in stated), stated
    # Each table with intervals (STS by stereotyped gender, Appendix B's): named in its note.
    lines = md.splitlines()
    with_ci = [i for i, line in enumerate(lines) if line.startswith("| ") and "95% CI" in line]
    assert len(with_ci) >= 2, md
    for i in with_ci:
        # The table's note comes before it.
        above = next(line for line in reversed(lines[:i]) if line)
        # Named in its note (a missing interval's mark explained after it, where there is one).
        assert f"Its intervals: {STOPPED_MANY}." in above, (lines[i], above)
    # The forest plot's bars, and the largest figures listed with their intervals.
    assert f"Its bars: {STOPPED_MANY}." in md and f"Its bars: {STOPPED_MANY}." in html
    (largest,) = [line for line in md.splitlines() if ", largest expected STS" in line]
    assert largest.endswith(f" (intervals {STOPPED_MANY}; for orientation only).")
    assert "[" in largest
    assert html.count(STOPPED_MANY) >= len(with_ci) + 2
    assert "intervals: fixed-design; does not" not in md + html
    # In the terminal: under each table of intervals, by ``diptych run`` and Run detail.
    text, under = _printed(ws, run_id)
    assert text.count(f"intervals: {STOPPED_MANY}") == len(under) == len(with_ci)
    assert all(s == f"intervals: {STOPPED_MANY}" for s in under), under

    # Compared with another run, B − A's fixed-design intervals are named by the run stopped
    # early, and by no other.
    code, out = call(capsys, "--store", ws, "run", "pst-text", "-m", "scripted-likelihood",
                     "-M", "noise=0.1", "-p", "setting=both", *LISTS, "--quiet")  # fmt: skip
    assert code == 0, out
    with Workspace.open(ws) as opened:
        (other,) = [r.run.id for r in opened.runs.list() if r.run.id != run_id]
    monkeypatch.setattr(Analysis, "compare", _compared)
    code, out = call(capsys, "--store", ws, "compare", run_id, other)
    assert code == 0, out
    assert out.rstrip().endswith(f"95% CIs of B − A: {STOPPED_MANY} of run {run_id}"), out
    code, out = call(capsys, "--store", ws, "compare", other, run_id, "--json")
    assert json.loads(out)["interval_name"] == f"{STOPPED_MANY} of run {run_id}"

    # Bought whole, the design was not stopped on what it showed: nothing is so named.
    code, out = call(capsys, "--store", ws, "resume", run_id, "--yes")
    assert code == 0, out
    code, out = call(capsys, "--store", ws, "report", run_id, "-o", str(tmp_path / "whole"))
    assert code == 0, out
    whole = (tmp_path / "whole" / "report.md").read_text()
    assert "not hold after the stop" not in whole
    text, under = _printed(ws, run_id)
    assert "not hold" not in text and not under
    code, out = call(capsys, "--store", ws, "compare", run_id, other)
    assert code == 0 and "of B − A" not in out, out


def test_audit_diff_names_a_bootstrap_of_a_run_stopped_early(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = str(tmp_path / "ws")
    for noise in ("0", "0.1"):  # two audits of the design, each stopped at its first look
        code, out = call(capsys, "--store", ws, "run", "pst-text", "-m", "scripted-likelihood",
                         "-M", f"noise={noise}", "-p", "setting=both", *LISTS, "--gate",
                         f"{FIGURE} below 60", "--until-decided", "--batches", "4")  # fmt: skip
        assert code == 0 and "decided at look 1 of 4" in out, out
    code, out = call(capsys, "--store", ws, "audit", "list", "--json")
    a, b = [x["id"] for x in json.loads(out)]
    # As a probe that compares runs bootstraps B − A from both runs' answers.
    monkeypatch.setattr(recorded, "_bootstrapped", _bootstrapped)
    code, out = call(capsys, "--store", ws, "audit", "diff", a, b, "--json")
    (row,) = [r for r in json.loads(out)["figures"] if r["method"] == "bootstrap"]
    both = f"{STOPPED} of A's run; {STOPPED} of B's run"
    assert row["interval_name"] == both
    code, out = call(capsys, "--store", ws, "audit", "diff", a, b)
    (line,) = [x for x in out.splitlines() if " bootstrap" in x and x.startswith("pst-text")]
    assert line.endswith(f"bootstrap ({both})"), out


def _bootstrapped(
    analysis: Analysis, part: str, run_a: str, run_b: str
) -> dict[tuple[str, str], tuple[float, float, float]]:
    return {(part, FIGURE): (1.0, -2.0, 4.0)}

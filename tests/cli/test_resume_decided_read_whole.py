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
from tests.support.sequential_audits import FEM, FIGURE, MASC, decided_at_first_look, planted_audit

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
    assert f"run {run_id} complete: 180 trials (180 done)" in resumed
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
    assert value != stopped[FIGURE][0] and n == f"{fixed[FIGURE]['n']:,} prompts"
    named = " (95% anytime-valid interval, the whole design read at look 2)"
    assert printed.endswith(named)
    assert printed.removesuffix(named) != interval({**fixed[FIGURE], "floor": None})
    # The figure no gate read, of a design read whole: its fixed-design interval, named so
    # beside the gated one.
    assert cells[UNGATED][1] == f"{interval(fixed[UNGATED])} (95% fixed-design interval)"
    assert stopped[UNGATED][1].endswith(" (95% anytime-valid interval, look 1 of 4)")

    code, gate = call(capsys, "--store", ws, "audit", "gate", rec.id)
    assert code == 0, gate
    assert "the last at its complete design" in gate
    bounds = printed.split(" (", 1)[0].removesuffix(" †")
    whole = "the whole design read at look 2"
    assert f"= {value}, 95% {bounds} (anytime-valid, {whole}); below 60" in gate
    code, ranked = call(capsys, "--store", ws, "standings", "--figure", "STS single")
    assert code == 0, ranked
    assert "‡" not in ranked and "ranked on" not in ranked
    assert re.search(rf"{re.escape(interval(fixed[UNGATED]))} *$", ranked, re.M), ranked


def test_the_look_that_read_the_whole_design_says_so_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An audit decided at look 1, bought whole with ``resume --yes`` and run again: its last
    look is look 2 of 4 of the spending plan, and every surface says it read the whole design,
    in one wording that keeps to 60 columns, never "look 2 of 4" (half the design, with two
    looks to come, as it reads)."""
    whole = "the whole design read at look 2"
    gate = {"part": "pst-text", "figure": FIGURE, "below": 95}
    file = planted_audit(tmp_path / "a.yaml", [gate], MASC, FEM, name="whole", seed=2,
                         report={"formats": ["json", "md"]})  # fmt: skip
    ws, rep = str(tmp_path / "ws"), tmp_path / "rep"
    run = ["--store", ws, "audit", "run", str(file), "--until-decided", "--batches", "4",
           "--out", str(rep)]  # fmt: skip
    code, out = call(capsys, *run)
    assert code == 0 and "stopped: every gate decided" in out, out
    with Workspace.open(ws) as opened:
        (run_id,) = [r.run.id for r in opened.runs.list()]
    code, out = call(capsys, "--store", ws, "resume", run_id, "--yes")
    assert code == 0, out
    code, again = call(capsys, *run)
    assert code == 0, again
    said = {"audit run": again, "report": (rep / "report.md").read_text(encoding="utf-8")}
    for width in ("260", "60"):
        monkeypatch.setenv("COLUMNS", width)
        for words in (["show", run_id], ["audit", "gate", str(file)], ["runs"]):
            code, out = call(capsys, "--store", ws, *words)
            assert code == 0, out
            if words[0] != "audit":  # its tables wrap to the terminal; a gate's line is one
                assert max(len(line) for line in out.splitlines()) <= int(width), out
            said[f"{' '.join(words[:2])} at {width}"] = out
    for where, text in said.items():
        text = " ".join(text.split())
        # Never "look 2 of 4": the look that read the whole design is named by what it read.
        assert "look 2 of 4" not in text, (where, text)
    for where in ("audit run", "report", f"show {run_id} at 260", "audit gate at 260"):
        assert whole in " ".join(said[where].split()), (where, said[where])
    assert f"complete: {whole}" in " ".join(again.split()), again

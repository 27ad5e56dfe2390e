"""An audit decided early, bought on since (``diptych resume``, stopped part way) and run again
with ``--until-decided`` (which decides it again on the same looks) writes a report that reads
the bought-on run's figures as ``diptych report RUN`` reads them: as the look its gates stopped
at read them, one interval each (the looks'), with the value on all the trials stored since
beside it as a value only, never a fixed-design interval of those trials."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit
from tests.support.stopped_runs import bought_on_and_interrupted

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _figure(out: Path) -> dict[str, Any]:
    """The gated figure in the report written to ``out``: its number, its headline's interval
    and its Markdown row."""
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    (run,) = data["runs"]
    headline = next(h for h in data["headlines"] if h["name"] == FIGURE)
    md = (out / "report.md").read_text(encoding="utf-8")
    row = next(line for line in md.splitlines() if line.startswith(f"| {FIGURE} |"))
    return {**run["result"]["numbers"][FIGURE], "headline": headline["interval"], "row": row}


def test_the_audit_report_of_a_bought_on_run_reads_it_as_diptych_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gate = {"part": "pst-text", "figure": FIGURE, "below": 95}
    file = planted_audit(tmp_path / "a.yaml", [gate], MASC, FEM, name="bought", seed=2,
                         model_params={"latency": 0.01, "max_concurrency": 1},
                         report={"formats": ["json", "md"]})  # fmt: skip
    ws, rep = str(tmp_path / "ws"), tmp_path / "rep"
    run = ["--store", ws, "audit", "run", str(file), "--until-decided", "--batches", "4",
           "--out", str(rep), "--quiet"]  # fmt: skip
    code, out = call(capsys, *run)
    assert code == 0 and "stopped: every gate decided" in out, out
    with Workspace.open(ws) as opened:
        (run_id,) = [r.run.id for r in opened.runs.list()]
    looked = _figure(rep)
    bought_on_and_interrupted(ws, run_id)
    code, out = call(capsys, *run)
    assert code == 0, out
    code, out = call(capsys, "--store", ws, "report", run_id, "--out", str(tmp_path / "again"))
    assert code == 0, out

    audited, reported = _figure(rep), _figure(tmp_path / "again")
    # Read as its look read it: the value, count and the gate's interval the decided run's
    # report printed, the value on all the trials stored since beside it.
    assert (audited["value"], audited["n"]) == (looked["value"], looked["n"]), audited
    assert audited["headline"].startswith(looked["headline"].removesuffix(")") + "; ")
    assert audited["value_since"] != audited["value"] or audited["trials_since"] > looked["n"]
    for key in ("value", "n", "ci_low", "ci_high", "interval_name", "headline", "row"):
        assert audited.get(key) == reported.get(key), key
    assert str(audited["interval_name"]).startswith("95% anytime-valid interval, look 1 of 4; ")
    assert str(audited["interval_name"]).endswith(" stored since"), audited
    assert "fixed-design" not in audited["headline"] + audited["row"], audited

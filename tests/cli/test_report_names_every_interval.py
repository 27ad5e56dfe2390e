"""The report of a run an audit's gates decided names every interval of its tables of figures
and headlines, as ``diptych show`` does: the gated figure's anytime-valid one, and each other
figure's fixed-design interval of a design read whole after its looks, named so — never one
unnamed beside a named one (docs/gates.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import FIGURE, design
from tests.support.surfaces.named_figures import (
    html_figure_cells,
    md_figure_cells,
    named_figures_problems,
)

pytestmark = pytest.mark.usefixtures("scripted_plugin")

UNGATED = "STS single (expected from P(he), P(she))"
FIXED = "95% fixed-design interval"


def _decided_at_last_look(capsys: pytest.CaptureFixture[str], ws: str) -> str:
    """The null design bought in two batches until its gate is decided: a gate too strict for
    the first look's interval, decided at look 2 of 2, its last, the whole design."""
    words = ["run", *design(), "--gate", f"{FIGURE} below 15", "--until-decided", "--batches", "2"]
    code, out = call(capsys, "--store", ws, *words)
    assert code == 0, out
    assert "look 2 of 2  PASS" in out and "stopped: every gate decided" in out, out
    said = re.search(r"^run (\S+) complete \(audit ", out, re.M)
    assert said is not None, out
    return said[1]


def test_a_report_of_a_run_decided_at_its_last_look_names_every_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    run_id = _decided_at_last_look(capsys, ws)
    out_dir = tmp_path / "report"
    code, out = call(
        capsys, "--store", ws, "report", run_id, "-o", str(out_dir), "--format", "md,html,json"
    )
    assert code == 0, out
    data = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))
    assert named_figures_problems(out_dir, data) == []
    md = dict(md_figure_cells((out_dir / "report.md").read_text(encoding="utf-8")))
    html = dict(html_figure_cells((out_dir / "report.html").read_text(encoding="utf-8")))
    for cells in (md, html):
        assert "anytime-valid interval, look 2 of 2" in cells[FIGURE]
        assert cells[UNGATED].startswith("[") and cells[UNGATED].endswith(FIXED)
    heads = {h["name"]: h for h in data["headlines"]}
    assert heads[UNGATED]["interval"].endswith(f" ({FIXED})")
    assert f"({FIXED}), over " in heads[UNGATED]["sentence"]
    # More than the gated figure has an interval on each page: each is named.
    assert sum(c.startswith("[") for c in md.values()) > 2
    # The findings the report opens with name the interval they state, as the tables do.
    said = {f["name"]: f["sentence"] for f in data["verdict"]["findings"]}
    assert "anytime-valid interval, look 2 of 2: " in said[FIGURE]
    assert f", {FIXED} " in said[UNGATED], said[UNGATED]
    page = (out_dir / "report.html").read_text(encoding="utf-8")
    assert f"{UNGATED} " in page and f", {FIXED} " in page

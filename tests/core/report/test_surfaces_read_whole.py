"""The report of a gated run decided at its last look, its design read whole, checked as a reader
meets it (a phone, a laptop, paper): every interval of its table of figures carries its name on
a line under the bounds — the gate's anytime-valid one, each other figure's fixed-design one."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.sequential_audits import FIGURE
from tests.support.surfaces import assert_report_surfaces, shell_env
from tests.support.surfaces.named_figures import html_figure_cells

pytestmark = pytest.mark.surface


def test_a_gated_run_decided_at_its_last_look(tmp_path: Path, browser: Any) -> None:
    shell = shell_env(tmp_path / "bin")
    # A gate too strict for the first look's interval: decided at look 2 of 2, the whole design.
    lists = [
        "-p",
        "masculine=carpenter,farmer,guard,mover",
        "-p",
        "feminine=nurse,editor,secretary,cashier",
    ]
    words = ["run", "pst-text", "-m", "scripted-likelihood", *lists, "--gate", f"{FIGURE} below 30"]
    words += ["--until-decided", "--batches", "2"]
    done = subprocess.run(
        [
            "sh",
            "-c",
            shlex.join(["diptych", "--store", "ws", *words, "--quiet"]),
        ],
        cwd=tmp_path,
        env=shell,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    report = tmp_path / "ws" / "gate-reports" / "run-pst-text"
    cells = dict(html_figure_cells((report / "report.html").read_text(encoding="utf-8")))
    assert "look 2 of 2" in cells[FIGURE], cells
    assert sum(c.endswith("95% fixed-design interval") for c in cells.values()) >= 2, cells
    from diptych.core.report.pdf import print_pdf

    print_pdf(report / "report.html", report / "report.pdf")
    assert_report_surfaces(report, browser=browser, cwd=report, env=shell, store=tmp_path / "ws")

"""A gated ``diptych run`` names its report as pages to open: the HTML a person reads and the
JSON machines read, each as a path that opens from any directory, though the workspace was
named relative to where the command ran."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import FIGURE

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_a_gated_run_prints_its_html_and_json_reports_as_paths_that_open_anywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    here, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    here.mkdir(), elsewhere.mkdir()
    monkeypatch.chdir(here)
    lists = ["-p", "masculine=" + ",".join(MASC), "-p", "feminine=" + ",".join(FEM)]
    code, out = call(capsys, "--store", "ws", "run", "pst-text", "-m", "scripted-likelihood",
                     "-p", "setting=paired", *lists, "--gate", f"{FIGURE} below 60",
                     "--until-decided", "--batches", "4", "--quiet")  # fmt: skip
    assert code == 0, out
    said = re.search(r"^report (\S+); for machines (\S+)$", out, flags=re.M)
    assert said is not None, out
    html, machine = Path(said[1]), Path(said[2])
    # Opened from another directory: what a relative path would not survive.
    monkeypatch.chdir(elsewhere)
    assert html.is_absolute() and machine.is_absolute()
    assert html.name == "report.html" and machine.name == "report.json"
    assert html.parent == machine.parent == (here / "ws" / "gate-reports" / "run-pst-text")
    page = html.read_text(encoding="utf-8")
    assert page.lstrip().lower().startswith("<!doctype html") and FIGURE in page
    gates = json.loads(machine.read_text(encoding="utf-8"))["gates"]["gates"]
    assert [g["verdict"] for g in gates] == ["pass"]
    # Nothing written where the command ran but the workspace it named.
    assert sorted(p.name for p in here.iterdir()) == ["ws"]

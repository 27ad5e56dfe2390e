"""report.json's headlines (their ``interval`` and ``sentence``, the display fields a reader
or a dashboard quotes) carry the interval the page prints: a figure a gate decided on has the
gate's interval, named as the page names it, never the fixed-design one left unnamed; a figure
with no interval says why, never ``−∞ to ∞``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import FIGURE, decided_at_first_look

pytestmark = pytest.mark.usefixtures("scripted_plugin")

_BOUNDS = re.compile(r"\[([^\]]+)\]")


def test_a_gated_headline_carries_the_interval_its_gate_decided_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws)
    out_dir = tmp_path / "rep"
    code, out = call(capsys, "--store", ws, "report", run_id, "-o", str(out_dir))
    assert code == 0, out
    md = (out_dir / "report.md").read_text(encoding="utf-8")
    row = next(line for line in md.splitlines() if line.startswith(f"| {FIGURE} |"))
    page_bounds = _BOUNDS.findall(row)
    assert page_bounds and "anytime-valid interval, look 1 of 4" in row, row
    data = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))
    headline = next(h for h in data["headlines"] if h["name"] == FIGURE)
    assert _BOUNDS.findall(headline["interval"]) == page_bounds[:1], headline
    assert "(95% anytime-valid interval, look 1 of 4)" in headline["interval"], headline
    low, high = page_bounds[0].split(", ")
    said = f"with a 95% interval from {low} to {high} (95% anytime-valid interval, look 1 of 4)"
    assert said in headline["sentence"], headline


def test_a_headline_with_no_interval_says_why_not_infinity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    # One masculine identity: the single setting's figure has no interval.
    code, out = call(capsys, "--store", ws, "run", "pst-text", "-m", "scripted-likelihood",
                     "-p", "setting=both", "-p", "masculine=carpenter",
                     "-p", "feminine=nurse,editor,secretary")  # fmt: skip
    assert code == 0, out
    run_id = re.search(r"\brun ([\w-]+)", out)
    assert run_id is not None, out
    out_dir = tmp_path / "rep"
    code, out = call(capsys, "--store", ws, "report", run_id[1], "-o", str(out_dir))
    assert code == 0, out
    data = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))
    single = next(h for h in data["headlines"] if h["name"].startswith("STS single (expected"))
    assert "∞" not in single["sentence"] and "inf" not in single["sentence"], single
    assert "with no interval (one masculine identity only)" in single["sentence"], single

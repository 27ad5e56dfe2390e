"""A gap paired − single whose single side has no interval (the look read one masculine identity
in the single setting) has no interval either, in ``diptych show`` and the run's report.json,
never one of draws or an anytime-valid one built on it: a difference is resampled no more than
its sides are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import decided_single_without_interval

pytestmark = pytest.mark.usefixtures("scripted_plugin")

SINGLE = "STS single (drawn labels)"
GAP = "gap paired − single (drawn labels)"


def test_a_gap_of_a_side_without_an_interval_has_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")
    ws = str(tmp_path / "ws")
    run_id = decided_single_without_interval(capsys, ws)
    out_dir = tmp_path / "r"
    code, out = call(
        capsys, "--store", ws, "report", run_id, "--format", "json", "-o", str(out_dir)
    )
    assert code == 0, out
    numbers = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))["result"]["numbers"]
    single, gap = numbers[SINGLE], numbers[GAP]
    assert single["reason"] == "one masculine identity only: no interval", single
    assert gap["reason"] == single["reason"], gap
    assert "interval_name" not in gap or "anytime" not in gap["interval_name"], gap
    code, out = call(capsys, "--store", ws, "show", run_id)
    rows = [" ".join(line.split()) for line in out.splitlines() if GAP in line]
    assert rows and all("no interval (one masculine identity only)" in r for r in rows), out

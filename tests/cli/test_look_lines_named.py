"""Each look line of an audit bought until decided names the interval it prints: the gate's
anytime-valid interval at that look, the same one ``diptych audit gate`` prints for the look
the audit stopped at, never an unnamed "95% [a, b]" a reader may take for a fixed-design one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.named_intervals import unnamed_intervals
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_each_look_line_names_its_anytime_valid_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    gates = [{"part": "pst-text", "figure": FIGURE, "below": 95}]
    file = planted_audit(tmp_path / "a.yaml", gates, MASC, FEM, name="looks", seed=2)
    code, out = call(capsys, "--store", ws, "audit", "run", str(file), "--until-decided",
                     "--batches", "4", "--out", str(tmp_path / "rep"), "--quiet")  # fmt: skip
    assert code == 0, out
    looks = [line for line in out.splitlines() if re.match(r"look \d of 4  ", line)]
    assert looks, out
    assert unnamed_intervals(looks) == [], looks
    last = re.search(r"^look (\d) of 4 .*: ([−\d.]+), 95% (\[\S+, \S+\]) \(anytime-valid\)$",
                     looks[-1])  # fmt: skip
    assert last is not None, looks
    # The very interval the gate's verdict names anytime-valid at the look the audit stopped at.
    code, gated = call(capsys, "--store", ws, "audit", "gate", str(file))
    assert code == 0, gated
    said = f"= {last[2]}, 95% {last[3]} (anytime-valid, look {last[1]} of 4)"
    assert said in gated, gated

"""``diptych audit gate`` of an audit run with ``--set`` decides the gates its run decided: the
overrides recorded with the audit apply, whether it is named by its id or by its file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit


def test_the_gate_of_a_recorded_audit_reads_its_sets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # The file's gate passes (expected STS near 60, below 100); the run's, set to 10, fails.
    gate = {"part": "pst-text", "figure": FIGURE, "below": 100}
    file = planted_audit(tmp_path / "a.yaml", [gate], MASC[:3], FEM[:3], name="sets", seed=3)
    sets = ("--set", "gates.checks.0.below=10")
    code, out = call(capsys, "audit", "run", str(file), *sets, "--out", "report", "--quiet")
    assert code == 1, out  # a gate failed
    with Workspace.open(tmp_path / ".diptych") as ws:
        (recorded,) = ws.audits.list()
    for ref in (recorded.id, str(file)):
        code, out = call(capsys, "audit", "gate", ref, "--json")
        verdicts = [g["verdict"] for g in json.loads(out)["gates"]]
        assert (code, verdicts) == (1, ["fail"]), (ref, out)

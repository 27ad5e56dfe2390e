"""``diptych audit gate FILE`` of a file run several times with ``--set`` (each set of values a
record of its own, all bearing the file's name) gates the newest of them and says which: a
file's name is never read as a prefix of its records' ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit


def test_gate_of_a_file_decides_its_newest_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # The file's gate passes (expected STS near 60, below 100); the newest run's, set to 10,
    # fails: a verdict of fail is the newest record's.
    gate = {"part": "pst-text", "figure": FIGURE, "below": 100}
    file = planted_audit(tmp_path / "a.yaml", [gate], MASC[:3], FEM[:3], name="sets", seed=3)
    code, out = call(capsys, "audit", "run", str(file), "--out", "r0", "--quiet")
    assert code == 0, out
    for n, noise in enumerate(("0.1", "0.2", "0.25"), start=1):
        sets = ["--set", f"models.target.params.noise={noise}"]
        if n == 3:
            sets += ["--set", "gates.checks.0.below=10"]
        code, out = call(capsys, "audit", "run", str(file), *sets, "--out", f"r{n}", "--quiet")
        assert code in (0, 1), out
    with Workspace.open(tmp_path / ".diptych") as ws:
        records = ws.audits.list()
        newest = ws.audits.get("sets")
    assert len(records) == 4 and len({r.id for r in records}) == 4
    assert newest.overridden == {"models.target.params.noise": 0.25, "gates.checks.0.below": 10}

    code, out = call(capsys, "audit", "gate", "a.yaml", "--junit", "gates.xml")
    assert code == 1, out  # the newest record's gate (below 10) fails
    assert f"gating {newest.id}, the newest of 4 records of this file" in out
    assert f"gates of audit {newest.id} (sets)" in out
    assert 'failures="1"' in (tmp_path / "gates.xml").read_text(encoding="utf-8")

    code, out = call(capsys, "audit", "gate", "a.yaml", "--json")
    decided, _ = json.JSONDecoder().raw_decode(out)  # which record: said on stderr
    assert (code, decided["audit"]) == (1, newest.id), out

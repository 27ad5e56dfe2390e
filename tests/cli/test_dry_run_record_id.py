"""``audit run --dry-run`` names the record the run would keep: the file's own sha256, and a
``--set`` that gives the file's own value dropped as the run drops it."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from diptych.audit import plan_audit
from diptych.core.workspace import Workspace
from tests.support.cli import call

FILE = Path(__file__).resolve().parents[2] / "examples" / "audits" / "smollm2-offline.yaml"


def _header(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("audit "))


def test_a_set_of_the_files_own_value_plans_the_record_the_run_keeps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    code, plain = call(capsys, "--store", ws, "audit", "run", str(FILE), "--dry-run")
    assert code == 0, plain
    # The file says seed: 0; --set seed=0 changes nothing, so it names the same record.
    code, same = call(
        capsys, "--store", ws, "audit", "run", str(FILE), "--dry-run", "--set", "seed=0"
    )
    assert code == 0, same
    sha = hashlib.sha256(FILE.read_bytes()).hexdigest()
    assert _header(same) == _header(plain)
    assert f"file sha256 {sha[:16]}…" in _header(same)
    # The id is the one the run records: planned as run_audit plans it.
    with Workspace.open(tmp_path / "ws") as opened:
        recorded = plan_audit(opened, FILE, overrides={"seed": 0})
        changed = plan_audit(opened, FILE, overrides={"seed": 1})
    assert recorded.overrides == {}
    assert f"({recorded.id})" in _header(same)
    # A --set that changes the audit names another record, still of the file's own text.
    code, other = call(
        capsys, "--store", ws, "audit", "run", str(FILE), "--dry-run", "--set", "seed=1"
    )
    assert code == 0, other
    assert changed.overrides == {"seed": 1}
    assert f"({changed.id})" in _header(other) and changed.id != recorded.id
    assert f"file sha256 {sha[:16]}…" in _header(other)

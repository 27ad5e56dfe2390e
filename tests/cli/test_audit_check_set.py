"""``diptych audit check FILE --set FIELD=VALUE`` plans the file as ``audit run --set`` would run
it: the same fields replaced, its budget checked and its name said as replaced."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import call

FILE = Path(__file__).resolve().parents[2] / "examples" / "audits" / "smollm2-offline.yaml"


def test_check_takes_set_as_run_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = str(tmp_path / "ws")
    check = ("--store", ws, "audit", "check", str(FILE))
    # The plan has 1,640 requests to run; a budget of 1,000 set on the command line refuses it.
    code, out = call(capsys, *check, "--set", "budget.max_requests=1000")
    assert code == 2, out
    assert "has 1,640 requests to run (6,560 trials planned), more than its 1,000" in out, out
    code, out = call(capsys, *check, "--set", "budget.max_requests=2000", "--set", "name=other")
    assert code == 0, out
    assert out.startswith("audit other (other-"), out
    (total,) = [line for line in out.splitlines() if line.startswith("total: ")]
    assert total.endswith("; budget at most 2,000 requests to run (budget.max_requests)"), total
    # A field the file does not have is refused as run refuses it.
    code, out = call(capsys, *check, "--set", "budget.max_pennies=3")
    assert code == 2, out
    assert "max_pennies" in out, out

"""``budget.max_trials`` is said in the plan's words: what it bounds is the requests left to
run, the count the plan's total line gives, with its thousands separators."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.surfaces.text import printed_problems

FILE = Path(__file__).resolve().parents[2] / "examples" / "audits" / "smollm2-offline.yaml"


def test_the_budget_check_counts_the_plans_requests_and_the_plan_shows_the_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    code, out = call(capsys, "--store", ws, "audit", "check", str(FILE))
    assert code == 0, out
    (total,) = [line for line in out.splitlines() if line.startswith("total: ")]
    found = re.search(
        r"^total: ([\d,]+) trials planned, [\d,]+ already stored, ([\d,]+) requests to run,", total
    )
    assert found, total
    planned, to_run = found.groups()
    # The file's budget.max_trials is 5000: the total line says it, as it says max_cost.
    assert total.endswith("; budget at most 5,000 requests to run (budget.max_trials)"), total
    assert int(to_run.replace(",", "")) > 1000 and planned != to_run
    small = tmp_path / "small.yaml"
    text = FILE.read_text(encoding="utf-8")
    assert text.count("\n  max_trials: 5000\n") == 1
    small.write_text(text.replace("\n  max_trials: 5000\n", "\n  max_trials: 1000\n"), "utf-8")
    code, out = call(capsys, "--store", ws, "audit", "check", str(small))
    assert code == 2, out
    said = f"has {to_run} requests to run ({planned} trials planned), more than its 1,000"
    assert said in out, out
    assert printed_problems(out) == []

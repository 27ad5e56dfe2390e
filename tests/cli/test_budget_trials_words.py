"""``budget.max_requests`` is said in the plan's words: what it bounds is the requests left to
run (what is bought), the count the plan's total line gives, with its thousands separators. An
older file's ``budget.max_trials`` is read as the same limit, in the same words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.surfaces.text import printed_problems

FILE = Path(__file__).resolve().parents[2] / "examples" / "audits" / "smollm2-offline.yaml"
LIMIT = "\n  max_requests: 5000\n"


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
    # The file's budget.max_requests is 5000: the total line says it, as it says max_cost.
    assert total.endswith("; budget at most 5,000 requests to run (budget.max_requests)"), total
    # 6,560 trials share 1,640 likelihood requests (4 samples read from one answer each).
    assert (planned, to_run) == ("6,560", "1,640")
    text = FILE.read_text(encoding="utf-8")
    assert text.count(LIMIT) == 1
    said = f"has {to_run} requests to run ({planned} trials planned), more than its 1,000"
    for key in ("max_requests", "max_trials"):
        small = tmp_path / f"{key}.yaml"
        small.write_text(text.replace(LIMIT, f"\n  {key}: 1000\n"), "utf-8")
        code, out = call(capsys, "--store", ws, "audit", "check", str(small))
        assert code == 2, (key, out)
        assert f"budget.max_requests: the audit {said}" in out, (key, out)
        assert printed_problems(out) == []
    # Between the two limits: 2,000 requests hold the 1,640, whichever key names them.
    for key in ("max_requests", "max_trials"):
        fits = tmp_path / f"fits-{key}.yaml"
        fits.write_text(text.replace(LIMIT, f"\n  {key}: 2000\n"), "utf-8")
        code, out = call(capsys, "--store", ws, "audit", "check", str(fits))
        assert code == 0, (key, out)
        assert "budget at most 2,000 requests to run (budget.max_requests)" in out, out


def test_a_budget_naming_both_keys_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = FILE.read_text(encoding="utf-8")
    both = tmp_path / "both.yaml"
    both.write_text(text.replace(LIMIT, "\n  max_requests: 5000\n  max_trials: 4000\n"), "utf-8")
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "audit", "check", str(both))
    assert code == 2, out
    assert "max_trials is the former name of max_requests; give one" in out, out

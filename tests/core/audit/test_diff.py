"""``audit diff``: figures matched by part and name, B − A and its interval, worked by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from support.bounded import logit_t

from diptych.core.audit.diff import Z95, diff_figures, normal_difference, report_figures
from diptych.core.workspace import Workspace


def report(runs: list[tuple[str, str, dict[str, dict[str, float]]]]) -> dict[str, object]:
    return {
        "scope": {"parts": [{"name": name, "run": run} for name, run, _ in runs]},
        "runs": [
            {"run": run, "probe": "pst", "result": {"numbers": nums}} for _, run, nums in runs
        ],
    }


def test_normal_difference_by_hand() -> None:
    # A: 10 [6, 14] → se 4/1.96; B: 4 [1, 7] → se 3/1.96; se(B − A) = 5/1.96, so the
    # interval is −6 ± 5.
    d, low, high = normal_difference(
        {"value": 10, "ci_low": 6, "ci_high": 14}, {"value": 4, "ci_low": 1, "ci_high": 7}
    )
    assert d == -6
    assert low == pytest.approx(-11) and high == pytest.approx(-1)
    assert Z95 == pytest.approx(1.96, abs=1e-3)


def test_figures_match_by_part_and_name_and_say_their_method() -> None:
    a = report_figures(
        report(
            [
                ("pst", "r1", {"STS paired": {"value": 10, "ci_low": 6, "ci_high": 14}}),
                (
                    "pst-table5",
                    "r2",
                    {"STS paired": {"value": 2, "ci_low": 0, "ci_high": 4}, "gap": {"value": 1.0}},
                ),
            ]
        )
    )
    b = report_figures(
        report(
            [
                ("pst", "r9", {"STS paired": {"value": 4, "ci_low": 1, "ci_high": 7}}),
                (
                    "pst-table5",
                    "r8",
                    {
                        "STS paired": {"value": 3, "ci_low": 2, "ci_high": 4},
                        "gap": {"value": 0.5},
                        "new": {"value": 1},
                    },
                ),
            ]
        )
    )
    result = diff_figures(a, b, bootstrapped={("pst-table5", "STS paired"): (1.0, -0.5, 2.5)})
    rows = {(r.part, r.figure): r for r in result.rows}
    assert rows[("pst", "STS paired")].method == "normal"
    assert (rows[("pst", "STS paired")].ci_low, rows[("pst", "STS paired")].ci_high) == (
        pytest.approx(-11),
        pytest.approx(-1),
    )
    boot = rows[("pst-table5", "STS paired")]
    assert (boot.difference, boot.ci_low, boot.ci_high, boot.method) == (
        1.0,
        -0.5,
        2.5,
        "bootstrap",
    )
    gap = rows[("pst-table5", "gap")]
    assert gap.difference == -0.5 and gap.ci_low is None and gap.method == "none"
    assert result.only_b == [("pst-table5", "new")]
    assert set(result.to_dict()["methods"]) == {"normal", "bootstrap", "none"}


def test_diff_of_two_report_files(tmp_path: Path) -> None:
    for name, value in (("a", 10.0), ("b", 7.0)):
        (tmp_path / name).mkdir()
        nums = {"STS single": {"value": value, "ci_low": value - 2, "ci_high": value + 2}}
        (tmp_path / name / "report.json").write_text(json.dumps(report([("pst", name, nums)])))
    with Workspace.open(tmp_path / "ws") as ws:
        result = ws.audits.diff(str(tmp_path / "a"), str(tmp_path / "b" / "report.json"))
    (row,) = result.rows
    half = Z95 * math.hypot(2 / Z95, 2 / Z95)
    assert row.difference == -3.0
    assert row.ci_low == pytest.approx(-3 - half) and row.ci_high == pytest.approx(-3 + half)
    assert half == pytest.approx(2 * math.sqrt(2))


def test_the_normal_difference_of_two_sts_stays_inside_its_range() -> None:
    # Two STS of 3 × 3 designs, each 95% interval 160 wide: se 40.8 each, 57.7 for B − A.
    a = {"value": -60.0, "ci_low": -99.0, "ci_high": 61.0, "range": [-100, 100]}
    b = {"value": 70.0, "ci_low": -10.0, "ci_high": 150.0, "range": [-100, 100]}
    d, low, high = normal_difference(a, b)
    se = math.hypot(160 / (2 * Z95), 160 / (2 * Z95))
    # ± 1.96·57.7 would reach 243: the interval is made on the logit scale of [−200, 200].
    assert d == 130.0 and 130 + 1.96 * se > 200
    assert (low, high) == pytest.approx(logit_t(130.0, se, math.inf, -200, 200))
    assert -200 < low < 130 < high < 200
    # Without a declared range, the plain normal interval.
    plain = normal_difference({k: v for k, v in a.items() if k != "range"}, b)
    assert plain[2] == pytest.approx(130 + Z95 * se)

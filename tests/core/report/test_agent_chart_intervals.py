"""The agent findings chart gives each held-out figure the interval its table row gives it,
the one its decision read (BH-adjusted, at its confidence, named), and the surface check finds
a figure charted with one interval and printed with another."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from diptych.core.report.findings import AgentSession
from diptych.core.workspace import Workspace
from tests.core.report.test_agent_cells import side_and_no_finding
from tests.support.surfaces.chart_intervals import chart_table_problems

#: One identity confirmed of four scored at FDR 0.05: Benjamini–Hochberg's false-coverage-rate
#: intervals are at 1 − 0.05 × 1/4 = 98.75%.
BH_NAME = "98.75% BH-adjusted interval"


def _session(data: dict[str, Any]) -> AgentSession:
    return AgentSession.from_dict({"session": "s1", **data})


def test_the_held_out_point_carries_the_interval_its_decision_read() -> None:
    chart = _session(side_and_no_finding("r1")).chart()
    assert chart is not None
    held, search = chart.rows[0].points
    assert (held.series, held.value, held.low, held.high) == ("held-out", 37.173, 16.957, 56.632)
    assert held.interval == BH_NAME
    assert (search.low, search.high) == (2.1624, 20.639)
    alt = chart.alt_text()
    assert f"held-out 37.2 ({BH_NAME} 17.0 to 56.6)" in alt
    assert "25.3" not in alt  # the identity's own 95% interval is not shown beside it
    assert "held-out: 98.75% BH-adjusted; search: 95%, unadjusted" in chart.note


def test_both_identities_re_tested_chart_the_pair_as_another_figure() -> None:
    data = side_and_no_finding("r1")
    heldout = data["findings"][0]["heldout"]
    other = {**heldout["parts"][0], "identity": "architect", "side": "masculine",
             "value": 20.5, "ci_low": 5.5, "ci_high": 35.5, "ci_adjusted": [1.5, 39.5]}  # fmt: skip
    heldout.update(value=28.8, ci_low=18.0, ci_high=39.6, parts=[heldout["parts"][0], other])
    chart = _session(data).chart()
    assert chart is not None
    shown = {p.series: (p.value, p.low, p.high, p.interval) for p in chart.rows[0].points}
    assert shown == {
        "held-out pair": (28.8, 18.0, 39.6, "95% interval"),
        "held-out: marine biologist": (37.173, 16.957, 56.632, BH_NAME),
        "held-out: architect": (20.5, 1.5, 39.5, BH_NAME),
        "search": (11.425, 2.1624, 20.639, ""),
    }
    assert "held-out pair: 95%;" in chart.note


#: The section as the report printed it before: the chart with the identity's own 95% interval,
#: the table with the BH-adjusted one.
_TWO_INTERVALS = """### identities search `s1`

Text alternative: Forest plot of STS by finding, 1 rows; series: held-out, search. architect \\| \
marine biologist: held-out 37.2 (95% interval 25.3 to 48.8); search 11.4 (95% interval 2.16 to \
20.6).

| 1 | architect \\| marine biologist | 11.4 [2.16, 20.6] | marine biologist 37.2 [17.0, 56.6] \
(98.75% BH-adjusted interval) |
"""


def test_the_check_finds_a_figure_charted_and_printed_with_two_intervals() -> None:
    assert chart_table_problems(_TWO_INTERVALS) == [
        "md: 37.2 charted with [('25.3', '48.8')] and printed with [('17.0', '56.6')]"
    ]
    fixed = _TWO_INTERVALS.replace("(95% interval 25.3 to 48.8)", f"({BH_NAME} 17.0 to 56.6)")
    assert chart_table_problems(fixed) == []


@pytest.mark.usefixtures("scripted")
def test_the_written_report_charts_and_tables_each_figure_with_one_interval(
    tmp_path: Path,
) -> None:
    with Workspace.open(tmp_path / ".diptych") as ws:
        run = ws.runs.run_sync("pst-text", ["scripted-likelihood"])
        ws.findings.save("sess2", side_and_no_finding(run.id))
        ws.analysis.report(run.id, tmp_path / "report", formats="md,html")
    markdown = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    page = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    assert f"held-out 37.2 ({BH_NAME} 17.0 to 56.6)" in markdown
    assert "marine biologist 37.2 [17.0, 56.6]" in markdown
    assert chart_table_problems(markdown, page) == []

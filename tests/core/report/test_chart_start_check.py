"""A chart that flows over pages starts under the Findings and Contents when its headings and
its least part (a quarter of a page, with its legend and axis) fit there: the check
(:func:`tests.support.surfaces.flow.chart_start_problems`) finds a page, however full, left for
the next where they fitted; and the report keeps no more of the chart's first rows together
than that part."""

from __future__ import annotations

from typing import Any

from diptych.core.report.charts.model import Chart, ChartPoint, ChartRow
from diptych.core.report.charts.svg import LEAST_PART, PRINT_COLUMN, strips
from tests.support.surfaces.flow import LEAST_CHART_PART, Placed, chart_start_problems


def _pages(room: float, above: float | None = None) -> list[str]:
    """A page 1 with ``room`` pt under its last line (the Contents'); page 2 opens with
    “Results” (its top 47.77 pt down; ``above``: CSS px under the Contents' last line as laid
    out in one column), the run's heading and line, and a chart whose legend's first word
    ends 159.62 pt down: the chart's top is 14 pt above, at 145.62 pt."""

    def block(kind: str, first: int, last: int, page: int, **more: Any) -> Placed:
        return Placed({"kind": kind, **more}, first, last, page, page, kind)

    placed = [
        block("para", 0, 9, 0),
        block("heading", 10, 10, 1, above=above),
        block("heading", 11, 16, 1),
        block("para", 17, 24, 1, lead=True),
        block("figure", 25, 60, 1, kept=358.0),
        block("para", 61, 70, 2),
    ]
    bottoms = {0: 60.0, 9: 420.0, 10: 65.93, 11: 100.0, 17: 130.0, 25: 159.62, 61: 60.0}
    lines = {0: [60.0, 420.0], 1: [65.93, 100.0, 130.0, 159.62], 2: [60.0]}
    heads = {10: 47.77} if above is not None else None
    return chart_start_problems(placed, [room, 5.0, 700.0], [45.35] * 3, bottoms, lines, heads)


def test_a_chart_left_for_the_next_page_where_its_least_part_fitted_is_found() -> None:
    # Its least part: a quarter of the 1,001.6 px column, 187.8 pt. With a heading's 30 pt
    # margin for the gap above “Results”: 145.62 + 187.80 − (45.35 − 30) = 318 pt.
    assert LEAST_CHART_PART == 1 / 4
    (found,) = _pages(350.0)
    assert found == (
        "page 1 leaves 350 pt under its last line, room for the 318 pt of the headings and "
        "the least part of the chart that opens page 2 (“figure”)"
    )
    assert _pages(317.0) == []
    # Measured: “Results” 52.39 px (39.29 pt) under the Contents' last line, 47.77 pt down its
    # page: 145.62 + 187.80 − (47.77 − 39.29) = 325 pt.
    (found,) = _pages(326.0, 52.39)
    assert "room for the 325 pt" in found, found
    assert _pages(324.0, 52.39) == []


def test_the_report_keeps_a_quarter_of_a_page_of_a_chart_together_at_either_end() -> None:
    # 40 one-line rows of two series (28 px each) under a 76 px legend and axis: seven rows
    # make the quarter page (76 + 7 × 28 = 272 ≥ 250.4; six make 244), at each end.
    assert LEAST_PART == PRINT_COLUMN / 4
    rows = [
        ChartRow(f"job {i}", [ChartPoint("paired", i, i - 5, i + 5), ChartPoint("single", i)])
        for i in range(40)
    ]
    chart = Chart(name="sts", title="STS", axis="STS", rows=rows, no_interval="one prompt only")
    cut = strips(chart, "sts")
    assert cut.frame == 76.0 and set(cut.heights) == {28}
    assert [(len(part), kept) for part, kept in cut.groups()] == [(7, True), (26, False), (7, True)]

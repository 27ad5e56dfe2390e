"""A tall chart prints in parts as large as a page allows, and the paper checks fail on a chart
cut into parts much smaller than that and on a last page of a few lines the page before it had
room for (:mod:`tests.support.surfaces.flow`)."""

from __future__ import annotations

from diptych.core.report.charts.model import Chart, ChartPoint, ChartRow
from diptych.core.report.charts.svg import PAGE_HEIGHT, PRINT_HEIGHT, print_parts
from tests.support.surfaces.flow import chart_part_problems, last_page_problems


def _forest(rows: int) -> Chart:
    return Chart(
        name="sts",
        title="Expected STS per identity",
        axis="expected STS",
        rows=[
            ChartRow(f"job {i}", [ChartPoint("paired", i, i - 5, i + 5), ChartPoint("single", i)])
            for i in range(rows)
        ],
    )


def test_forty_rows_print_in_five_parts_the_first_under_what_a_page_holds() -> None:
    # A one-line row of two series is 12 + 8·2 = 28 px high, a chart's frame 110 px. The first
    # part fits under 280 px: (280 − 110) // 28 = 6 rows. The other 34 rows (952 px) need
    # ⌈952 / (400 − 110)⌉ = 4 parts of at most 400 px, ⌈34 / 4⌉ = 9 rows each: 9, 9, 9 and 7.
    # Seven parts of 6 rows before.
    assert (PRINT_HEIGHT, PAGE_HEIGHT) == (280.0, 400.0)
    parts = print_parts(_forest(40))
    assert [len(p.rows) for p in parts] == [6, 9, 9, 9, 7]
    assert [r.label for p in parts for r in p.rows] == [f"job {i}" for i in range(40)]
    # One scale for every part: the whole chart's.
    assert len({p.scale for p in parts}) == 1
    # A chart that fits under 280 px prints whole: 6 rows, 278 px.
    assert len(print_parts(_forest(6))) == 1
    # Up to twice that (12 rows, 336 px of rows), two even parts: 4 and 3, not 6 and 1.
    assert [len(p.rows) for p in print_parts(_forest(7))] == [4, 3]
    assert [len(p.rows) for p in print_parts(_forest(12))] == [6, 6]
    assert [len(p.rows) for p in print_parts(_forest(13))] == [6, 7]


def test_parts_much_smaller_than_a_page_are_found() -> None:
    # The demo's chart before: seven parts, three of them on each of pages 2 and 3.
    before = [(0, page, f"part {i}") for i, page in enumerate([0, 1, 1, 1, 2, 2, 2])]
    (found,) = chart_part_problems(before)
    assert found.startswith("a chart printed in 7 parts, three of them on page 2")
    # As printed now: two a page at most.
    assert chart_part_problems([(0, p, "x") for p in [0, 1, 1, 2, 2]]) == []
    # Three parts of different charts on one page are three charts' business.
    assert chart_part_problems([(0, 1, "a"), (0, 2, "b"), (1, 2, "c"), (1, 2, "d")]) == []


def test_a_stub_last_page_the_page_before_had_room_for_is_found() -> None:
    # Five lines 14 pt apart: 4·14 + 14 + 30 (the heading's top margin) = 100 pt.
    five = [60.0 + 14 * i for i in range(5)]
    (found,) = last_page_problems([5.0, 120.0, 700.0], {2: five})
    assert (
        found
        == "the last page holds only 5 lines (100 pt), which page 2 had room for (120 pt left)"
    )
    # No room for it on the page before (the demo's Data licenses: 85 pt left), or a last
    # page of more than ten lines: nothing to say.
    assert last_page_problems([5.0, 85.0, 700.0], {2: five}) == []
    eleven = [60.0 + 14 * i for i in range(11)]
    assert last_page_problems([5.0, 400.0, 500.0], {2: eleven}) == []
    assert last_page_problems([700.0], {0: five}) == []

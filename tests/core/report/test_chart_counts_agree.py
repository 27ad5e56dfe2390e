"""A chart's text alternative and caption count its rows with the noun the count takes: a probe
with one headline figure gets "1 row", not "1 rows"."""

from __future__ import annotations

from diptych.core.report.charts import Chart, ChartPoint, ChartRow, chart_from_numbers
from diptych.core.report.charts.svg import draw
from tests.support.surfaces.text import word_problems


def test_one_headline_figure_is_one_row() -> None:
    numbers = {"sts": {"value": 12.5, "ci_low": 3.25, "ci_high": 20.0}, "n": 40}
    chart = chart_from_numbers(numbers, "c", "One figure")
    assert chart is not None and len(chart.rows) == 1
    alt = chart.alt_text()
    assert alt.startswith(
        "Forest plot of figure (each on its own scale) by headline figure, 1 row; series: "
        "figure. sts: figure 12.5 (95% interval 3.25 to 20.0)."
    ), alt
    assert word_problems(alt) == [], alt
    # The drawn chart's description is the same words.
    assert "by headline figure, 1 row;" in draw(chart, "c")


def test_two_rows_and_more_are_rows() -> None:
    rows = [ChartRow(f"r{k}", [ChartPoint("s", float(k))]) for k in range(1, 6)]
    rows += [ChartRow("r6", [ChartPoint("s", 6.0, 5.0, 7.0)])]
    chart = Chart("c", "Six", "figure", rows)
    assert ", 6 rows; series: s." in chart.alt_text()
    # Five of six rows bare: named four, then counted.
    assert chart.bare_note() == (
        "No interval bar on 5 of 6 rows (r1, r2, r3, r4 and 1 more): no reason given."
    )


def test_the_report_check_finds_a_count_that_disagrees() -> None:
    assert word_problems("Forest plot of figure by identity, 1 rows.") != []
    assert word_problems("Forest plot of figure by identity, 3 row.") != []
    assert word_problems("Forest plot of figure by identity, 1 row.") == []

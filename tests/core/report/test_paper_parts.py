"""A tall chart prints as rows that flow over pages, filling the page it starts on, its legend
and axis repeated on each page; the paper checks fail on a chart that breaks above a page's
foot or runs onto a page without its axis, and on a last page of a few lines the page before it
had room for (:mod:`tests.support.surfaces.paper`, :mod:`tests.support.surfaces.flow`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from diptych.core.report.charts.model import Chart, ChartPoint, ChartRow
from diptych.core.report.charts.svg import FLOW_FROM, flows, strips
from tests.support.surfaces.flow import FLOW_ROOM, flow_problems, last_page_problems
from tests.support.surfaces.paper import paper_problems


def _forest(rows: int) -> Chart:
    return Chart(
        name="sts",
        title="Expected STS per identity",
        axis="expected STS",
        rows=[
            ChartRow(f"job {i}", [ChartPoint("paired", i, i - 5, i + 5), ChartPoint("single", i)])
            for i in range(rows)
        ],
        no_interval="one prompt only",
    )


def test_a_chart_taller_than_half_a_page_flows_in_strips_of_one_scale() -> None:
    # A one-line row of two series is 12 + 8·2 = 28 px high: 10 rows (280 px) stay under the
    # 290 px a chart kept whole may take with its 110 px frame, 11 rows (308 px) flow.
    assert FLOW_FROM == 290.0
    assert not flows(_forest(10)) and flows(_forest(11))
    cut = strips(_forest(40), "sts")
    assert len(cut.rows) == 40
    # Every strip is drawn on the whole chart's scale: the reference line (0, the plot's
    # left edge less its 4% pad) stands at the same x in every row.
    xs = {re.search(r'stroke-dasharray="2 2"', r) is not None for r in cut.rows}
    assert xs == {True}
    assert len({re.findall(r'<line x1="([\d.]+)"[^>]*stroke-dasharray="2 2"', r)[0]
                for r in cut.rows}) == 1  # fmt: skip
    # The head names the chart for assistive technology, the strips are hidden from it.
    assert 'role="img"' in cut.head and "<desc" in cut.head
    assert all('aria-hidden="true"' in r for r in [*cut.rows, cut.foot])
    # The legend is in the head, the axis' name in the foot.
    assert ">paired<" in cut.head and ">expected STS<" in cut.foot


def test_a_flowing_chart_that_breaks_above_a_pages_foot_or_loses_its_axis_is_found() -> None:
    # Pages 2 to 4: 20 pt left under page 2's last row, 300 pt under page 3's (the chart
    # broken there though rows were left), its foot on pages 2 and 4 only.
    room = [500.0, 20.0, 300.0, 700.0]
    found = flow_problems(range(1, 4), {1, 3}, room, "chart")
    assert found == [
        "a chart running over pages 2–4 breaks 300 pt above the foot of page 3: “chart”",
        "a chart running over pages 2–4 has no axis on page 3: “chart”",
    ]
    assert FLOW_ROOM == 60.0
    assert flow_problems(range(1, 4), {1, 2, 3}, [500.0, 20.0, 59.0, 700.0], "chart") == []


def _flowing(
    tmp_path: Path, browser: Any, style: str, above: str = "150mm", kept: bool = False
) -> list[str]:
    """Forty rows of the chart printed as the report prints them (a table of strips, its head
    and foot repeated on every page) after ``above`` of page 1, A4 without margins; its first
    and last rows kept together as the report keeps them where ``kept``."""
    from diptych.core.report.pdf import print_pdf

    cut = strips(_forest(40), "sts")
    groups = cut.groups() if kept else [(cut.rows, False)]
    bodies = "".join(
        f"<tbody{' class=kept' if whole else ''}>"
        + "".join(f"<tr><td>{r}</td></tr>" for r in part)
        + "</tbody>"
        for part, whole in groups
    )
    html = tmp_path / "page.html"
    html.write_text(
        "<!doctype html><html><head><style>body{margin:8px;font:16px sans-serif}"
        "tr, tbody.kept{break-inside:avoid} td{padding:0} svg{display:block}"
        f"thead{{display:table-header-group}} {style}</style></head><body>"
        f"<p>first page words</p><div style='height:{above}'></div>"
        f"<figure class='chart-print' style='margin:0'><table><thead><tr><td>{cut.head}</td></tr>"
        f"</thead><tfoot><tr><td>{cut.foot}</td></tr></tfoot>{bodies}</table>"
        "<figcaption>the chart's caption</figcaption></figure><p>end</p></body></html>",
        encoding="utf-8",
    )
    return paper_problems(print_pdf(html, tmp_path / "page.pdf"), html, browser)


def test_a_chart_flowing_as_the_report_prints_it_fills_its_pages(
    tmp_path: Path, browser: Any
) -> None:
    kept = _flowing(tmp_path, browser, "tfoot{display:table-footer-group}")
    assert not [p for p in kept if "chart" in p or "figure" in p], kept
    # Its foot not repeated (a row group of its own, printed once above the rows), and
    # broken after its fourth row: found.
    bad = _flowing(
        tmp_path,
        browser,
        "tfoot{display:table-row-group} tbody tr:nth-child(4){break-after:page}",
    )
    assert any("breaks" in p and "above the foot of page 1" in p for p in bad), bad
    assert any("has no axis on page 2" in p for p in bad), bad


def test_a_stub_last_page_the_page_before_had_room_for_is_found() -> None:
    # Five lines 14 pt apart: 4·14 + 14 + 30 (the heading's top margin) = 100 pt.
    five = [60.0 + 14 * i for i in range(5)]
    (found,) = last_page_problems([5.0, 120.0, 700.0], {2: five})
    assert (
        found
        == "the last page holds only 5 lines (100 pt), which page 2 had room for (120 pt left)"
    )
    # No room for it on the page before (the demo's Data licenses: 85 pt left), or a last
    # page of more than ten lines: nothing to say here (the lone last section is found by
    # ``lone_last_section``, test_page_flow_checks.py).
    assert last_page_problems([5.0, 85.0, 700.0], {2: five}) == []
    eleven = [60.0 + 14 * i for i in range(11)]
    assert last_page_problems([5.0, 400.0, 500.0], {2: eleven}) == []
    assert last_page_problems([700.0], {0: five}) == []


def test_a_flowing_chart_leaves_no_fragment_of_a_few_rows_on_a_page(
    tmp_path: Path, browser: Any
) -> None:
    # Page 1 has room for the chart's frame and two rows under 243 mm: printed as one run of
    # rows, it leaves two there and four on page 3 (34 rows a page), each under a quarter of a
    # page with its legend and axis (76 + 4 × 28 = 188 px of 1,002): found.
    plain = _flowing(tmp_path, browser, "tfoot{display:table-footer-group}", "243mm")
    fragments = [p for p in plain if "leaves" in p]
    assert [re.sub(r" \(.*", "", p) for p in fragments] == [
        "a chart running over pages 1–3 leaves 2 rows on page 1",
        "a chart running over pages 1–3 leaves 4 rows on page 3",
    ], plain
    # Its first rows and its last kept together, a quarter of a page each (250 px: the 76 px
    # frame and seven rows of 28): the chart starts on page 2 and its last page holds seven.
    cut = strips(_forest(40), "sts")
    assert cut.frame == 76.0
    assert [len(rows) for rows, _ in cut.groups()] == [7, 26, 7]
    kept = _flowing(tmp_path, browser, "tfoot{display:table-footer-group}", "243mm", kept=True)
    assert not [p for p in kept if "chart" in p or "figure" in p], kept
    # A chart with too few rows for two such parts is kept whole: it fits its page.
    assert [whole for _, whole in strips(_forest(14), "sts").groups()] == [True]

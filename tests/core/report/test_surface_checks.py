"""The surface checks can fail: each class of defect, planted in a small page, is found, and the
page without it passes (:mod:`tests.support.surfaces`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.surfaces.paper import PAGE_MARGIN_TOP, Printed, Word, page_fill, paper_problems
from tests.support.surfaces.screen import screen_problems
from tests.support.surfaces.text import (
    digit_problems,
    html_chunks,
    interval_problems,
    minus_problems,
    named_gate_intervals,
    text_problems,
    word_problems,
)

# --- text ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("STS 40.00 and 91.35", ["'40.00'", "'91.35'"]),
        ("STS 4.0, gap 12.25", ["'4.0'", "'12.25'"]),
        ("p = 0.03", ["'0.03'"]),
        ("STS 40.0, gap 4.25, −12.5, p = 0.031, q < 0.001, $1,234.50, 97.5% level", []),
        ("diptych 0.1.0, model v1.5, 2026-11-29 00:14", []),
    ],
)
def test_the_rule_of_digits(text: str, bad: list[str]) -> None:
    assert [p.split(" in ")[0] for p in digit_problems(text)] == bad


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("ticks -50 0 50", 1),
        ("t on the logit scale of [-100, 100]", 1),
        ("κ [-0.65, -0.56]", 2),
        ("[−100, 100], −0.56, run pst-text-9e0e2f56, 2026-11-29, dall-e-3, --seed=-1", 0),
    ],
)
def test_a_hyphen_for_a_minus(text: str, found: int) -> None:
    assert len(minus_problems(text)) == found


def test_every_printed_sign_is_the_readers_minus() -> None:
    """A chart's tick, a gate's interval method and an agreement interval: U+2212."""
    from diptych.core.metrics.agreement.tables import _interval
    from diptych.core.metrics.uncertainty.bootstrap import Estimate
    from diptych.core.metrics.uncertainty.intervals import IntervalRecipe
    from diptych.core.report.charts.svg import _tick

    assert [_tick(v) for v in (-50.0, 0.0, 2.5, -2.5)] == ["−50", "0", "2.50", "−2.50"]
    assert _interval(Estimate(-0.6, -0.654, -0.556, 20)) == "[−0.65, −0.56]"
    recipe = IntervalRecipe("t", 10.0, se=1.0, bounds=(-100.0, 100.0), transform="logit")
    assert recipe.description == "t on the logit scale of [−100, 100]"


def test_a_q_column_reads_three_decimals() -> None:
    assert digit_problems("0.031", column="q") == []
    assert digit_problems("0.031", column="value") != []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("95% interval [-inf, inf]: no interval", 2),
        ("the value nan", 1),
        ("800 image", 1),
        ("over 1,600 prompt in 400 scenes", 1),
        ("1 image, 2 images, 3 image pairs, 16 persons, 20 identities, 1 of 10 batches", 0),
        ("informal, nanometre, infinite", 0),
        ("Parameters. masculine=None, seed=0", 1),
        ("- `masculine`: `None`", 1),
        ("at the probe's defaults: masculine; None of the runs", 0),
    ],
)
def test_words(text: str, found: int) -> None:
    assert len(word_problems(text)) == found


def test_a_text_probe_counts_no_images() -> None:
    assert word_problems("over 1,600 images", ("pst-text",)) != []
    assert word_problems("over 1,600 images", ("pst",)) == []


def test_one_interval_per_figure() -> None:
    two = (
        '<li data-run="r" data-figure="STS paired">gate: STS paired = 11.6, 95.0% anytime-valid '
        'interval -1.04 to 24.2</li><li data-run="r" data-figure="STS paired">STS paired 11.6, '
        "95% interval 2.75 to 20.6, excludes 0</li>"
    )
    assert len(interval_problems(html_chunks(two))) == 1
    one = two.replace("2.75 to 20.6", "-1.04 to 24.2").replace(
        "95% interval", "95.0% anytime-valid interval"
    )
    assert interval_problems(html_chunks(one)) == []
    # Other runs, other figures, other levels are other intervals.
    other = two.replace(
        'data-run="r" data-figure="STS paired">STS', 'data-run="s" data-figure="STS paired">STS'
    )
    assert interval_problems(html_chunks(other)) == []


def test_a_gated_figure_names_its_interval() -> None:
    chunks = html_chunks('<li data-run="r" data-figure="F">F 11.6, 95% interval 2.75 to 20.6</li>')
    assert len(named_gate_intervals(chunks, {("r", "F")})) == 1
    assert named_gate_intervals(chunks, {("s", "F")}) == []


def test_a_written_report_is_read_in_all_its_files(tmp_path: Path) -> None:
    (tmp_path / "report.html").write_text("<p>value 40.00</p><pre><code>seed=0.125</code></pre>")
    (tmp_path / "report.md").write_text("interval [-inf, inf]\n\n```\nx 0.125\n```\n")
    (tmp_path / "report.json").write_text(
        json.dumps(
            {
                "runs": [{"probe": "pst-text"}],
                "verdict": {"findings": [{"sentence": "over 800 image", "value": 40.123}]},
            }
        )
    )
    problems = text_problems(tmp_path)
    assert [p.split(":")[0] for p in problems] == ["html", "md", "md", "json", "json"]


# --- screen -------------------------------------------------------------------------------


def _page(tmp_path: Path, body: str) -> Path:
    html = tmp_path / "page.html"
    html.write_text(
        "<!doctype html><html><head><meta name='viewport' content='width=device-width'>"
        "<style>body{margin:8px;font:16px sans-serif} .scroll{overflow-x:auto}"
        ".sticky tr > :first-child{position:sticky;left:0;background:#fff}</style></head>"
        f"<body>{body}</body></html>",
        encoding="utf-8",
    )
    return html


WIDE_ROW = "<tr>" + "".join(f"<td>column{i}value</td>" for i in range(8)) + "</tr>"


def test_a_cut_table_is_found_and_a_scrolling_one_that_says_so_is_not(
    tmp_path: Path, browser: Any
) -> None:
    cut = _page(tmp_path, f'<div class="scroll"><table>{WIDE_ROW}</table></div>')
    found = screen_problems(cut, browser)
    assert any("phone" in p and "no hint" in p and "not sticky" in p for p in found), found
    # The hint shows where the table scrolls (the phone), not where it fits (the laptop).
    fine = _page(
        tmp_path,
        "<style>@media (min-width: 600px) { .scroll-hint { display: none } }</style>"
        '<p class="scroll-hint">The table scrolls sideways →</p>'
        f'<div class="scroll sticky"><table>{WIDE_ROW}</table></div>',
    )
    assert screen_problems(fine, browser) == []


def test_a_table_that_scrolls_at_a_laptops_width_is_found(tmp_path: Path, browser: Any) -> None:
    """A cell of words kept on one line (an audit's "not priced (computed on this machine)"
    cost once) makes a table scroll at 1280 px, its hint and sticky column or not."""
    words = "not priced (computed on this machine) " * 3
    row = "<tr><td>run</td>" + f"<td style='white-space:nowrap'>{words}</td>" * 3 + "</tr>"
    html = _page(
        tmp_path,
        '<p class="scroll-hint">The table scrolls sideways →</p>'
        f'<div class="scroll sticky"><table>{row}</table></div>',
    )
    from tests.support.surfaces.screen import tables_scrolling

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(html.resolve().as_uri(), wait_until="load")
        (found,) = tables_scrolling(page)
        assert found.startswith("a table scrolls sideways"), found
        page.set_content(f'<div class="scroll"><table>{WIDE_ROW}</table></div>')
        assert tables_scrolling(page) == []
    finally:
        page.close()


def test_a_caption_that_scrolls_with_its_table_is_found(tmp_path: Path, browser: Any) -> None:
    note = "A note that says what the table's numbers are and how they were made. " * 3
    hint = '<p class="scroll-hint">The table scrolls sideways →</p>'
    inside = _page(
        tmp_path,
        f'{hint}<div class="scroll sticky"><table><caption>{note}</caption>{WIDE_ROW}</table>'
        "</div>",
    )
    found = screen_problems(inside, browser)
    assert [p.split(":")[0] for p in found if "caption in a box that scrolls" in p] == ["phone"]
    under = _page(
        tmp_path,
        f'{hint}<div class="scroll sticky"><table>{WIDE_ROW}</table></div>'
        f'<p class="caption">{note}</p>',
    )
    assert [p for p in screen_problems(under, browser) if "caption" in p] == []


def test_a_hint_over_a_table_that_fits_is_found(tmp_path: Path, browser: Any) -> None:
    page = _page(
        tmp_path,
        '<p class="scroll-hint">The table scrolls sideways →</p>'
        '<div class="scroll sticky"><table><tr><td>one</td><td>two</td></tr></table></div>',
    )
    found = screen_problems(page, browser)
    assert sorted(p.split(":")[0] for p in found if "hint shown over a table that fits" in p) == [
        "laptop",
        "phone",
    ], found


def test_an_interval_wrapped_or_run_into_its_name_is_found(tmp_path: Path, browser: Any) -> None:
    """A cell 60 px wide wraps "[−100.0, 100.0]" at its space; a cell that prints the name
    after the bounds on their line runs the two together; the bounds kept whole and the name
    on a line of its own pass."""
    wrapped = _page(tmp_path, "<table><tr><td style='width:60px'>[−100.0, 100.0]</td></tr></table>")
    assert any("wrapped over 2 lines" in p for p in screen_problems(wrapped, browser))
    joined = _page(
        tmp_path,
        "<table><tr><td>[−1.16, 23.8] (95% anytime-valid interval, look 1 of 10)</td></tr></table>",
    )
    assert any("on one line with words" in p for p in screen_problems(joined, browser))
    apart = _page(
        tmp_path,
        "<table><tr><td style='width:60px'><span style='white-space:nowrap'>[−1.16, 23.8]</span>"
        "<span style='display:block'>95% anytime-valid interval, look 1 of 10</span></td></tr>"
        "</table>",
    )
    assert screen_problems(apart, browser) == []


def test_small_and_overlapping_text_is_found(tmp_path: Path, browser: Any) -> None:
    small = _page(tmp_path, "<p style='font-size:11px'>too small</p>")
    assert any("11.0 px" in p for p in screen_problems(small, browser))
    over = _page(
        tmp_path,
        "<div style='position:relative'><span>first words</span>"
        "<span style='position:absolute;left:10px;top:0'>second</span></div>",
    )
    assert any("over" in p for p in screen_problems(over, browser))


def test_an_interval_cut_by_a_scroll_boxs_edge_is_found(tmp_path: Path, browser: Any) -> None:
    """At 390 px, five columns of figures and intervals at 16 px with wide padding scroll,
    and the box's edge runs through the last interval ("[−33.1, −" in view); the same table
    in 12 px text with narrow padding fits and passes."""
    cells = (
        "<td>masculine</td><td>−3.33</td><td>[−28.6, 22.3]</td><td>−33.7</td>"
        "<td style='white-space:nowrap'>[−33.1, −13.9]</td>"
    )
    table = f'<div class="scroll sticky"><table><tr>{cells}</tr></table></div>'
    from tests.support.surfaces.screen import intervals_at_the_edge

    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.set_content(f"<style>td {{ padding: 4px 9px; font: 16px sans-serif }}</style>{table}")
        (found,) = intervals_at_the_edge(page)
        assert found.startswith("interval [−33.1, −13.9] cut by its scroll box's edge"), found
        page.set_content(f"<style>td {{ padding: 4px 3px; font: 12px sans-serif }}</style>{table}")
        assert intervals_at_the_edge(page) == []
    finally:
        page.close()


def test_a_header_one_word_a_line_is_found(tmp_path: Path, browser: Any) -> None:
    """A narrow column of short numbers under "P(he) + P(she) paired %" wraps its header a
    word or sign a line: a band of header lines over one-line rows. Its signs kept with their
    words, it takes two."""
    from diptych.core.report.render import header_words
    from tests.support.surfaces.screen import tall_headers

    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        head = (
            "<table style='font:12px sans-serif;width:40px'><tr><th>{}</th></tr>"
            "<tr><td>93.4</td></tr></table>"
        )
        page.set_content(head.format("P(he) + P(she) paired %"))
        (found,) = tall_headers(page)
        assert found.startswith("header “P(he) + P(she) paired %” wraps over "), found
        assert int(found.split("over ")[1].split()[0]) > 4
        # As the report writes it, under the phone's rule for it.
        kept = header_words("P(he) + P(she) paired %")
        page.set_content("<style>th .keep { white-space: nowrap }</style>" + head.format(kept))
        assert tall_headers(page) == []
    finally:
        page.close()


def test_a_tall_chart_with_its_axis_only_at_its_foot_is_found(browser: Any) -> None:
    """The forest plot of 40 identities, drawn by the report's own chart code: taller than a
    phone's window, its tick labels above its rows as well as under them; a hand-made chart
    with ticks under its rows only is found."""
    from diptych.core.report.charts.model import Chart, ChartPoint, ChartRow
    from diptych.core.report.charts.svg import draw
    from tests.support.surfaces.screen import axis_only_below

    rows = [
        ChartRow(f"identity {i}", [ChartPoint("paired", i - 20.0, i - 30.0, i - 10.0)])
        for i in range(40)
    ]
    chart = Chart(name="c", title="t", axis="expected STS", rows=rows)
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.set_content(draw(chart, "narrow-chart", "narrow"))
        assert axis_only_below(page) == []
        # The same chart with the labels above its rows taken out.
        page.evaluate("""() => { const svg = document.querySelector('svg');
          const band = [...svg.querySelectorAll('rect')][1].getBoundingClientRect().top;
          for (const t of svg.querySelectorAll('text'))
            if (t.getBoundingClientRect().top < band) t.remove(); }""")
        (found,) = axis_only_below(page)
        assert found.startswith("chart 'narrow-chart' (") and "only under its rows" in found
    finally:
        page.close()


# --- paper --------------------------------------------------------------------------------


def _planted_paper_problems(tmp_path: Path, browser: Any) -> list[str]:
    from diptych.core.report.pdf import print_pdf

    html = _page(
        tmp_path,
        "<p>first page words</p><div style='height:40mm'></div>"
        "<h2 style='break-before:page'>Thin page</h2><p>short</p>"
        "<h2 style='break-before:page'>Tall figure</h2>"
        "<figure><p>top of the figure</p><div style='height:330mm'></div>"
        "<figcaption>bottom of the figure</figcaption></figure>"
        "<div style='height:200mm'></div><h3>Alone at the foot</h3>"
        "<div style='break-inside:avoid;height:120mm'></div><p>its content</p><p>end</p>",
    )
    pdf = print_pdf(html, tmp_path / "page.pdf")
    return paper_problems(pdf, html, browser)


def test_a_thin_page_and_a_lone_heading_are_found(tmp_path: Path, browser: Any) -> None:
    found = _planted_paper_problems(tmp_path, browser)
    assert any("page 1 of" in p and "full" in p for p in found), found
    assert any("page 2 of" in p and "full" in p for p in found), found
    assert any("Alone at the foot" in p for p in found), found


def test_a_split_figure_is_found(tmp_path: Path, browser: Any) -> None:
    """The planted figure is text only, taller than a page: its top prints on page 3, its foot
    on page 4."""
    found = _planted_paper_problems(tmp_path, browser)
    assert any(p.startswith("figure split over pages 3 and 4") for p in found), found


def test_a_split_table_row_and_an_image_figure_are_found(tmp_path: Path, browser: Any) -> None:
    """The planted page has no margins (A4, 297 mm): a row whose second cell is 120 mm high
    starts 200 mm down page 1 and ends on page 2 (found by its words); an image 294 mm high
    fills page 3 and its caption goes to page 4 (the figure's only words are its caption's:
    found by its marks)."""
    from diptych.core.report.pdf import print_pdf

    pixel = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"
    html = _page(
        tmp_path,
        "<p>first page words</p><div style='height:200mm'></div>"
        "<table><tr><td>left</td><td><div style='height:120mm'></div>right</td></tr></table>"
        "<figure style='break-before:page;margin:0'>"
        f"<img src='{pixel}' style='display:block;height:294mm;width:10mm'>"
        "<figcaption>caption</figcaption></figure><p>end</p>",
    )
    found = paper_problems(print_pdf(html, tmp_path / "page.pdf"), html, browser)
    assert any(p.startswith("row split over pages 1 and 2") for p in found), found
    assert any(p.startswith("figure split over pages 3 and 4") for p in found), found


def test_a_part_of_one_column_is_found() -> None:
    from tests.support.surfaces.paper import part_problems

    left_over = {"columns": [9, 2], "text": "identity"}
    assert len(part_problems([left_over])) == 1
    even = {"columns": [6, 5], "text": "identity"}
    # Two columns a table, in two parts of one each besides the first, cannot be spread more.
    narrow = {"columns": [2, 2], "text": "identity"}
    assert part_problems([even, narrow]) == []


def test_parts_that_fit_whole_small_bands_and_a_table_past_the_edge_are_found() -> None:
    """As measured in the demo's print: its 11 columns of micro STS lay out 677 px wide on a
    page 688 px wide, yet printed in two parts in bands of 380 px on a page of 1002 px."""
    from tests.support.surfaces.paper import part_problems

    split = {"columns": [6, 6], "text": "identity", "whole": 676.6, "bands": [380.4] * 6 + [288]}
    found = part_problems({"parts": [split], "wide": []})
    assert len(found) == 2, found
    assert "fits the page whole (677 px of 688)" in found[0]
    assert "bands of rows 380 px high" in found[1]
    # Too wide to print whole, in bands near a page high (the last may be short): no problem.
    needed = {"columns": [6, 6], "text": "identity", "whole": 700.0, "bands": [472, 472, 200]}
    assert part_problems({"parts": [needed], "wide": []}) == []
    past = {"width": 702.0, "text": "identity"}
    (edge,) = part_problems({"parts": [], "wide": [past]})
    assert "702 px wide on a page 688 px wide" in edge


def test_the_demos_micro_table_prints_whole_and_a_table_in_parts_in_page_high_bands() -> None:
    """The demo's micro STS per identity: 11 columns, 676 px in Chromium at 9 pt, estimated
    under the page's 684 px: one part. A table that needs two parts prints 40 rows in five
    bands of 8 rows, two a page (8 rows in two parts is 8 × 2 × 23 + 2 × 60 = 488 px of 500;
    its 6 rows a band, 380 px printed, once left pages to the parts' headers)."""
    from diptych.core.probe import Table
    from diptych.core.report.print_tables import print_parts, row_bands

    columns = ["identity", "stereotype", "STS single", "STS paired", "gap", "%F single"]
    columns += ["%F paired", "P(she) single %", "P(she) paired %", "paired 95% CI", "n paired"]
    row: list[Any] = ["construction worker", "masculine", -100.0, -33.3, -60.0, 66.7, 52.5]
    row += [35.6, 48.0, "[−61.1, −1.97]", 40]
    micro = Table(title="t", columns=columns, rows=[row] * 40)
    assert len(print_parts(micro)) == 1
    assert [len(b) for b in row_bands(micro, 2)] == [8] * 5


def test_a_wide_table_prints_in_even_parts_or_wrapped() -> None:
    """The demo's table of ten columns (its widths estimated at 9 pt) once printed as nine
    columns and one left over; wrapped, it is two parts of five and four besides the first.
    A table whose words wrap to fit prints whole."""
    from diptych.core.probe import Table
    from diptych.core.report.print_tables import print_parts

    def table(columns: list[str], row: list[Any]) -> Table:
        return Table(title="t", columns=columns, rows=[row] * 12)

    # Headers of one long word each: 13 columns of "measurementNN" cannot share 680 px.
    wide = table(
        ["identity", *(f"measurement{j:02d}" for j in range(12))],
        ["construction worker", *([12.5] * 12)],
    )
    parts = print_parts(wide)
    sizes = [len(p.columns) - 1 for p in parts]
    assert len(parts) >= 2 and sum(sizes) == 12 and max(sizes) - min(sizes) <= 1
    assert all(p.columns[0] == 0 for p in parts)
    # Four columns of sentences, 170 px each as laid out (too wide together), wrap to fit.
    sentence = "a note of many short words " * 4
    notes = table(["identity", "one", "two", "three", "four"], ["nurse", *([sentence] * 4)])
    assert len(print_parts(notes)) == 1


def test_a_page_fill_is_a_share_of_the_column() -> None:
    """Worked out by hand on A4 (841.89 pt) with the report's 16 mm margins (45.35 pt): the
    column is 751.18 pt high."""
    top = PAGE_MARGIN_TOP
    column = 841.89 - 2 * top

    def printed(*boxes: tuple[float, float]) -> Printed:
        return Printed([Word("w", 0, 0, y0, 10, y1) for y0, y1 in boxes], [841.89])

    assert page_fill(printed((top, top + column / 2)), 0) == pytest.approx(0.5, abs=1e-12)
    assert page_fill(printed((top, top + column / 4), (top, top + 10)), 0) == pytest.approx(
        0.25, abs=1e-12
    )
    # A page printed without the report's margins: its words from 8 pt, the foot of the last
    # at 20 pt; the column then starts at 8 pt and ends at 796.54 pt.
    assert page_fill(printed((8, 20)), 0) == pytest.approx(12 / (841.89 - top - 8), abs=1e-12)
    # Words down to the page's foot: full, not more.
    assert page_fill(printed((top, 841.89)), 0) == 1.0
    assert page_fill(Printed([], [841.89]), 0) == 0.0


def test_a_split_short_table_a_lone_term_and_a_broken_token_are_found(
    tmp_path: Path, browser: Any
) -> None:
    """On a page without margins (A4, 297 mm): a table of six 12 mm rows starting 250 mm down
    page 1 leaves rows on page 2; a glossary's term 287 mm down page 2 has its definition (a
    block that will not split) on page 3; ``seed=0`` in a 20 px cell that may break anywhere
    breaks. The same page with the table and the term kept whole, and the token unbroken,
    has none of the three."""
    from diptych.core.report.pdf import print_pdf

    rows = "".join(f"<tr><td style='height:12mm'>row{i}</td></tr>" for i in range(6))

    def page(keep: str) -> Path:
        html = _page(
            tmp_path,
            f"<style>{keep}</style><p>first page words</p><div style='height:240mm'></div>"
            f"<div class='table'><table><tbody>{rows}</tbody></table></div>"
            "<h2 style='break-before:page'>Glossary</h2><div style='height:250mm'></div>"
            "<dl><div class='term'><dt>lonely term</dt><dd><div style='break-inside:avoid'>"
            "<p>its definition</p><div style='height:60mm'></div></div></dd></div></dl>"
            "<table><tr><td style='width:20px'><code class='seed'>seed=0</code></td></tr></table>"
            "<p>end</p>",
        )
        return paper_problems(print_pdf(html, tmp_path / "page.pdf"), html, browser)

    found = page("code { overflow-wrap: anywhere }")
    assert any(p.startswith("table of 6 rows split over pages 1 and 2") for p in found), found
    assert any("lonely term" in p for p in found), found
    assert "“seed=0” broken over two lines" in found, found
    kept = page(
        ".table, .term { break-inside: avoid } dt { break-after: avoid } "
        ".seed { white-space: nowrap }"
    )
    assert not [p for p in kept if p.startswith(("table of", "“seed=0”")) or "lonely" in p], kept


def _printed(tmp_path: Path, browser: Any, body: str) -> list[str]:
    from diptych.core.report.pdf import print_pdf

    html = _page(tmp_path, "<style>li, p { margin: 0 }</style><p>first page words</p>" + body)
    return paper_problems(print_pdf(html, tmp_path / "page.pdf"), html, browser)


ITEMS = "".join(f"<li style='height:10mm'>item{k}</li>" for k in range(6))


@pytest.mark.parametrize(
    ("body", "found"),
    [
        # A heading halfway down page 1 (A4 without margins, 297 mm) whose content, a block
        # that will not split, goes to page 2.
        (
            "<div style='height:150mm'></div><h3>Mid-page heading</h3>"
            "<div style='break-inside:avoid'><p>its content</p><div style='height:200mm'></div>"
            "</div><p>end</p>",
            "heading “Mid-page heading” on page 1, its content on page 2",
        ),
        # Six items of 10 mm from 250 mm down page 1: the last ones go to page 2.
        (
            f"<div style='height:250mm'></div><ul>{ITEMS}</ul><p>end</p>",
            "list of 6 items split over pages 1 and 2",
        ),
        # An item 50 mm high from 270 mm down page 1, in a list of nine.
        (
            "<div style='height:270mm'></div><ul><li><p>tall item top</p>"
            "<div style='height:40mm'></div><p>tall item foot</p></li>"
            + "".join(f"<li>item{k}</li>" for k in range(8))
            + "</ul><p>end</p>",
            "list item split over pages 1 and 2",
        ),
        # A list ending 286 mm down page 1; the note under it goes to the top of page 2.
        (
            "<div style='height:272mm'></div><div><ul><li>one</li><li>two</li></ul>"
            "<p class='note' style='margin-top:5mm'>closing note words</p></div><p>end</p>",
            "note “closing note words” at the top of page 2",
        ),
        # A page broken after 60 mm, whose next page opens with a paragraph.
        (
            "<div style='height:60mm;break-after:page'></div><p>a paragraph that fits</p>"
            "<div style='height:250mm'></div><p>end</p>",
            "(“a paragraph that fits”) would have fitted under it",
        ),
        # A figure 250 mm high after 80 mm of page 1: it moves whole, leaving page 1 thin.
        (
            "<div style='height:80mm'></div><p>filler</p><figure style='margin:0;"
            "break-inside:avoid'><p>tall block</p><div style='height:250mm'></div>"
            "<figcaption>tall foot</figcaption></figure>"
            "<p>end</p>",
            "(“tall foot”) are kept together: more than half a page",
        ),
        # Two parts of the same eight rows from 200 mm down page 1: the second on page 2.
        (
            "<div style='height:200mm'></div><div class='print-parts'>"
            + "".join(
                f"<table><thead><tr><th>id</th><th>{c}</th></tr></thead><tbody>"
                + "".join(f"<tr><td>row{k}</td><td>{c}{k}</td></tr>" for k in range(8))
                + "</tbody></table>"
                for c in "ab"
            )
            + "</div><p>end</p>",
            "a row's parts of columns print on pages [1, 2]",
        ),
    ],
    ids=["heading", "short-list", "item", "note", "fits", "kept-whole", "parts"],
)
def test_a_block_flowing_badly_is_found(
    tmp_path: Path, browser: Any, body: str, found: str
) -> None:
    problems = _printed(tmp_path, browser, body)
    assert any(found in p for p in problems), problems


def test_blocks_kept_as_the_report_keeps_them_pass(tmp_path: Path, browser: Any) -> None:
    """The short list, the item and the note above, kept whole as report.css keeps them."""
    keep = "<style>ul, li, .closed { break-inside: avoid }</style>"
    body = (
        f"{keep}<div style='height:250mm'></div><ul>{ITEMS}</ul>"
        "<div style='height:200mm'></div><ul><li><p>tall item top</p>"
        "<div style='height:40mm'></div><p>tall item foot</p></li><li>next</li></ul>"
        "<div style='height:150mm'></div><div class='closed'><ul><li>one</li><li>two</li></ul>"
        "<p class='note'>closing note words</p></div><p>end</p>"
    )
    problems = _printed(tmp_path, browser, body)
    assert not [p for p in problems if "list" in p or "note" in p], problems

"""The paper checks can fail: each class of defect on A4, planted in a small page, is found, and
the page without it passes (:mod:`tests.support.surfaces.paper`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.surfaces.paper import paper_problems
from tests.support.surfaces.planted import planted_page
from tests.support.surfaces.printed_words import PAGE_MARGIN_TOP, Printed, Word, page_fill

# --- paper --------------------------------------------------------------------------------


def _planted_paper_problems(tmp_path: Path, browser: Any) -> list[str]:
    from diptych.core.report.pdf import print_pdf

    html = planted_page(
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
    html = planted_page(
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
        html = planted_page(
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

    html = planted_page(
        tmp_path, "<style>li, p { margin: 0 }</style><p>first page words</p>" + body
    )
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


@pytest.mark.parametrize(("kept", "found_at"), [(0, True), (5, False)])
def test_a_long_table_begun_by_two_rows_at_a_page_foot_is_found(
    tmp_path: Path, browser: Any, kept: int, found_at: bool
) -> None:
    """Forty one-line rows under a heading 250 mm down an A4 page without margins: two rows fit
    before the foot (the rest on page 2), unless the first ``kept`` rows are held together."""
    from diptych.core.report.pdf import print_pdf

    rows = "".join(
        f"<tr{' style=break-before:avoid' if 0 < i < kept else ''}><td>identity{i}</td>"
        f"<td>{i}</td></tr>"
        for i in range(40)
    )
    html = planted_page(
        tmp_path,
        "<p>first page words</p><div style='height:250mm'></div><h3>Full tables</h3>"
        f"<table><thead><tr><th>identity</th><th>n</th></tr></thead><tbody>{rows}</tbody></table>",
    )
    found = paper_problems(print_pdf(html, tmp_path / "page.pdf"), html, browser)
    begun = [p for p in found if p.startswith("table begins page 1 with")]
    assert bool(begun) is found_at, found

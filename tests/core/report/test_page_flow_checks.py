"""The paper checks (:mod:`tests.support.surfaces.paper`) on pages planted with a known flaw: a
table that fits on a page printed over two, and a last page holding only a short trailing
section; each planted again as the report lays it out, where the check finds nothing. A page
left under half full is found where the next page's first block would have fitted under it,
counted from what lies between them as laid out (a box's padding, a heading's margin).

The pages are A4 without margins (297 mm high, 1123 CSS px) printed by the report's own
:func:`~diptych.core.report.pdf.print_pdf`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.surfaces.paper import paper_problems


def _printed(tmp_path: Path, browser: Any, body: str) -> list[str]:
    from diptych.core.report.pdf import print_pdf

    html = tmp_path / "page.html"
    html.write_text(
        "<!doctype html><html><head><style>body{margin:8px;font:16px sans-serif}"
        "li, p { margin: 0 }</style></head>"
        f"<body><p>first page words</p>{body}</body></html>",
        encoding="utf-8",
    )
    return paper_problems(print_pdf(html, tmp_path / "page.pdf"), html, browser)


#: Fourteen rows of 8 mm (34 CSS px with their padding and spacing): 476 px, under the 500 px a
#: table may take and be kept whole.
ROWS = "".join(f"<tr><td style='height:8mm'>row{k} cell</td></tr>" for k in range(14))


def test_a_table_that_fits_a_page_split_over_two_is_found(tmp_path: Path, browser: Any) -> None:
    """Fourteen rows from 200 mm down page 1 (more than the ten of a short table) leave rows on
    page 1 and the rest on page 2; kept whole, the table moves to page 2, which leaves page 1
    two thirds full (and the move is no "kept together" fault: a table may take half a page)."""
    body = (
        "<div style='height:200mm'></div><p>before the table</p>"
        "<div class='{keep}'><table><tbody>" + ROWS + "</tbody></table></div><p>end</p>"
    )
    split = _printed(tmp_path, browser, body.format(keep="open"))
    assert any(p.startswith("table of 14 rows split over pages 1 and 2") for p in split), split
    kept = _printed(
        tmp_path,
        browser,
        "<style>.whole { break-inside: avoid }</style>" + body.format(keep="whole"),
    )
    assert not [p for p in kept if "table of" in p or "kept together" in p], kept


def test_a_last_page_of_only_the_last_section_is_found(tmp_path: Path, browser: Any) -> None:
    """A section's heading and two lines after 265 mm of page 1 (no room left for them on it):
    the last page holds them alone. Kept with the section before it, the last page opens with
    that section's heading: no problem of the kind."""
    body = (
        "<div style='height:230mm'></div><div class='{keep}'><h3>Plugins used</h3>"
        "<p>one plugin</p><div style='height:{gap}mm'></div><h3>Data licenses</h3>"
        "<p>a license line</p><p>another license line</p></div>"
    )
    lone = _printed(tmp_path, browser, body.format(keep="open", gap=35))
    assert any("holds only the last section “Data licenses”" in p for p in lone), lone
    kept = _printed(
        tmp_path,
        browser,
        "<style>.tail { break-inside: avoid }</style>" + body.format(keep="tail", gap=35),
    )
    assert not [p for p in kept if "last section" in p], kept


def _boxed(pad: int, block: int, forced: bool) -> str:
    """Page 1 two thirds full; page 2 a line in a box whose foot has ``pad`` mm of padding;
    then a heading kept with what follows it (a forced break before it when ``forced``) over a
    figure ``block`` mm high kept whole."""
    brk = " style='break-before:page'" if forced else ""
    return (
        "<style>h2 { break-after: avoid }</style>"
        "<div style='height:200mm'></div><p>end of page one</p>"
        f"<div style='break-before:page;border:1px solid;padding:5mm 5mm {pad}mm'>"
        f"<p>a boxed line</p></div><h2{brk}>Next section</h2>"
        "<figure style='break-inside:avoid;margin:0'><p>top of the figure</p>"
        f"<div style='height:{block}mm'></div><figcaption>foot of the figure</figcaption>"
        "</figure><p>end</p>"
    )


def test_a_page_left_under_half_full_before_a_block_that_fits_under_it_is_found(
    tmp_path: Path, browser: Any
) -> None:
    """A forced break after page 2's box (its line's foot 28 pt down) sends the heading and a
    figure of 150 mm (488 pt from page 3's top) to page 3: with the box's 5 mm foot padding
    and the heading's margin (about 30 pt) they would have fitted in the 770 pt left under the
    line."""
    found = _printed(tmp_path, browser, _boxed(5, 150, forced=True))
    assert any(
        p.startswith("page 2 is 2% full, and the first 488 pt of page 3")
        and "would have fitted under it" in p
        for p in found
    ), found


def test_a_block_that_needs_the_room_of_the_box_above_it_is_not_said_to_fit(
    tmp_path: Path, browser: Any
) -> None:
    """The box's foot padding is 45 mm (128 pt) and the figure 225 mm: the heading and the
    figure take 700 pt of page 3, which with a heading's margin (30 pt) would fit the 770 pt
    left under page 2's line; but under the box's padding, its border and the heading's margin
    (about 145 pt) they need 845 pt, more than the 815 pt to the page's edge, and Chromium starts
    them on page 3 with no forced break. They are said to be kept together over half a page,
    neither to have fitted under page 2 nor to make a last page it had room for."""
    found = _printed(tmp_path, browser, _boxed(45, 225, forced=False))
    assert not [p for p in found if "would have fitted" in p or "had room for" in p], found
    assert any(
        p.startswith("page 2 is 2% full, and the first 700 pt of page 3") and "kept together" in p
        for p in found
    ), found


def _five_run_pages(room: float, above: float | None) -> list[str]:
    """The five-run audit's pages 2 and 3 as printed: page 2 47% full with ``room`` pt under
    its contents' last line; page 3 opens with “Results” (its top 47.77 pt down, ``above`` CSS
    px under that last line as laid out in one column), the probe's heading and run line, and
    the pst-text chart, whose legend's first word ends 159.62 pt down and whose kept lead with
    its head and foot is 358 CSS px high (54 + 9 rows of 28 + 52)."""
    from tests.support.surfaces.flow import Placed, thin_page_problems

    def block(kind: str, first: int, last: int, page: int, **more: Any) -> Placed:
        return Placed({"kind": kind, **more}, first, last, page, page, kind)

    placed = [
        block("para", 0, 9, 1),
        block("heading", 10, 10, 2, above=above),
        block("heading", 11, 16, 2),
        block("para", 17, 24, 2, lead=True),
        block("figure", 25, 60, 2, kept=358.0),
    ]
    bottoms = {0: 60.0, 9: 397.8, 10: 65.93, 11: 100.0, 17: 130.0, 25: 159.62}
    lines = {1: [60.0, 397.8], 2: [65.93, 100.0, 130.0, 159.62]}
    tops = [45.35, 45.35, 45.35]
    return thin_page_problems(
        placed, [0.9, 0.47, 0.9], [5.0, room, 5.0], tops, bottoms, lines, {10: 47.77}
    )


def test_the_five_run_audits_chart_lead_is_counted_under_the_contents_box() -> None:
    """The chart's lead ends 414.1 pt down page 3 (159.62 − 14 + 358 × 0.75): 368.8 pt of the
    column, which with a heading's 30 pt margin is 398.8, within the 399.7 pt under page 2's
    contents. But the contents box's padding, border and margin and the heading's margin put
    “Results” 52.39 CSS px (39.29 pt) under the contents' last line: the lead needs
    414.12 − 47.77 + 39.29 = 405.6 pt, which page 2 has not (Chromium prints 8 of its 9 rows
    there). With 420 pt under the contents it would have fitted; with no gap measured the
    heading's margin stands in for it."""
    assert _five_run_pages(399.7, 52.39) == []
    (found,) = _five_run_pages(420.0, 52.39)
    assert found.startswith("page 2 is 47% full, and the first 369 pt of page 3"), found
    assert "would have fitted under it" in found
    assert len(_five_run_pages(399.7, None)) == 1

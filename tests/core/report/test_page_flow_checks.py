"""The paper checks (:mod:`tests.support.surfaces.paper`) on pages planted with a known flaw: a
table that fits on a page printed over two, and a last page holding only a short trailing
section; each planted again as the report lays it out, where the check finds nothing.

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

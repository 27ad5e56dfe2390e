"""An interval is printed whole and in one of its two forms: the report keeps each interval of
its text on one line (a sentence's "−1.04 to 24.2", a table's "[−1.04, 24.2]"), and the surface
checks (:mod:`tests.support.surfaces.whole_intervals`) find one a line may break inside, one
printed over two lines of a PDF, and one written in the two forms mixed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diptych.core.report.whole_ids import keep_ids_whole
from tests.support.page_text import class_texts, page_text
from tests.support.surfaces.whole_intervals import (
    breakable_intervals,
    interval_form_problems,
    intervals_broken_on_paper,
)

#: A finding's sentence and a table's interval, as the report prints them.
FINDING = "STS paired 11.6, 95% interval −1.04 to 24.2, 1,600 prompts."
CELL = "[−1.04, 24.2]"
#: A run's dates: "23:57 to 2026-12-02" is a time and a date, not an interval.
DATES = "2026-12-01 23:57 to 2026-12-02 00:02"


def test_the_report_keeps_each_interval_on_one_line_and_nothing_else() -> None:
    page = f"<p>{FINDING}</p><td>{CELL}</td><p>{DATES}</p><svg><text>{FINDING}</text></svg>"
    kept = keep_ids_whole(page, [])
    assert kept == (
        '<p>STS paired 11.6, 95% interval <span class="nowrap">−1.04 to 24.2</span>, 1,600 '
        'prompts.</p><td><span class="nowrap">[−1.04, 24.2]</span></td><p><span '
        'class="nowrap">2026-12-01</span> 23:57 to <span class="nowrap">2026-12-02</span> '
        f"00:02</p><svg><text>{FINDING}</text></svg>"
    )


def test_an_interval_its_cell_already_keeps_whole_is_not_wrapped_twice() -> None:
    # A table's cell keeps its interval in a span of its own (report/headlines.py): the text
    # is the span's whole text, and left as it is; the same interval in a longer text is kept.
    cell = f'<td class="num"><span class="nowrap">{CELL}</span></td>'
    assert keep_ids_whole(cell, []) == cell
    line = f'<span class="figure-line">{CELL}</span><span class="interval-name">8 words</span>'
    assert keep_ids_whole(line, []) == line
    longer = f'<span class="nowrap">11.6 {CELL}</span>'
    assert keep_ids_whole(longer, []) == (
        f'<span class="nowrap">11.6 <span class="nowrap">{CELL}</span></span>'
    )


def test_the_page_is_read_as_its_text_the_spans_that_keep_words_whole_left_out() -> None:
    page = keep_ids_whole(
        f"<head><title>{CELL}</title></head><p>{FINDING} It&#39;s 11.6 "
        f'<span class="figure-line">9.0 {CELL}</span></p><td>7.96</td><td>{CELL}</td>',
        [],
    )
    assert '<span class="nowrap">−1.04 to 24.2</span>' in page
    text = page_text(page)
    assert f"{FINDING} It's 11.6 9.0 {CELL}" in text
    # A cell's text is apart from the next cell's; the head is no text of the page.
    assert f"7.96 {CELL}" in " ".join(text.split()) and text.count(CELL) == 2
    assert class_texts(page, "figure-line") == [f"9.0 {CELL}"]


def _page(browser: Any, tmp_path: Path, body: str, width: int) -> Any:
    html = tmp_path / "page.html"
    html.write_text(
        "<!doctype html><html><head><style>.nowrap { white-space: nowrap; }</style></head>"
        f"<body>{body}</body></html>",
        encoding="utf-8",
    )
    page = browser.new_page(viewport={"width": width, "height": 600})
    page.goto(html.resolve().as_uri(), wait_until="load")
    return page


def test_an_interval_a_line_may_break_inside_is_found_at_any_width(
    tmp_path: Path, browser: Any
) -> None:
    # At 1,000 px nothing wraps, yet the sentence's interval and the bare cell could: both are
    # found; the same text kept whole by the report is not, nor an interval in a chart's SVG.
    bare = (
        f"<p>{FINDING}</p><table><tr><td>{CELL}</td></tr></table><svg><text>{FINDING}</text></svg>"
    )
    page = _page(browser, tmp_path, bare, 1000)
    try:
        found = breakable_intervals(page)
    finally:
        page.close()
    assert found == [
        "interval “−1.04 to 24.2” may wrap inside itself: “…STS paired 11.6, 95% interval −1.04 "
        "to 24.2, 1,600 pr…”",
        "interval “[−1.04, 24.2]” may wrap inside itself: “…[−1.04, 24.2]…”",
    ]
    page = _page(browser, tmp_path, keep_ids_whole(bare, []), 390)
    try:
        assert breakable_intervals(page) == []
    finally:
        page.close()


@dataclass
class Word:
    text: str
    page: int
    y0: float
    y1: float


def test_an_interval_printed_over_two_lines_of_a_pdf_is_found() -> None:
    line = [Word(t, 0, 100.0, 110.0) for t in ("STS", "11.6,", "95%", "interval", "−1.04")]
    broken = [*line, Word("to", 0, 100.0, 110.0), Word("24.2,", 0, 114.0, 124.0)]
    assert intervals_broken_on_paper(broken) == [
        "interval “−1.04 to 24.2,” broken over two lines on page 1"
    ]
    cell = [Word("[−1.04,", 2, 60.0, 70.0), Word("24.2]", 3, 60.0, 70.0)]
    assert intervals_broken_on_paper(cell) == [
        "interval “[−1.04, 24.2]” broken over two lines on page 3"
    ]
    whole = [*line, Word("to", 0, 100.0, 110.0), Word("24.2,", 0, 100.0, 110.0)]
    dates = [Word(t, 0, 100.0, 110.0) for t in ("23:57", "to")] + [Word("2026-12-02", 0, 114, 124)]
    assert intervals_broken_on_paper(whole + dates) == []


def test_an_interval_in_the_two_forms_mixed_is_found() -> None:
    assert interval_form_problems("PASS  below 95 · 11.8 [−1.04 to 24.2] · 95% fixed") == [
        "interval “[−1.04 to 24.2]” mixes two forms: write “[low, high]” or “low to high”"
    ]
    assert interval_form_problems(f"{FINDING} {CELL} (look 1 of 10) [1 to 3 looks]") == []

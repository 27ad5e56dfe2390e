"""The contents read entry by entry: "Results", then a colon, then its runs, never "Results
Paired Stereotype Test…" as one phrase, on a screen or in a PDF's text; the check
(:mod:`tests.support.surfaces.contents`) finds an entry run into its sub-entry."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.surfaces.contents import contents_problems

RUN = "Paired Stereotype Test on text (likelihood mode)"
#: The contents as the report wrote it before: the run's link right after "Results".
RUN_TOGETHER = f'<li><a href="#results">Results</a><ol><li><a href="#r">{RUN}</a></li></ol></li>'


def _contents(tmp_path: Path, browser: Any, results: str, width: int) -> list[str]:
    html = tmp_path / "page.html"
    html.write_text(
        "<!doctype html><html><head><style>nav ol { display: flex; list-style: none; gap: 1rem; }"
        "nav ol ol { display: inline-flex; margin-left: .4rem; }</style></head><body>"
        f'<nav id="contents"><ol><li><a href="#summary">Findings</a></li>{results}'
        '<li><a href="#limitations">Limitations</a></li></ol></nav></body></html>',
        encoding="utf-8",
    )
    page = browser.new_page(viewport={"width": width, "height": 600})
    try:
        page.goto(html.resolve().as_uri(), wait_until="load")
        return contents_problems(page)
    finally:
        page.close()


def test_an_entry_run_into_its_sub_entry_is_found(tmp_path: Path, browser: Any) -> None:
    assert _contents(tmp_path, browser, RUN_TOGETHER, 1280) == [
        f"contents: “Results” runs into its sub-entry “{RUN}”"
    ]
    # A colon between them, or the sub-entry on a line of its own: read apart.
    colon = RUN_TOGETHER.replace("</a><ol>", "</a>:<ol>")
    assert _contents(tmp_path, browser, colon, 1280) == []
    assert _contents(tmp_path, browser, RUN_TOGETHER, 390) == []


@dataclass
class Word:
    text: str
    page: int
    y0: float
    y1: float


def test_an_entry_run_into_its_sub_entry_in_a_pdfs_text_is_found(
    tmp_path: Path, browser: Any
) -> None:
    html = tmp_path / "page.html"
    html.write_text(
        f'<nav id="contents"><ol><li><a href="#r">Results</a>:<ol><li><a>{RUN}</a></li></ol>'
        "</li></ol></nav>",
        encoding="utf-8",
    )
    page = browser.new_page(viewport={"width": 1280, "height": 600})
    try:
        page.goto(html.resolve().as_uri(), wait_until="load")
        # The page says "Results:"; a PDF whose words read "Results Paired" on a line does not.
        together = [Word("Results", 0, 100.0, 110.0), Word("Paired", 0, 101.0, 109.0)]
        assert contents_problems(page, together) == [
            "contents on paper: “Results Paired” print as one phrase"
        ]
        apart = [Word("Results:", 0, 100.0, 110.0), Word("Paired", 0, 101.0, 109.0)]
        below = [Word("Results", 0, 100.0, 110.0), Word("Paired", 0, 114.0, 124.0)]
        assert contents_problems(page, apart) == contents_problems(page, below) == []
    finally:
        page.close()

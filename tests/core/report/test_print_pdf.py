"""The report printed on A4 as a reader holds it: the PDF's own text, measured with poppler's
``pdftotext -bbox-layout`` (word boxes per page), and the page laid out for print in Chromium.

What must hold: body text of 9 pt or more (Chromium scales a page down to its widest element,
which once printed it at 7 pt), no text beyond the page's margins, every column of every
table printed, every caption whole, and no heading left alone at the foot of a page.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from diptych.core.report.pdf import print_pdf

#: The page's margins (report.css: 16 mm top and bottom, 14 mm at the sides), in points.
SIDE_MARGIN = 14 / 25.4 * 72
#: The h1's printed size: 1.5rem of a 16 px root, 24 px = 18 pt.
H1_POINTS = 18.0
_WORD = re.compile(
    r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>'
)
#: What the print media lays out on a page's text column (A4 less its margins, in CSS px).
PRINT_VIEWPORT = {"width": 688, "height": 1000}


@dataclass
class Word:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass
class Page:
    width: float
    height: float
    #: Rows of words down the page, by their baselines.
    lines: list[list[Word]]
    #: The page's text in poppler's reading order (column by column, block by block).
    text: str


def _pdftotext() -> str:
    # Like Chromium, a system package the print tests need: missing, they fail and say how to
    # get it (.ci/run installs it), rather than pass without reading a page.
    found = shutil.which("pdftotext")
    if found is None:
        pytest.fail(
            "pdftotext is missing: install poppler-utils (Debian: apt-get install poppler-utils)"
        )
    return found


def read_pages(pdf: Path) -> list[Page]:
    """Every page's lines of words with their boxes (points, top-left origin)."""
    out = subprocess.run(
        [_pdftotext(), "-bbox-layout", str(pdf), "-"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    pages = []
    for page in re.finditer(
        r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', out, re.DOTALL
    ):
        lines = []
        for line in re.finditer(r"<line [^>]*>(.*?)</line>", page.group(3), re.DOTALL):
            words = [
                Word(html.unescape(m.group(5)), *(float(m.group(i)) for i in range(1, 5)))
                for m in _WORD.finditer(line.group(1))
            ]
            if words:
                lines.append(words)
        text = " ".join(w.text for line in lines for w in line)
        pages.append(Page(float(page.group(1)), float(page.group(2)), _rows(lines), text))
    return pages


def _rows(lines: list[list[Word]]) -> list[list[Word]]:
    """Lines on one baseline joined into a row (poppler splits a row at wide gaps, such as
    between the items of the contents), rows in reading order down the page."""
    rows: list[list[Word]] = []
    for line in sorted(lines, key=lambda ws: (ws[0].y1, ws[0].x0)):
        if rows and abs(rows[-1][0].y1 - line[0].y1) < 1.5:
            rows[-1] = sorted([*rows[-1], *line], key=lambda w: w.x0)
        else:
            rows.append(line)
    return rows


def _printed_whole(caption: list[str], words: list[str]) -> bool:
    """Whether the caption's words appear in order, every one whole, close together: poppler
    may interleave two captions printed side by side (a grid of example images), never
    reorder one, and a clipped caption loses its last words ("(Tabl")."""
    for start in (i for i, w in enumerate(words) if w == caption[0]):
        window = iter(words[start : start + 3 * len(caption) + 10])
        if all(any(w == c for w in window) for c in caption):
            return True
    return False


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def stranded(pages: list[Page], headings: list[str]) -> list[str]:
    """Headings that are the last text of a page (with more pages after it)."""
    found = []
    for page in pages[:-1]:
        if not page.lines:
            continue
        last = _squeeze(" ".join(w.text for w in page.lines[-1]))
        # A heading's last words, whole: a page ending in "1" does not end in "ISO/IEC 42001".
        found += [h for h in headings if last and f" {_squeeze(h)}".endswith(f" {last}")]
    return found


@pytest.fixture(scope="module")
def pages(report_dir: Path) -> list[Page]:
    return read_pages(report_dir / "report.pdf")


@pytest.fixture(scope="module")
def printed(report_dir: Path, browser: Any) -> Any:
    """The report laid out for print on the page's text column, in Chromium."""
    page = browser.new_page(viewport=PRINT_VIEWPORT)
    page.emulate_media(media="print")
    page.goto((report_dir / "report.html").as_uri(), wait_until="load")
    yield page
    page.close()


def test_body_text_prints_at_9_pt_or_more(pages: list[Page]) -> None:
    # A word's box is its font's ascent to descent: scaled from the title's known 18 pt.
    title = pages[0].lines[0]
    assert _squeeze(" ".join(w.text for w in title)).startswith("Bias audit")
    per_point = (title[0].y1 - title[0].y0) / H1_POINTS
    sizes = [(w.y1 - w.y0) / per_point for p in pages for line in p.lines for w in line]
    assert len(sizes) > 2000
    assert min(sizes) >= 9.0 - 0.05, min(sizes)
    # Most of the text is the body's 10.5 pt, not scaled down to fit a wide table.
    body = sorted(sizes)[len(sizes) // 2]
    assert 9.0 <= body <= 11.0


def test_no_text_runs_past_the_margins(pages: list[Page]) -> None:
    for n, page in enumerate(pages, 1):
        words = [w for line in page.lines for w in line]
        assert min(w.x0 for w in words) >= SIDE_MARGIN - 1, n
        assert max(w.x1 for w in words) <= page.width - SIDE_MARGIN + 1, n


def test_every_column_of_every_table_is_printed(printed: Any, pages: list[Page]) -> None:
    # Nothing on the printed page is wider than its text column.
    widest = printed.evaluate("document.documentElement.scrollWidth")
    assert widest <= PRINT_VIEWPORT["width"]
    # A table too wide for the page prints in parts of columns, together every column.
    tables = printed.evaluate(
        """() => [...document.querySelectorAll('.scroll.screen-only')].map(box => ({
          all: [...box.querySelectorAll('th')].map(th => th.textContent),
          parts: [...box.nextElementSibling.querySelectorAll('table')].map(t =>
            [...t.querySelectorAll('th')].map(th => th.textContent)),
          right: Math.max(...[...box.nextElementSibling.querySelectorAll('table')]
            .map(t => t.getBoundingClientRect().right)),
        }))"""
    )
    assert tables, "the audit has no table wider than the page to print in parts"
    for table in tables:
        assert len(table["parts"]) >= 2
        assert {c for part in table["parts"] for c in part} == set(table["all"])
        assert all(part[0] == table["all"][0] for part in table["parts"])
        assert table["right"] <= PRINT_VIEWPORT["width"]
    # The 15 columns of the micro-STS table (PST Tables 14 and 15) reach the paper, its
    # last one, "n paired", included.
    micro = next(t for t in tables if "%F paired 95% CI" in t["all"])
    assert len(micro["all"]) == 15 and micro["all"][-1] == "n paired"
    text = " ".join(p.text for p in pages)
    assert text.count("(Columns, part 2 of") >= len(tables)


def test_every_caption_prints_whole(printed: Any, pages: list[Page]) -> None:
    captions = printed.evaluate(
        """() => [...document.querySelectorAll('caption, p.caption, figcaption')]
          .filter(e => e.getClientRects().length > 0).map(e => e.innerText)"""
    )
    assert len(captions) > 20
    words = " ".join(p.text for p in pages).split()
    missing = [c for c in captions if not _printed_whole(c.split(), words)]
    assert missing == []


def test_no_heading_is_left_at_the_foot_of_a_page(printed: Any, pages: list[Page]) -> None:
    headings = printed.evaluate(
        """() => [...document.querySelectorAll('h2, h3, h4')]
          .filter(e => e.getClientRects().length > 0).map(e => e.innerText)"""
    )
    assert len(headings) > 30
    assert stranded(pages, headings) == []
    # A section never starts a page of its own accord: only to keep its heading with it.
    breaks = printed.eval_on_selector_all(
        "h2", "els => els.map(e => getComputedStyle(e).breakBefore)"
    )
    assert set(breaks) == {"auto"}


def test_a_stranded_heading_is_seen(tmp_path: Path) -> None:
    """The check above can fail: a heading pushed to a page's foot is found."""
    html = tmp_path / "stranded.html"
    html.write_text(
        "<!doctype html><html><body style='margin:0'>"
        "<div style='height:240mm'></div><h2>Alone at the foot</h2>"
        "<figure style='break-inside:avoid;height:120mm;margin:0;border:1px solid'></figure>"
        "<p>after</p></body></html>",
        encoding="utf-8",
    )
    pages = read_pages(print_pdf(html, tmp_path / "stranded.pdf"))
    assert len(pages) == 2
    assert stranded(pages, ["Alone at the foot"]) == ["Alone at the foot"]

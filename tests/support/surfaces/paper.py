"""The report on A4 as Chromium prints it (:mod:`diptych.core.report.pdf`), read back with
poppler's ``pdftotext -bbox-layout`` (every word with its box and page): no heading in the
bottom fifth of a page without its content under it, no figure or table row split across two
pages, no page under a third full except the last.

The elements come from the page laid out for print in Chromium, in document order; each is
found in the PDF's words by its own words, searched forward from where the one before it was
found, so that a label repeated in many tables is found where it stands.
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

#: A4 and the report's print margins (report.css: 16 mm top and bottom), in points.
PAGE_MARGIN_TOP = 16 / 25.4 * 72
#: A page must be filled to this share of its text column, the last page excepted.
LEAST_FILL = 1 / 3
#: A heading in this bottom share of a page must have its content under it on that page.
FOOT = 1 / 5
_WORD = re.compile(
    r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>'
)


@dataclass
class Word:
    text: str
    page: int
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass
class Printed:
    """The PDF's words in poppler's reading order, and each page's height."""

    words: list[Word]
    heights: list[float]


def pdftotext() -> str:
    found = shutil.which("pdftotext")
    if found is None:
        pytest.fail(
            "pdftotext is missing: install poppler-utils (Debian: apt-get install poppler-utils)"
        )
    return found


def read_pdf(pdf: Path) -> Printed:
    out = subprocess.run(
        [pdftotext(), "-bbox-layout", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout
    words: list[Word] = []
    heights: list[float] = []
    for n, page in enumerate(
        re.finditer(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', out, re.DOTALL)
    ):
        heights.append(float(page.group(2)))
        words += [
            Word(html.unescape(m.group(5)), n, *(float(m.group(i)) for i in range(1, 5)))
            for m in _WORD.finditer(page.group(3))
        ]
    return Printed(words, heights)


#: The elements whose pages the checks compare, in document order, from the print layout:
#: headings (with the text of what follows them up to the next heading), figures, table rows.
_ELEMENTS = """() => {
  const shown = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const out = [];
  for (const el of document.querySelectorAll('h2, h3, h4, figure, tr')) {
    if (!shown(el)) continue;
    const kind = el.tagName === 'TR' ? 'row' : el.tagName === 'FIGURE' ? 'figure' : 'heading';
    let text = el.innerText;
    if (kind === 'figure') {
      // An SVG's texts are not in innerText: its labels, then the caption.
      const labels = [...el.querySelectorAll('svg')].filter(shown)
        .flatMap(s => [...s.querySelectorAll('text')].map(t => t.textContent));
      text = labels.join(' ') + ' ' + (el.querySelector('figcaption')?.innerText || '');
    }
    let after = '';
    if (kind === 'heading') {
      // What the heading introduces: the text after it, to the next heading.
      for (let n = el.nextElementSibling; n && !/^H[1-4]$/.test(n.tagName);
           n = n.nextElementSibling) {
        if (shown(n)) { after = n.innerText || n.textContent; if (after.trim()) break; }
      }
    }
    out.push({kind, text, after});
  }
  return out;
}"""


def _tokens(text: str) -> list[str]:
    return [t for t in text.split() if t]


def _find(
    words: list[Word], tokens: list[str], start: int, window: int = 10
) -> tuple[int, int] | None:
    """Where ``tokens`` print, in order, from ``start``: the index of the first and of the
    last (a token may print split or joined at a line's end, so each is matched by
    containment, within a window)."""
    if not tokens:
        return None
    for i in range(start, len(words)):
        if not _same(words[i].text, tokens[0]):
            continue
        j, last = i, i
        ok = True
        for token in tokens[1:]:
            for k in range(j + 1, min(len(words), j + window)):
                if _same(words[k].text, token):
                    j = last = k
                    break
            else:
                ok = False
                break
        if ok:
            return i, last
    return None


def _same(word: str, token: str) -> bool:
    # A word split at a line's end (or joined to its punctuation) is matched by containment,
    # both sides long enough that "a" is never found inside "Provenance".
    return word == token or (min(len(word), len(token)) > 3 and (token in word or word in token))


def _fill(printed: Printed, page: int) -> float:
    words = [w for w in printed.words if w.page == page]
    if not words:
        return 0.0
    column = printed.heights[page] - 2 * PAGE_MARGIN_TOP
    return (max(w.y1 for w in words) - PAGE_MARGIN_TOP) / column


def paper_problems(pdf: Path, html_path: Path, browser: Any) -> list[str]:
    """Every problem of the paper checks of the PDF printed from ``html_path``."""
    printed = read_pdf(pdf)
    page = browser.new_page(viewport={"width": 688, "height": 1000})
    try:
        page.emulate_media(media="print")
        page.goto(html_path.resolve().as_uri(), wait_until="load")
        elements = page.evaluate(_ELEMENTS)
    finally:
        page.close()
    problems: list[str] = []
    cursor = 0
    pages = len(printed.heights)
    for element in elements:
        tokens = _tokens(element["text"])
        # Long texts are anchored by their first and last few words.
        anchor = tokens if len(tokens) <= 12 else tokens[:3]
        # A heading's words print one after another; a figure's or a row's may interleave.
        window = 2 if element["kind"] == "heading" else 10
        found = _find(printed.words, anchor, cursor, window)
        if found is None:
            continue
        first = found[0]
        last = found[1]
        if len(tokens) > 12:
            tail = _find(printed.words, tokens[-6:], found[1] + 1)
            if tail is not None and tail[0] - found[1] < 4 * len(tokens):
                last = tail[1]
        cursor = last + 1
        a, b = printed.words[first], printed.words[last]
        what = " ".join(tokens[:8])
        if element["kind"] in ("figure", "row") and a.page != b.page:
            problems.append(
                f"{element['kind']} split over pages {a.page + 1} and {b.page + 1}: “{what}”"
            )
        if element["kind"] == "heading" and a.page < pages - 1:
            height = printed.heights[a.page]
            if a.y0 > height * (1 - FOOT):
                after = _tokens(element["after"])[:3]
                under = _find(printed.words, after, last + 1) if after else None
                if under is None or printed.words[under[0]].page != a.page:
                    problems.append(
                        f"heading “{what}” in the bottom fifth of page {a.page + 1}, its content "
                        "on the next"
                    )
    for n in range(pages - 1):
        fill = _fill(printed, n)
        if fill < LEAST_FILL:
            problems.append(f"page {n + 1} of {pages} is {fill:.0%} full")
    return problems

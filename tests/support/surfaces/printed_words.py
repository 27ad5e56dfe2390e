"""The report's PDF read back as poppler's ``pdftotext -bbox-layout`` prints it: every word with
its box and its page, each page's height, and how full a page's text column is."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

#: A4 and the report's print margins (report.css: 16 mm top and bottom), in points.
PAGE_MARGIN_TOP = 16 / 25.4 * 72
_WORD = re.compile(
    # A word at the very top of a page without margins starts a little above it (yMin < 0).
    r'<word xMin="(-?[\d.]+)" yMin="(-?[\d.]+)" xMax="(-?[\d.]+)" yMax="(-?[\d.]+)">(.*?)</word>'
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


def page_fill(printed: Printed, page: int) -> float:
    """The share of the page's text column its words fill, in [0, 1]: from the column's top to
    the foot of its lowest word. The column is the report's (:data:`PAGE_MARGIN_TOP` top and
    bottom), widened to the words where a page prints outside it (a page with margins of its
    own), so that the share never leaves [0, 1]."""
    words = [w for w in printed.words if w.page == page]
    if not words:
        return 0.0
    top = min(PAGE_MARGIN_TOP, min(w.y0 for w in words))
    foot = max(printed.heights[page] - PAGE_MARGIN_TOP, max(w.y1 for w in words))
    return (max(w.y1 for w in words) - top) / (foot - top)

"""An interval printed whole and in one of its two forms: "−1.04 to 24.2" in a sentence,
"[−1.04, 24.2]" in a table or beside its figure, never the two mixed ("[−1.04 to 24.2]", on any
surface: a report's pages, a screen of the terminal app). And never wrapped inside itself, in a
sentence as in a table cell, on a screen of any width and on paper: a reader who meets "−1.04
to" at a line's end reads a bound without its interval.

In the page (a screen's, or the page laid out for print), every interval in the text must be
unbreakable where it stands, whether or not it happens to fall at a line's end at the width
measured: its spaces non-breaking, or its text set ``white-space: nowrap``. On paper, its
bounds print on one line (the PDF's words, as pdftotext reads them)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

#: A number as the report prints one (:func:`diptych.core.digits.figure_text`): a sign (a
#: minus), thousands commas, decimals, a percent; an infinite bound.
NUMBER = r"[+\-−]?(?:\$?\d[\d,]*(?:\.\d+)?%?|∞)"

#: Every interval in the page's text that can wrap inside itself: where it stands, and what
#: the text around it says. Not in an SVG (a chart's text is drawn in lines of its own) nor in
#: a script or a style.
_BREAKABLE = r"""(number) => {
  const interval = new RegExp(
    `(?<![\\w.,:\\-−])${number} to ${number}(?![\\w:\\-]|[.,]\\d)|\\[${number}, ${number}\\]`, 'g');
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    const el = node.parentElement;
    if (!el || el.closest('svg, script, style')) continue;
    const text = node.textContent;
    for (const m of text.matchAll(interval)) {
      const spaces = /[ \t\n]/.test(m[0]);
      const kept = ['nowrap', 'pre'].includes(getComputedStyle(el).whiteSpace);
      if (!spaces || kept) continue;
      const around = text.slice(Math.max(0, m.index - 30), m.index + m[0].length + 10);
      out.push({text: m[0], around: around.replace(/\s+/g, ' ').trim()});
    }
  }
  return out;
}"""


def breakable_intervals(page: Any) -> list[str]:
    """Each interval in ``page``'s text a line may break inside."""
    return [
        f"interval “{i['text']}” may wrap inside itself: “…{i['around']}…”"
        for i in page.evaluate(_BREAKABLE, NUMBER)
    ]


_MIXED = re.compile(rf"\[\s*{NUMBER}\s+to\s+{NUMBER}\s*\]")


def interval_form_problems(text: str) -> list[str]:
    """Each interval in ``text`` written in neither form, the two mixed."""
    return [
        f"interval “{m.group(0)}” mixes two forms: write “[low, high]” or “low to high”"
        for m in _MIXED.finditer(text)
    ]


def report_form_problems(report_dir: Path) -> list[str]:
    """:func:`interval_form_problems` of each page of the report written to ``report_dir``."""
    return [
        f"{name}: {p}"
        for name in ("report.md", "report.html")
        if (report_dir / name).is_file()
        for p in interval_form_problems((report_dir / name).read_text(encoding="utf-8"))
    ]


class Printed(Protocol):
    """A word as pdftotext prints it (:class:`.printed_words.Word`)."""

    text: str
    page: int
    y0: float
    y1: float


_BOUND = re.compile(rf"[(\[]?{NUMBER}[,;:.)\]]*")
_OPEN = re.compile(rf"\[{NUMBER},")
_CLOSE = re.compile(rf"{NUMBER}\][,;:.)]*")


def _line(one: Printed, two: Printed) -> bool:
    return one.page == two.page and abs((one.y0 + one.y1) / 2 - (two.y0 + two.y1) / 2) < 2


def intervals_broken_on_paper(words: Sequence[Printed]) -> list[str]:
    """Each interval whose bounds print on two lines of the PDF (``words``: pdftotext's)."""
    out = []
    for n, word in enumerate(words[:-1]):
        after = words[n + 1]
        if _OPEN.fullmatch(word.text) and _CLOSE.fullmatch(after.text):
            parts = [word, after]
        elif (
            n + 2 < len(words)
            and after.text == "to"
            and _BOUND.fullmatch(word.text)
            and _BOUND.fullmatch(words[n + 2].text)
        ):
            parts = [word, after, words[n + 2]]
        else:
            continue
        if not all(_line(parts[0], p) for p in parts[1:]):
            text = " ".join(p.text for p in parts)
            out.append(f"interval “{text}” broken over two lines on page {word.page + 1}")
    return out

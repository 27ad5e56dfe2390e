"""The report's contents read entry by entry: an entry with entries of its own under it (Results
and its runs) is never read as one phrase with its first sub-entry ("Results Paired Stereotype
Test…"), on a screen or on paper. Where the two share a line, a mark between them says where
one ends ("Results: Paired Stereotype Test…"); else the sub-entry starts a line of its own.

Measured in the page as laid out (a screen's, or the page laid out for print) and, on paper, in
the PDF's words as pdftotext reads them (what a reader copying the contents gets)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

#: Each contents entry with a list under it: its name, its first sub-entry's name, the text
#: between the two, and whether they print on one line.
_ENTRIES = """() => [...document.querySelectorAll('nav#contents li')]
  .filter(li => li.getClientRects().length > 0)
  .map(li => [li.querySelector(':scope > a'), li.querySelector(':scope > ol a, :scope > ul a')])
  .filter(([entry, sub]) => entry && sub)
  .map(([entry, sub]) => {
    const between = document.createRange();
    between.setStartAfter(entry);
    between.setEndBefore(sub);
    const a = entry.getBoundingClientRect(), b = sub.getClientRects()[0];
    const line = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 2;
    return {entry: entry.innerText.trim(), sub: sub.innerText.trim(),
            between: between.toString(), line};
  })"""
#: What says an entry ends where its sub-entries begin.
MARKS = ":—–·("


class Printed(Protocol):
    """A word as pdftotext prints it (:class:`.printed_words.Word`)."""

    text: str
    page: int
    y0: float
    y1: float


def contents_problems(page: Any, words: Sequence[Printed] | None = None) -> list[str]:
    """Each contents entry run together with its first sub-entry in ``page``; with ``words``
    (the PDF printed from it), also where the PDF's text runs them together."""
    out = []
    entries = page.evaluate(_ENTRIES)
    for e in entries:
        if e["line"] and not any(m in e["between"] for m in MARKS):
            out.append(f"contents: “{e['entry']}” runs into its sub-entry “{e['sub']}”")
    for e in entries if words is not None else []:
        out += _printed_together(list(words or []), e["entry"], e["sub"])
    return out


def _printed_together(words: list[Printed], entry: str, sub: str) -> list[str]:
    """The entry's last word followed, on its line, by the sub-entry's first, with no mark."""
    last, first = entry.split()[-1], sub.split()[0]
    for one, two in zip(words, words[1:], strict=False):
        same = one.page == two.page and min(one.y1, two.y1) - max(one.y0, two.y0) > 2
        if one.text == last and two.text == first and same:
            return [f"contents on paper: “{last} {first}” print as one phrase"]
    return []

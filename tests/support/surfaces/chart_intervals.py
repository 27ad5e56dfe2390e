"""One interval per figure across a chart and its table: a figure the chart's text alternative
gives with one interval ("held-out 37.2 (95% interval 25.3 to 48.8)") and a table row of the
same section with another ("37.2 [17.0, 56.6]") shows a reader two intervals for one figure,
only one of which its decision used."""

from __future__ import annotations

import re
from html import unescape

_NUM = r"[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
#: A point of a chart's text alternative: its value, then its interval named in brackets.
_CHART_POINT = re.compile(rf"(?<![\w.])({_NUM}) \([^()]*?interval ({_NUM}) to ({_NUM})\)")
#: A figure with its interval as a table or a sentence prints it.
_PRINTED = re.compile(rf"(?<![\w.\[])({_NUM}) \[({_NUM}), ({_NUM})\]")
_ALT_MD = re.compile(r"^Text alternative: (.*)$", re.MULTILINE)
_ALT_HTML = re.compile(r"<summary>The chart's numbers</summary><p>(.*?)</p>", re.DOTALL)


def _found(pattern: re.Pattern[str], text: str) -> dict[str, set[tuple[str, str]]]:
    out: dict[str, set[tuple[str, str]]] = {}
    for m in pattern.finditer(text):
        out.setdefault(m.group(1), set()).add((m.group(2), m.group(3)))
    return out


def _section_problems(alts: list[str], rest: str) -> list[str]:
    charted: dict[str, set[tuple[str, str]]] = {}
    for alt in alts:
        for value, found in _found(_CHART_POINT, alt).items():
            charted.setdefault(value, set()).update(found)
    printed = _found(_PRINTED, rest)
    return [
        f"{value} charted with {sorted(charted[value])} and printed with {sorted(printed[value])}"
        for value in sorted(charted.keys() & printed.keys())
        if charted[value] != printed[value]
    ]


def chart_table_problems(markdown: str = "", html: str = "") -> list[str]:
    """Each figure a chart's text alternative gives with an interval other than the one the
    rest of its section (a table, a reason) prints it with, in the Markdown and the page."""
    problems = []
    for section in re.split(r"\n#{2,4} ", markdown):
        alts = _ALT_MD.findall(section)
        if alts:
            rest = _ALT_MD.sub(" ", section).replace("\\|", "|")
            problems += [f"md: {p}" for p in _section_problems(alts, rest)]
    for section in re.split(r"<h[234][ >]", html):
        alts = [unescape(a) for a in _ALT_HTML.findall(section)]
        if alts:
            rest = _ALT_HTML.sub(" ", section)
            # Tags apart, a cell's value and its bounds on lines of their own read as one text.
            rest = unescape(
                re.sub(r"<[^>]+>", " ", re.sub(r"<svg.*?</svg>", " ", rest, flags=re.S))
            )
            problems += [f"html: {p}" for p in _section_problems(alts, re.sub(r"\s+", " ", rest))]
    return problems

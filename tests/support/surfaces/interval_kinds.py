"""Every kind of interval a report prints is named in its glossary.

A report prints intervals of several kinds — bootstrap (the agreement κ and α tables, tone
agreement, a chart's whiskers), t over units, anytime-valid (a gated figure at "look k of n"),
fixed-design, Jeffreys for a share, prediction-powered — and its glossary's "95% interval" says
which. A kind is printed where the page prints an interval and names it beside its figures (a
table's cells or note, a headline, a chart, a gate's line); the glossary must then say it too.
The Limitations describe the intervals rather than print them, and are read as the glossary's
fellow, not as its subject. The probes' Methods (Appendix A) print them too — a probe's account
of its intervals with the range they lie in ("t on the logit scale of [−100, 100], at ±100 the
open Clopper–Pearson end") — and are read as the figures are. Each page is read on its own
(HTML, Markdown, report.json's display fields against its ``glossary``), as a reader meets one.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from tests.support.surfaces.report_json import json_display_texts

#: Each kind of interval: the words that say a page prints it, and the words of its glossary
#: clause. A figure at "look k of n" needs a clause naming the looks, not only "anytime-valid".
KINDS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "bootstrap": (re.compile(r"\bbootstrap|\bBCa\b"), re.compile(r"\bbootstrap")),
    "t": (re.compile(r"\bt intervals?\b"), re.compile(r"\bt intervals?\b")),
    # Named as a page names an interval ("95% anytime-valid interval"), not a method's account.
    "anytime-valid": (re.compile(r"\d% anytime-valid interval"), re.compile(r"anytime-valid")),
    # "look k of n" is explained by a clause that says over which looks: a gate's (an audit's
    # report) or the run's own (the report of a run its gates stopped early).
    "anytime-valid at a look": (
        re.compile(r"anytime-valid interval, look \d+ of \d+"),
        re.compile(r"anytime-valid over (the|its own) looks"),
    ),
    "fixed-design": (re.compile(r"\d% fixed-design interval"), re.compile(r"fixed-design")),
    "fixed at a gate's level": (
        re.compile(r"\d% fixed interval\b"),
        re.compile(r"\bfixed at the gate's level"),
    ),
    "Jeffreys": (re.compile(r"\bJeffreys\b"), re.compile(r"\bJeffreys\b")),
    "Wilson": (re.compile(r"\bWilson\b"), re.compile(r"\bWilson\b")),
    "Clopper–Pearson": (re.compile(r"\bClopper"), re.compile(r"\bClopper")),
    "prediction-powered": (
        # An interval so named, not a method's account that a figure "is also given" one.
        re.compile(r"prediction-powered (\d+% )?intervals?\b|\bPPI\b"),
        re.compile(r"prediction-powered"),
    ),
}
#: An interval as a page prints it: ``[low, high]`` or ``from low to high``.
_NUM = r"[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_INTERVAL = re.compile(rf"\[{_NUM}, {_NUM}\]|\bfrom {_NUM} to {_NUM}\b")
_HTML_GLOSSARY = re.compile(r'<section id="glossary">(.*?)</section>', re.DOTALL)
_MD_GLOSSARY = re.compile(r"^## Glossary\n(.*?)(?=^## |\Z)", re.DOTALL | re.MULTILINE)
#: The section that describes the intervals beside the glossary: Limitations.
_HTML_DESCRIBING = re.compile(r'<section id="limitations">.*?</section>', re.DOTALL)
_MD_DESCRIBING = re.compile(r"^## Limitations\n.*?(?=^## |\Z)", re.DOTALL | re.MULTILINE)
_TAG = re.compile(r"<[^>]+>")
#: Where a page's blocks start: each heading.
_HTML_HEADING = re.compile(r"<h[1-6]\b")
_MD_HEADING = re.compile(r"^#{1,6} ", re.MULTILINE)


def kinds_problems(blocks: list[str], glossary: str) -> list[str]:
    """The kinds of interval ``blocks`` print that ``glossary`` does not name: a block (a
    section under its heading, a JSON field) prints a kind where it holds an interval and the
    kind's words, so that a table's note on intervals it has none of says nothing."""
    printing = [b for b in blocks if _INTERVAL.search(b)]
    out = []
    for kind, (printed, named) in KINDS.items():
        block = next((b for b in printing if printed.search(b)), None)
        if block is not None and not named.search(glossary):
            out.append(
                f"prints {kind} intervals (“{_around(block, printed)}”) its glossary does not name"
            )
    return out


def _around(text: str, pattern: re.Pattern[str]) -> str:
    m = pattern.search(text)
    assert m is not None
    return " ".join(text[max(0, m.start() - 40) : m.end() + 40].split())


def _page_text(page: str) -> str:
    no_script = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.DOTALL)
    return html.unescape(_TAG.sub(" ", no_script))


#: An interval as a sentence prints it: "95% interval −2.58 to 1.48".
_SAID_INTERVAL = re.compile(rf"\binterval (?:of )?{_NUM} to {_NUM}\b")
#: Words that name an interval where it is printed: its kind, or what it resamples ("95%
#: interval over identities", "resampling its 400 pairings", "Its intervals: fixed-design").
_NAMING = re.compile(
    r"anytime-valid|fixed-design|\bfixed\b|\bt intervals?\b|bootstrap|\bBCa\b|Jeffreys|Wilson"
    r"|Clopper|prediction-powered|\bPPI\b|\bover\b|resampl",
    re.IGNORECASE,
)


def unnamed_problems(blocks: list[str]) -> list[str]:
    """Each block (a section under its heading: a table with its note, a finding, a chart with
    its caption) that prints an interval and names neither its kind nor what it is over: read
    on its own, as a reader meets a table, its "[a, b]" could be any interval."""
    out = []
    for block in blocks:
        found = _INTERVAL.search(block) or _SAID_INTERVAL.search(block)
        if found is not None and not _NAMING.search(block):
            head = " ".join(block.split())[:60]
            out.append(f"an interval printed unnamed (“{_around(block, found.re)}”) under “{head}”")
    return out


def unnamed_interval_problems(report_dir: Path) -> list[str]:
    """Every block of the report's pages (HTML, Markdown) that prints an interval unnamed; the
    glossary and Limitations describe the intervals and are not read as naming them."""
    problems: list[str] = []
    if (report_dir / "report.html").is_file():
        page = (report_dir / "report.html").read_text(encoding="utf-8")
        body = _HTML_DESCRIBING.sub(" ", _HTML_GLOSSARY.sub(" ", page))
        blocks = [_page_text(b) for b in _HTML_HEADING.split(body)]
        problems += [f"html: {p}" for p in unnamed_problems(blocks)]
    if (report_dir / "report.md").is_file():
        markdown = (report_dir / "report.md").read_text(encoding="utf-8")
        body = _MD_DESCRIBING.sub("", _MD_GLOSSARY.sub("", markdown))
        problems += [f"md: {p}" for p in unnamed_problems(_MD_HEADING.split(body))]
    return problems


def interval_kind_problems(report_dir: Path) -> list[str]:
    """Every kind of interval a page of the report in ``report_dir`` prints and its glossary
    does not name, page by page."""
    problems: list[str] = []
    if (report_dir / "report.html").is_file():
        page = (report_dir / "report.html").read_text(encoding="utf-8")
        glossary = "".join(_HTML_GLOSSARY.findall(page))
        body = _HTML_DESCRIBING.sub(" ", _HTML_GLOSSARY.sub(" ", page))
        blocks = [_page_text(b) for b in _HTML_HEADING.split(body)]
        problems += [f"html: {p}" for p in kinds_problems(blocks, _page_text(glossary))]
    if (report_dir / "report.md").is_file():
        markdown = (report_dir / "report.md").read_text(encoding="utf-8")
        glossary = "".join(_MD_GLOSSARY.findall(markdown))
        body = _MD_DESCRIBING.sub("", _MD_GLOSSARY.sub("", markdown))
        problems += [f"md: {p}" for p in kinds_problems(_MD_HEADING.split(body), glossary)]
    if (report_dir / "report.json").is_file():
        data: Any = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
        if isinstance(data, dict):
            glossary = " ".join(str(v) for v in (data.get("glossary") or {}).values())
            texts = json_display_texts({k: v for k, v in data.items() if k != "glossary"})
            problems += [f"json: {p}" for p in kinds_problems(texts, glossary)]
    return problems


__all__ = [
    "KINDS",
    "interval_kind_problems",
    "kinds_problems",
    "unnamed_interval_problems",
    "unnamed_problems",
]

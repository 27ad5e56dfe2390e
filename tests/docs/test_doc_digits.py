"""The manual quotes an interval with the digits diptych prints it with (one decimal from 10 up,
two below, :func:`~diptych.core.digits.figure_text`): "[−20.5, 100.0]", never "[−20.5, 100]",
a figure's end that no command prints. An interval of whole numbers is a range ("the logit
scale of [−100, 100]"), not a figure's; what a user types (an audit file's ``within: [-10,
10]``) keeps the digits typed, and a benchmark's table row the digits its record stores."""

from __future__ import annotations

import re
from pathlib import Path

from diptych.core.digits import figure_text
from tests.docs.fenced import ROOT, pages

_NUMBER = r"[−+-]?\d[\d,]*(?:\.\d+)?"
#: An interval in brackets: two numbers.
_INTERVAL = re.compile(rf"\[({_NUMBER}), ({_NUMBER})\]")
#: Lines that quote what a user types or its echo: an audit file's gate, a refusal of one.
_TYPED = re.compile(r"within|not_below|got \[")
#: A row of a benchmark's table: its name first, its figures as the benchmark records them.
_BENCH_ROW = re.compile(r"^\|\s*`[a-z_]+\.[a-z0-9_.]+`\s*\|")


def _printed(end: str) -> str:
    """``end`` as diptych prints the figure it stands for."""
    return figure_text(float(end.replace("−", "-").replace(",", "").lstrip("+")))


def _misprinted(page: Path) -> list[str]:
    found = []
    for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if _TYPED.search(line) or _BENCH_ROW.match(line):
            continue
        for match in _INTERVAL.finditer(line):
            ends = match.groups()
            if not any("." in end for end in ends):
                continue  # a range of whole numbers
            if any(_printed(end) != end.lstrip("+") for end in ends):
                found.append(f"{page.relative_to(ROOT)}:{n}: {match.group(0)}")
    return found


def test_the_rule_of_digits_as_the_pages_quote_it() -> None:
    assert figure_text(100.0) == "100.0" and figure_text(-20.5) == "−20.5"
    assert figure_text(-0.26) == "−0.26" and figure_text(1.0) == "1.00"


def test_the_manual_quotes_intervals_with_the_digits_printed() -> None:
    found = [line for page in pages() for line in _misprinted(page)]
    assert not found, "\n".join(found)

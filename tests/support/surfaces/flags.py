"""A command's option broken at one of its hyphens on paper: "--until-" at the end of a line and
"decided" at the start of the next. A reader who types the option from the page, or copies the
two lines, gets a command that fails; the option prints whole or not at all on a line.

Read from the PDF's words (:func:`tests.support.surfaces.printed_words.read_pdf`), in poppler's
reading order: a word that is the start of an option and ends in a hyphen, the word after it on
a later line (or page) starting with a letter or digit.
"""

from __future__ import annotations

import re
from typing import Protocol

#: The start of an option cut after one of its hyphens ("--until-", "(--max-", "`-A-"): one or
#: two hyphens, a letter, then letters, digits and hyphens, the last a hyphen.
_CUT_OPTION = re.compile(r"(?:^|[^\w-])(--?[A-Za-z][\w-]*-)$")
#: Two words' feet further apart than this (in points) are on two lines.
_LINE_GAP = 5


class _Word(Protocol):
    text: str
    page: int
    x0: float
    y1: float


def broken_option_problems(words: list[_Word]) -> list[str]:
    """Every option printed in two parts on two lines, as "“--until-” / “decided”"."""
    problems = []
    for word, after in zip(words, words[1:], strict=False):
        cut = _CUT_OPTION.search(word.text)
        if cut is None or not after.text[:1].isalnum():
            continue
        later = after.page != word.page or abs(after.y1 - word.y1) > _LINE_GAP
        if later and after.x0 < word.x0:
            problems.append(
                f"option broken over two lines: “{cut.group(1)}” / “{after.text}” "
                f"(page {word.page + 1})"
            )
    return problems

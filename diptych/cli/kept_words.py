"""A table cell that wraps only between words a reader may part: rich breaks a line at a no-break
space as at any other (its words are split on every whitespace character), so "look 1 of 10",
"164 of 1,640 requests" or "1,476 saved" could end on two lines. Here the groups a status joins
with no-break spaces (:func:`kept_together`) stay whole on one line, and print with plain spaces."""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

NBSP = "\u00a0"

#: A look ("look 1 of 10"), a part of a whole with its noun ("164 of 1,640 requests"), and a
#: count with its noun ("1,476 saved", "940 not bought", "1,640 requests"): each read as one
#: thing, so kept on one line ("of" alone on a line reads as neither count's).
_GROUPS = re.compile(
    r"look [\d,]+ of [\d,]+|[\d,]*\d of [\d,]*\d [a-z]+|[\d,]*\d (?:not bought|(?!of\b)[a-z]+)"
)


def kept_together(text: str) -> str:
    """``text`` with the spaces inside each look and each count with its noun made no-break."""
    return _GROUPS.sub(lambda m: m[0].replace(" ", NBSP), text)


class KeptWords:
    """``text`` wrapped at its plain spaces only, each group joined by no-break spaces
    (:func:`kept_together`) on one line; a group wider than the cell alone is folded."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text.replace(NBSP, " ")

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        groups = self.text.split(" ")
        longest = max(cell_len(g) for g in groups)
        return Measurement(longest, cell_len(self.text)).clamp(max_width=options.max_width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        lines: list[str] = []
        line = ""
        for group in self.text.split(" "):
            if line and cell_len(line) + 1 + cell_len(group) > width:
                lines.append(line)
                line = group
            else:
                line = f"{line} {group}" if line else group
        lines.append(line)
        yield Text("\n".join(lines).replace(NBSP, " "), overflow="fold")

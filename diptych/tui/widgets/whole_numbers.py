"""A text that wraps between words, never inside a number, an interval or an id.

Rich wraps a line at any space, and an interval has one: "[-50.0, +50.0]" at the end of a line
became "[-50.0," over "+50.0]" on the Review screen at 80 columns. :class:`WholeNumbers` is a
:class:`~textual.widgets.Static` whose text breaks only at the spaces outside a figure (a value
with its interval and its n), so that each is read on one line. An id longer than its line
(an image's ``occ-paired-carpenter--nurse`` on a card 25 columns wide) is folded after one of
its hyphens by :func:`fold_ids`, never cut inside a word.
"""

from __future__ import annotations

import re
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.geometry import Size
from textual.visual import visualize
from textual.widgets import Static

from diptych.core.cost import COMPUTED_HERE
from diptych.tui.widgets.fit_table import _NUMBER, INTERVAL

#: What stays on one line: a value, its interval (marked † where it fell to its floor, and in
#: the standings ‡ where its gates decided on it) and its ``n=`` (each optional but the
#: first), or an interval alone; the level that opens an interval's name with the word
#: after it ("(95% anytime-valid"): alone at a line's end, "(95%" reads as an interval cut;
#: the look a gate decided at ("look 1 of 10", "look 1/10", "look 2" where it read the
#: whole design): "look 1" over "of 10" reads as the first look of an unknown number.
FIGURE = re.compile(
    rf"(?:{_NUMBER}(?:\s+(?:{INTERVAL.pattern})(?:\s+[†‡])*)?|{INTERVAL.pattern}(?:\s+[†‡])*)"
    r"(?:\s+n=[\d,]+)?|\(\d[\d.]*%\s+\S+|\blook\s+[\d,]+(?:(?:\s+of\s+|/)[\d,]+)?\)?"
    # A cost in words is a value too: "not priced (computed" over "on this machine)" read as
    # a cost cut, as "[-50.0," over "+50.0]" read as an interval cut. Its label stays with it:
    # "estimated" over "cost $0.59", or "estimated cost" over "not priced", is a label with no
    # value and a value with no name. A mix's "+ 300 requests not priced" may go on below.
    rf"|(?:estimated cost )?(?:\$[\d,]+\.\d\d|not priced(?: \({COMPUTED_HERE}\))?)"
    rf"|[\d,]+ requests (?:not priced|{COMPUTED_HERE})"
)

#: An id: words joined by hyphens or slashes, three at least (``occ-paired-carpenter--nurse``,
#: a PAIRS image's ``potential_crime/bandanna/black_man``).
ID = re.compile(r"[A-Za-z0-9_.:]+(?:[-/]+[A-Za-z0-9_.:]+){2,}")


def break_points(plain: str) -> list[int]:
    """The indexes of the spaces a line may break at: those outside every figure."""
    inside: set[int] = set()
    for match in FIGURE.finditer(plain):
        inside.update(range(match.start(), match.end()))
    return [i for i, ch in enumerate(plain) if ch == " " and i not in inside]


def wrap_whole(text: Text, width: int) -> Text:
    """``text`` wrapped to ``width`` cells at :func:`break_points` (and at its own newlines),
    its styles kept. A piece wider than ``width`` is left whole, to be cut by the box rather
    than broken."""
    out = Text(end="")
    width = max(width, 1)
    for number, line in enumerate(text.split("\n", allow_blank=True)):
        if number:
            out.append("\n")
        plain = line.plain
        starts = [0, *(i + 1 for i in break_points(plain))]
        ends = [*(i for i in break_points(plain)), len(plain)]
        current = 0  # cells on the line being filled
        for k, (start, end) in enumerate(zip(starts, ends, strict=True)):
            word = line[start:end]
            cells = cell_len(word.plain)
            if k and current and current + 1 + cells > width:
                out.append("\n")
                current = 0
            elif k:
                out.append(" ")
                current += 1
            out.append_text(word)
            current += cells
    return out


def fold_ids(text: Text, width: int) -> Text:
    """``text`` with each id wider than ``width`` cells broken after its hyphens (or slashes)
    into pieces that fit, each ending a line: the lines read down give the whole id, and the
    wrap that follows has no id to cut inside a word. A piece with nothing to break at is left
    whole."""
    plain = text.plain
    cuts: list[int] = []
    for match in ID.finditer(plain):
        start = match.start()
        while match.end() - start > max(width, 1):
            ends = range(start, min(start + width, match.end()))
            breaks = [i + 1 for i in ends if plain[i] in "-/"]
            if not breaks:
                break
            # After a path's slash rather than inside a file's name ("smollm2-" / "offline").
            cut = max((b for b in breaks if plain[b - 1] == "/"), default=breaks[-1])
            cuts.append(cut)
            start = cut
    if not cuts:
        return text
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(plain)], strict=True)]
    return Text("\n", end="").join(pieces)


class WholeIds(Static):
    """A Static whose ids (a run's, an image's) are folded after a hyphen where they are wider
    than its lines, never cut inside a word (:func:`fold_ids`)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        #: What is shown, kept so tests and hosts can read it without a screenshot.
        self.text = Text()

    def show(self, text: Text) -> None:
        self.text = text
        self.update(text)

    def render(self) -> Text:
        return fold_ids(self.text, self.content_region.width or self.size.width)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # As Textual's own Widget.get_content_height does: its styles serve as the rules map.
        visual = visualize(self, fold_ids(self.text, width))
        return visual.get_height(self.styles, width)  # type: ignore[arg-type]


class WholeNumbers(Static):
    """A Static whose text never breaks inside a number, an interval or its ``n=``."""

    def __init__(self, content: str | Text = "", **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.text = Text(content) if isinstance(content, str) else content

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        self.text = content if isinstance(content, Text) else Text(str(content))
        super().update(self.text, layout=layout)

    def render(self) -> Text:
        return self._wrapped(self.content_region.width or self.size.width)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._wrapped(width).plain.split("\n"))

    def _wrapped(self, width: int) -> Text:
        # An id or a path wider than a line (an audit file's, in an error) is folded after a
        # hyphen or a slash first: left whole, the box would wrap it in lines not counted in
        # its height, and cut the reason after it.
        return wrap_whole(fold_ids(self.text, width), width)


def wrap_phrases(text: Text, width: int, between: str = " · ") -> Text:
    """``text`` wrapped to ``width`` cells only ``between`` its phrases: a title's "0
    labelled" or "all reasons" is never parted. A phrase wider than ``width`` is left whole,
    to be cut by the box rather than broken."""
    plain = text.plain
    out = Text(end="")
    start, current = 0, 0
    while start <= len(plain):
        end = plain.find(between, start)
        end = len(plain) if end < 0 else end
        cells = cell_len(plain[start:end])
        if start and current + len(between) + cells > width:
            out.append("\n")
            current = 0
        elif start:
            out.append_text(text[start - len(between) : start])
            current += len(between)
        out.append_text(text[start:end])
        current += cells
        start = end + len(between)
    return out


class Phrases(WholeNumbers):
    """A line of phrases (a screen's title) that wraps only between them (:func:`wrap_phrases`)."""

    def render(self) -> Text:
        return wrap_phrases(self.text, self.content_region.width or self.size.width)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(wrap_phrases(self.text, width).plain.split("\n"))

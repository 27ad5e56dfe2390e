"""The Audit screen's gates read as a release decision: one line per gate where it fits, its
verdict, name, value, interval (its level, how it was made and at which look) and rule, parted
only between them, so that they are in view as an audit opens at 60×20 with the gates' heading, not
under a table's header row and its wrapped figure names (the table of the gates' parts and
figures follows the parts)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.geometry import Size

from diptych.core.report.formatting import bounds
from diptych.core.report.gates import GateLine
from diptych.tui.widgets.whole_numbers import WholeNumbers, wrap_whole

#: What parts a gate's phrases on a line.
BETWEEN = " · "


def gate_phrases(gate: GateLine, look: str) -> list[str]:
    """A decided gate's phrases, one line where the width allows: its verdict and name, its
    value and interval, the interval's level and kind, the look it was made at (an audit
    bought until decided) and its rule where the name does not already say it. The interval
    beside its value reads as every table prints one ("59.0 [51.0, 66.2]": :func:`bounds`)."""
    phrases = [f"{gate.verdict.upper()}  {gate.label}".rstrip()]
    if gate.has_interval:
        phrases += [f"{gate.value} {bounds(gate.low, gate.high)}", f"{gate.level} {gate.kind}"]
        if gate.kind == "anytime-valid" and look:
            phrases.append(look)
    else:
        phrases += [gate.value, gate.interval]
    if gate.rule and not gate.label.endswith(gate.rule):
        phrases.append(f"rule: {gate.rule}")
    return [p for p in phrases if p]  # an unnamed gate: no empty phrase between two marks


def undecided_phrases(label: str, rule: str, why: str) -> list[str]:
    """A gate stated but not decidable yet: why first, where a verdict would be."""
    return [why, label, f"rule: {rule}"]


def wrap_phrases_whole(phrases: Sequence[str], width: int) -> Text:
    """``phrases`` packed on lines of ``width`` cells, parted only between them; a phrase wider
    than a line wraps between its words, never inside a number, an interval or a look."""
    lines: list[Text] = []
    current: Text | None = None
    for phrase in phrases:
        text = Text(phrase)
        if current is not None and cell_len(current.plain + BETWEEN + phrase) <= width:
            current.append(BETWEEN)
            current.append_text(text)
            continue
        if current is not None:
            lines.append(current)
        if cell_len(phrase) <= width:
            current = text
            continue
        *whole, current = wrap_whole(text, width).split("\n")
        lines += whole
    if current is not None:
        lines.append(current)
    return Text("\n", end="").join(lines)


class GateVerdicts(WholeNumbers):
    """Each gate on lines of its own, its verdict in bold, its phrases never parted inside."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.blocks: list[list[str]] = []

    def show(
        self, lines: Sequence[GateLine], rows: Sequence[tuple[str, str, str, str]], look: str
    ) -> None:
        """The decided gates' ``lines``, then those stated but not decidable yet (``rows``:
        gate, figure, rule and why, as the table takes them)."""
        self.blocks = [gate_phrases(g, look) for g in lines]
        self.blocks += [undecided_phrases(label, rule, why) for label, _, rule, why in rows]
        self.update("\n".join(BETWEEN.join(block) for block in self.blocks))

    def _wrapped(self, width: int) -> Text:
        out = Text(end="")
        for n, block in enumerate(self.blocks):
            if n:
                out.append("\n")
            start = len(out.plain)
            out.append_text(wrap_phrases_whole(block, width))
            out.stylize("bold", start, start + len(block[0]))
        return out

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._wrapped(width).plain.split("\n")) if self.blocks else 0

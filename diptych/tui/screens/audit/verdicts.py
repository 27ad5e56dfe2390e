"""The Audit screen's gates read as a release decision: one short block per gate, its verdict,
name, value, interval (its level, how it was made and at which look) and rule, each whole on
a line, so that they are in view as an audit opens at 60×20 with the gates' heading, not
under a table's header row and its wrapped figure names (the table of the gates' parts and
figures follows the parts)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.geometry import Size

from diptych.core.report.gates import GateLine
from diptych.tui.widgets.whole_numbers import WholeNumbers, wrap_whole

#: What parts a gate's phrases on a line.
BETWEEN = " · "


def gate_phrases(gate: GateLine, look: str) -> list[str]:
    """A decided gate's phrases: its verdict, name, value, interval and rule; an interval made
    over the looks of an audit bought until decided names its look, as ``diptych audit gate``
    does ("95% anytime-valid interval 19.1 to 75.1 at look 1 of 10")."""
    interval = gate.interval
    if gate.has_interval:
        at = f" at {look}" if gate.kind == "anytime-valid" and look else ""
        interval = f"{gate.level} {gate.kind} interval {gate.interval}{at}"
    phrases = [gate.verdict.upper(), gate.label, gate.value, interval, f"rule: {gate.rule}"]
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

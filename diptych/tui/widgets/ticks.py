"""Controls whose state reads in text: ``[x]`` chosen, ``[ ]`` not.

Textual draws a checkbox, and each option of a selection list, as ``▐X▌`` whether it is chosen or
not, and tells the two apart by colour alone: on a monochrome terminal, to a colour-blind user,
or in a screenshot pasted into an issue, every box reads as ticked. These draw the tick as a
character, the colours kept as they were.
"""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.content import Content
from textual.strip import Strip
from textual.widgets import Checkbox, SelectionList
from textual.widgets._toggle_button import ToggleButton


def tick(chosen: bool) -> str:
    """The mark between the brackets."""
    return "x" if chosen else " "


class TickBox(Checkbox):
    """A checkbox drawn ``[x]`` when ticked and ``[ ]`` when not."""

    @property
    def _button(self) -> Content:
        label = self.get_visual_style("toggle--label")
        return Content.assemble(("[", label), (tick(self.value), "bold"), ("]", label))

    def render(self) -> Content:
        # With no label (one stands above the box), no padding for one: the box's width is
        # the three cells of "[x]".
        return self._button if not self.label else super().render()


class TickList(SelectionList[Any]):
    """A selection list whose options are drawn ``[x] name`` when chosen, ``[ ] name`` when
    not (the highlight and the colours as Textual draws them)."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        drawn = "".join(s.text for s in segments[:3])
        button = ToggleButton.BUTTON_LEFT + ToggleButton.BUTTON_INNER + ToggleButton.BUTTON_RIGHT
        if len(segments) < 4 or drawn != button:
            return strip
        index = self.scroll_offset.y + y
        chosen = self.get_option_at_index(index).value in self._selected
        # The prompt's own style (its background follows the highlight) plus the option's
        # index, which a click on the box reads.
        prompt = segments[3].style or Style()
        meta = Style(meta={"option": index})
        box = [
            Segment("[", prompt + meta),
            Segment(tick(chosen), prompt + Style(bold=True) + meta),
            Segment("]", prompt + meta),
        ]
        return Strip([*box, *segments[3:]], strip.cell_length)

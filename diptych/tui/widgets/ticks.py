"""Controls whose state reads in text: ``[x]`` chosen, ``[ ]`` not.

Textual draws a checkbox, and each option of a selection list, as ``▐X▌`` whether it is chosen or
not, and tells the two apart by colour alone: on a monochrome terminal, to a colour-blind user,
or in a screenshot pasted into an issue, every box reads as ticked. These draw the tick as a
character, the colours kept as they were.
"""

from __future__ import annotations

import re
from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.content import Content
from textual.strip import Strip
from textual.visual import Visual
from textual.widgets import Checkbox, OptionList, SelectionList
from textual.widgets.option_list import Option


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


#: Where a name may break: after a space or one of its separators ("openai-compat-" over
#: "llava-1.6", "construction" over "worker").
_BREAK_AFTER = re.compile(r"[^-_./:\s]*[-_./:\s]+|[^-_./:\s]+")


def name_lines(name: str, width: int) -> list[str]:
    """``name`` in lines of at most ``width`` cells, broken after a space or a separator
    where one falls in the line (the space left at the line's end), else at the width (a run
    of characters with neither)."""
    if width <= 0 or cell_len(name) <= width:
        return [name]
    lines, line = [], ""
    for part in _BREAK_AFTER.findall(name):
        while part:
            if cell_len((line + part).rstrip()) <= width:
                line, part = line + part, ""
            elif line:
                lines.append(line.rstrip())
                line = ""
            else:  # one part longer than a line: folded
                lines.append(part[:width])
                part = part[width:]
    return [*lines, line.rstrip()] if line.strip() else lines


class TickList(SelectionList[Any]):
    """A selection list whose options are drawn ``[x] name`` when chosen, ``[ ] name`` when
    not (the highlight and the colours as Textual draws them), and whose names wrap onto the
    lines below rather than end in "…": a model's name is what a user chooses by."""

    DEFAULT_CSS = """
    TickList {
        text-wrap: wrap;
        text-overflow: fold;
    }
    """

    def on_focus(self, event: events.Focus) -> None:
        # Space ticks the highlighted option, and a list focused by Tab, or by ctrl+s pointing
        # at it, had none: Space did nothing until Down. The first is highlighted, so Space
        # ticks it at once and the focus shows on a row.
        if self.highlighted is None and self.option_count:
            self.highlighted = 0

    def _get_visual(self, option: Option) -> Visual:
        # The name broken at its separators for the width there is (read at each layout:
        # Textual clears its line caches when the list is resized).
        prompt = option.prompt
        name = prompt.plain if isinstance(prompt, Content) and not prompt.spans else prompt
        if not isinstance(name, str):
            return super()._get_visual(option)
        padding = self.get_component_styles("option-list--option").padding.width
        width = self.scrollable_content_region.width - self._get_left_gutter_width() - padding
        return Content("\n".join(name_lines(name, width)))

    def render_line(self, y: int) -> Strip:
        # Textual's SelectionList draws its button on every line and takes each line for an
        # option of its own; an option over several lines has its box on the first only.
        strip = OptionList.render_line(self, y)
        try:
            index, offset = self._lines[self.scroll_offset.y + y]
        except IndexError:
            return strip
        segments = list(strip)
        # The prompt's own style (its background follows the highlight) plus the option's
        # index, which a click on the box reads.
        prompt = (segments[0].style if segments else None) or self.rich_style
        meta = Style(meta={"option": index})
        if offset:
            box = [Segment(" " * 4, prompt + meta)]
        else:
            chosen = self.get_option_at_index(index).value in self._selected
            box = [
                Segment("[", prompt + meta),
                Segment(tick(chosen), prompt + Style(bold=True) + meta),
                Segment("]", prompt + meta),
                Segment(" ", prompt + meta),
            ]
        return Strip([*box, *segments], strip.cell_length + 4)

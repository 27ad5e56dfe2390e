"""What a control and a form say in text, not in colour alone (see :mod:`surface`):

- :func:`state_by_colour`: a control (checkbox, switch, a list's tick) whose state changes only
  the colours of its cells, not their text;
- :func:`unseen_errors`: a screen that points at a field "marked in red" while no such field is
  in view, or whose focus is not on the field it refers to.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rendered_screen import _where, region_lines, screen_cells, screen_lines, visible_widgets
from surface import POINTS_AT_FIELD
from textual.app import App
from textual.color import Color
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Checkbox, RadioButton, SelectionList, Switch

# --- state in text --------------------------------------------------------------------------


async def state_by_colour(pilot: Pilot[Any]) -> list[str]:
    """Controls on screen whose state reads only in colour: each is switched, redrawn and
    switched back, and the text of its cells must change with it."""
    app = pilot.app
    found: list[str] = []
    for widget, region in list(visible_widgets(app)):
        flip = _flipper(widget)
        if flip is None:
            continue
        before = region_lines(screen_lines(app), region)
        flip()
        await pilot.pause()
        after = region_lines(screen_lines(app), region)
        flip()
        await pilot.pause()
        if before == after:
            found.append(f"{_where(widget)}: its state shows in colour only: {before[:2]!r}")
    return found


def _flipper(widget: Widget) -> Callable[[], None] | None:
    if isinstance(widget, Checkbox | RadioButton | Switch):

        def flip() -> None:
            widget.value = not widget.value

        return flip
    if isinstance(widget, SelectionList) and widget.option_count:
        # The option drawn on the list's first line (an option may take several lines).
        index = widget._lines[widget.scroll_offset.y][0] if widget._lines else 0
        first = widget.get_option_at_index(index)

        def toggle() -> None:
            widget.toggle(first)

        return toggle
    return None


# --- errors the screen points at ------------------------------------------------------------


def _is_red(app: App[Any], hex_colour: str | None) -> bool:
    """Whether a cell's colour is the theme's error colour (blended a little, as Textual
    draws it over a background) or plainly red."""
    if not hex_colour:
        return False
    r, g, b = Color.parse(hex_colour).rgb
    er, eg, eb = Color.parse(app.current_theme.error or "red").rgb
    near = max(abs(r - er), abs(g - eg), abs(b - eb)) <= 24
    return near or (r >= 150 and g <= 100 and b <= 120)


def unseen_errors(app: App[Any], *, focus: bool = True) -> list[str]:
    """When the screen tells the user to fix a field "marked in red", a field so marked is in
    view (text in the theme's error colour outside that sentence) and, with ``focus``, the
    focus is at it (after the user asked to go on, say)."""
    lines = screen_lines(app)
    pointing = [y for y, line in enumerate(lines) if POINTS_AT_FIELD.search(line)]
    if not pointing:
        return []
    cells = screen_cells(app)
    marked = [
        y
        for y, row in enumerate(cells)
        if y not in pointing and any(_is_red(app, c.color) and c.char.strip() for c in row)
    ]
    found = []
    if not marked:
        found.append(
            f"row {pointing[0]} says {lines[pointing[0]].strip()!r} and no field on the screen "
            "is marked"
        )
    focused = app.focused
    if not focus:
        return found
    if focused is None or focused.region.intersection(app.screen.region).area == 0:
        found.append("the focus is not on a field in view")
    elif marked and not any(focused.region.y - 3 <= y <= focused.region.bottom + 3 for y in marked):
        found.append(f"the focus ({_where(focused)}) is not at the field marked in red")
    return found

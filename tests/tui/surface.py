"""What a user can read on a screen of the TUI, checked by class of defect rather than by case.

Every check reads the rendered screen — the cells the terminal would show, with their colours,
as Textual's own screenshot renders them — and the regions of the widgets on it, never what a
widget merely holds. Each returns the defects it finds, one readable line each, so that a test
asserts ``== []`` and its failure says what a user would have met:

- :func:`cut_values`: a decision-bearing value (a number, an interval, a cost, a q-value) cut
  ("[4.8", "52.…"), wrapped inside itself ("2.7" over "5"), a gate's look parted ("look 1"
  over "of 10"), or hidden (in a box too small to
  show it, or in a table column off to the right with nothing saying so);
- :func:`cut_fields`: a form field whose value is not shown whole in its box;
- :func:`unlabelled_values`: a form field whose value is drawn with nothing saying what it is
  (its placeholder, the only label it had, gone once a value is typed);
- :func:`missing_values`: values a screen means to show that are not drawn whole on one line;
- :func:`cut_names`: names a list means to show (a model's) that are not drawn whole, read
  down its rows (a name broken over lines reads whole; "openai-compat-lla…" does not);
- :func:`cut_titles`: a box's title (which carries ids and verdicts) or a dialog cut by the
  terminal's edge;
- :func:`cut_sentences`: a heading, a sentence or a list's title (a section's) cut at the
  right edge, by an ellipsis or mid-word (its words not all drawn in its box);
- :func:`cut_messages`: a message drawn under a scrollbar ("choose at least ▄▄") or past
  the terminal's edge;
- :func:`markup_leaks`: markup (````name````, ``ALL_REASONS``) drawn as its characters.

The checks of the keys (the footer's, Help's) are in ``surface_keys.py``, those of a text
held and not drawn whole (an id, a title line) in ``surface_text.py``, those of a control's
state and a field marked in red in ``surface_controls.py``; the screen they all read is
rendered in ``rendered_screen.py``; the modules
``tests/tui/test_surface_*.py`` run them all on every screen at 80×24 and 60×20.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from itertools import pairwise
from typing import Any

from rendered_screen import _where, region_lines, screen_lines, visible_widgets
from rich.console import Console
from rich.text import Text
from surface_costs import cost_parted
from textual.app import App
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import (
    DataTable,
    Input,
    Select,
    Static,
)

from diptych.tui.widgets.fit_table import _NUMBER, INTERVAL

#: A value a decision is read from: an interval, then a plain number with a decimal point or a
#: dollar, a percent, a q-value (integers alone are counts, and counts wrap like words do).
VALUE = re.compile(rf"{INTERVAL.pattern}|[+\-−]?\$?\d[\d,]*\.\d+%?|[+\-−]?\$\d[\d,]*")
#: An interval opened and not closed on its line: "[4.8" or "[-1.04, 24".
OPEN_INTERVAL = re.compile(rf"[\[(]\s*{_NUMBER}(?:\s*,\s*(?:{_NUMBER})?)?\s*$")
#: A number clipped by an ellipsis, either side.
CLIPPED_NUMBER = re.compile(r"\d…|…\d|\d\.…")
#: The look a gate decided at, parted by a line's end: "look 1 of" over "10", "look 1" over
#: "of 10", "look" over "1/10" (read alone, "look 1" is the first of an unknown number).
LOOK_CUT = re.compile(r"\blook(?:\s+[\d,]+(?:\s+of)?)?\s*$")
LOOK_REST = re.compile(r"^\s*(?:of\s+)?[\d,]+")


def look_parted(text: str, below: str) -> bool:
    """Whether ``text`` ends in a look that ``below`` goes on with: "look 1" over "of 10", "look
    1 of" or "look" over "10". A whole design's "look 2" is whole: a number below it is not its."""
    cut = LOOK_CUT.search(text)
    if cut is None or not below:
        return False
    if cut.group(0).rstrip()[-1].isdigit():
        return re.match(r"\s*(?:of\b|/)", below) is not None
    return LOOK_REST.match(below) is not None


#: The words a screen uses to point at an invalid field.
POINTS_AT_FIELD = re.compile(r"marked in red|fields? marked|see the field", re.IGNORECASE)


# --- decision-bearing values ----------------------------------------------------------------


def cut_values(app: App[Any]) -> list[str]:
    """Decision-bearing values cut, wrapped inside themselves or hidden (module docstring)."""
    lines = screen_lines(app)
    found: list[str] = []
    for widget, region in visible_widgets(app):
        if widget.children and not isinstance(widget, DataTable):
            continue  # a container: its children are checked
        inside = region_lines(lines, widget.content_region.intersection(region))
        if isinstance(widget, DataTable):
            found += _looks_parted_in_cells(widget, inside, region.y)
        for y, text in enumerate(inside):
            where = f"{_where(widget)} row {region.y + y}"
            if OPEN_INTERVAL.search(text.rstrip()):
                found.append(f"{where}: an interval cut: {text.strip()!r}")
            if CLIPPED_NUMBER.search(text):
                found.append(f"{where}: a number cut by an ellipsis: {text.strip()!r}")
            below = inside[y + 1] if y + 1 < len(inside) else ""
            if look_parted(text.rstrip(" │┃▌▐█"), below):
                found.append(f"{where}: a look parted: {text.strip()!r} / {below.strip()!r}")
            if cost_parted(text, below):
                found.append(f"{where}: a cost parted: {text.strip()!r} / {below.strip()!r}")
            if re.search(r"[\d.]$", text) and re.match(r"[\d.]", below) and below.strip():
                found.append(
                    f"{where}: a number wrapped inside itself: {text.strip()!r} / {below.strip()!r}"
                )
        found += _hidden_in(widget, region, lines)
    return found + _squeezed_lists(app)


def _looks_parted_in_cells(table: DataTable[Any], inside: list[str], top: int) -> list[str]:
    """A gate's look parted inside a table's cell ("look" over "1/10)"): read down each
    column's own cells, since the columns right of it go on past the look on the screen's row."""
    found = []
    x = -round(table.scroll_x)
    for column in table.ordered_columns:
        width = column.get_render_width(table)
        cells = [line[max(x, 0) : x + width].strip() for line in inside]
        for y, (text, below) in enumerate(pairwise([*cells, ""])):
            if look_parted(text, below):
                where = f"{_where(table)} row {top + y}"
                found.append(f"{where}: a look parted in its cell: {text!r} / {below!r}")
        x += width
    return found


def _squeezed_lists(app: App[Any]) -> list[str]:
    """Lists and tables that hold rows and show none (the Models list at 80×24 did)."""
    found = []
    for widget in app.screen.query("DataTable, OptionList"):
        if not (widget.display and widget.visible) or not widget.is_mounted:
            continue
        if any(not a.display for a in widget.ancestors if isinstance(a, Widget)):
            continue
        held = getattr(widget, "row_count", None)
        if held is None:
            held = getattr(widget, "option_count", 0)
        header = 1 if isinstance(widget, DataTable) and widget.show_header else 0
        if held and widget.scrollable_content_region.height <= header:
            found.append(f"{_where(widget)}: holds {held} rows and shows none")
    return found


def _hidden_in(widget: Widget, region: Region, lines: list[str]) -> list[str]:
    """Values in ``widget`` that its box does not show and that no scrolling reaches."""
    if isinstance(widget, DataTable):
        return _hidden_columns(widget)
    if not isinstance(widget, Static) or widget.allow_vertical_scroll:
        return []
    if widget.region != region and any(
        isinstance(a, Widget) and a.allow_vertical_scroll for a in widget.ancestors
    ):
        return []  # partly scrolled out of a box that scrolls: the rest is a scroll away
    text = _plain(widget)
    drawn = " ".join(" ".join(region_lines(lines, region)).split())
    return [
        f"{_where(widget)}: {value!r} is held but not drawn (its box is too small)"
        for value in VALUE.findall(text)
        if isinstance(value, str) and " ".join(value.split()) not in drawn
    ]


def _plain(widget: Static) -> str:
    visual = widget.render()
    plain = getattr(visual, "plain", None)
    return plain if isinstance(plain, str) else str(visual)


def _hidden_columns(table: DataTable[Any]) -> list[str]:
    """Columns that lie right of what the table shows: a scrollbar under the table says that
    there is more, but not which value of the row a decision needed."""
    room = table.scrollable_content_region.width
    x, out = 0, []
    for column in table.ordered_columns:
        x += column.get_render_width(table)
        if x > room + table.scroll_x:
            out.append(f"{_where(table)}: the column {column.label.plain!r} is off screen")
    return out


def cut_fields(app: App[Any]) -> list[str]:
    """Form fields whose value is not drawn whole on one line of their box (an input showing
    "smoll" of "smollm2", a choice wrapped as "identiti" over "es")."""
    lines = screen_lines(app)
    found = []
    for widget, region in visible_widgets(app):
        value = _field_value(widget)
        if not value:
            continue
        inside = region_lines(lines, region)
        if not any(value in line for line in inside):
            drawn = [line.strip() for line in inside]
            found.append(f"{_where(widget)}: {value!r} is drawn as {drawn!r}")
    return found


def unlabelled_values(app: App[Any]) -> list[str]:
    """Form fields whose value is drawn with no label to say what it is: a field labelled only
    by its placeholder shows, once a value is typed, the value alone ("10" on a line of its
    own, the placeholder "enough at ± …" gone). A label is the field's border title, a word
    drawn on the field's row left of it, or a ``Label`` just before it in its container."""
    from textual.widgets import Label

    lines = screen_lines(app)
    found = []
    for widget, region in visible_widgets(app):
        if not isinstance(widget, Input) or not widget.value or widget.border_title:
            continue
        siblings = list(widget.parent.children) if widget.parent is not None else []
        at = siblings.index(widget)
        if at > 0 and isinstance(siblings[at - 1], Label) and siblings[at - 1].display:
            continue
        left = re.sub(r"[│┃█▀▄▐▌]", " ", lines[region.y][: region.x])
        if not re.search(r"[A-Za-z]{3,}", left):
            drawn = region_lines(lines, region)[:1]
            found.append(f"{_where(widget)}: {widget.value!r} is drawn with no label: {drawn!r}")
    return found


def _field_value(widget: Widget) -> str | None:
    if isinstance(widget, Input):
        return widget.value
    if isinstance(widget, Select) and widget.value is not Select.NULL:
        return next((str(p) for p, v in widget._options if v == widget.value), None)
    return None


def missing_values(lines: list[str], values: Iterable[str]) -> list[str]:
    """The ``values`` that are not drawn whole on one line of the screen."""
    return [f"{v!r} is not on the screen whole" for v in values if not any(v in ln for ln in lines)]


def cut_names(app: App[Any], widget: Widget, names: Iterable[str]) -> list[str]:
    """The ``names`` that ``widget`` (a list) does not draw whole: its rows are read top to
    bottom, each without its tick box or the indent under one, and joined, so that a name
    broken over lines reads whole and one cut by an ellipsis or the list's edge does not."""
    region = widget.scrollable_content_region
    rows = region_lines(screen_lines(app), region)
    text = "".join(re.sub(r"^\s*(\[.\]\s)?", "", row).rstrip() for row in rows)
    return [f"{_where(widget)}: {name!r} is not drawn whole: {rows!r}" for name in names
            if name not in text]  # fmt: skip


def cut_titles(app: App[Any]) -> list[str]:
    """Box titles (border titles carry an audit's id, a run's verdict) drawn cut with an
    ellipsis, and widgets of a dialog drawn past the terminal's right edge."""
    found = []
    lines = screen_lines(app)
    width = app.size.width
    for widget, region in visible_widgets(app):
        rows = {"title": widget.region.y, "subtitle": widget.region.bottom - 1}
        for name, title in (("title", widget.border_title), ("subtitle", widget.border_subtitle)):
            if not title or not widget.styles.border_top[0]:
                continue
            plain = Text.from_markup(title).plain if isinstance(title, str) else title.plain
            y = rows[name]
            # A title scrolled out of its container's view (a table under the body's top
            # edge) is not drawn, so not cut: only a title row in view is read.
            in_view = region.y <= y < min(region.bottom, len(lines))
            if in_view and " ".join(plain.split()) not in " ".join(lines[y].split()):
                found.append(f"{_where(widget)}: its {name} {plain!r} is cut: {lines[y].strip()!r}")
        if isinstance(widget, Static) and TITLE_ID.search(widget.id or ""):
            plain = " ".join(_plain(widget).split())
            drawn = " ".join(" ".join(region_lines(lines, region)).split())
            if plain and plain not in drawn:
                found.append(f"{_where(widget)}: {plain!r} is drawn as {drawn!r}")
        # A box the screen itself lays out (a dialog's frame) past the edge: its end is lost.
        if widget.parent is app.screen and widget.region.x + widget.outer_size.width > width:
            found.append(f"{_where(widget)}: drawn past the right edge at {width} columns")
    return found


def cut_sentences(app: App[Any]) -> list[str]:
    """Headings and sentences cut at the right edge of their box: a row of a list (a
    section's title) or of a line of text that ends in an ellipsis its text does not have,
    and a line of text wholly in view whose words are not all drawn (cut mid-word)."""
    from textual.widgets import Input, OptionList
    from textual.widgets._toast import Toast

    lines = screen_lines(app)
    found = []
    for widget, region in visible_widgets(app):
        if isinstance(widget, Input) and widget.placeholder and not widget.value:
            # An empty field's hint is drawn clipped at the box's edge, with no ellipsis.
            if widget.region == region:
                rows = region_lines(lines, widget.content_region.intersection(region))
                drawn = " ".join(" ".join(rows).split())
                if " ".join(widget.placeholder.split()) not in drawn:
                    hint = widget.placeholder
                    found.append(f"{_where(widget)}: the hint {hint!r} is drawn as {drawn!r}")
            continue
        if isinstance(widget, OptionList):
            prompts = [widget.get_option_at_index(i).prompt for i in range(widget.option_count)]
            rows = region_lines(lines, widget.scrollable_content_region.intersection(region))
            for row in rows:
                if row.rstrip().endswith("…") and not any("…" in str(p) for p in prompts):
                    found.append(f"{_where(widget)}: a title cut: {row.strip()!r}")
            # A title wrapped over lines whose last lines lie under the box's edge: its first
            # line reads as the whole title ("(cf. PST Tables 14" without its end).
            lines_of = widget._lines
            top, height = widget.scroll_offset.y, widget.scrollable_content_region.height
            last = top + height - 1
            if 0 <= last < len(lines_of) - 1 and lines_of[last][0] == lines_of[last + 1][0]:
                cut = str(prompts[lines_of[last][0]])
                found.append(f"{_where(widget)}: the title {cut!r} is cut at the box's edge")
            continue
        if not isinstance(widget, Static) or isinstance(widget, Toast) or widget.children:
            continue
        plain = getattr(widget.render(), "plain", None)
        if not isinstance(plain, str) or not plain.strip():
            continue
        rows = region_lines(lines, widget.content_region.intersection(region))
        if any(r.rstrip().endswith("…") for r in rows) and "…" not in plain:
            found.append(f"{_where(widget)}: cut by an ellipsis: {[r.strip() for r in rows]!r}")
            continue
        # Wholly in view (not partly scrolled out of a box that scrolls): every word drawn.
        if widget.region == region and widget.content_region.height >= len(plain.splitlines()):
            drawn = " ".join(" ".join(rows).split())
            if " ".join(plain.split()) not in drawn:
                found.append(f"{_where(widget)}: {plain.strip()!r} is drawn as {drawn!r}")
    return found


#: The glyphs Textual draws a scrollbar's thumb and track ends with (and a tall border's).
SCROLLBAR_GLYPHS = "▁▂▃▄▅▆▇█▀▔▐▌▏▎▍▋▊▉"
#: The ids of a screen's messages: a field's error, a hint, a status line.
MESSAGE_ID = re.compile(r"error|message|hint|status|warning")
#: A run of text running into such glyphs: "choose at least ▄▄".
TEXT_INTO_GLYPH = re.compile(rf"\w[^\w{SCROLLBAR_GLYPHS}]?[{SCROLLBAR_GLYPHS}]")


def cut_messages(app: App[Any]) -> list[str]:
    """Messages (a line of text: a field's error, a hint) drawn under a scrollbar, which
    hides their end ("Models — choose at least ▄▄"), laid out past the terminal's right
    edge, or (a message by its id) scrolled half out of its pane. The widget's whole box is
    read, not the part its container shows: the part under the container's scrollbar or
    past its edge is what the user loses."""
    from textual.widgets._toast import Toast

    lines = screen_lines(app)
    screen = app.screen.region
    found = []
    for widget, shown in visible_widgets(app):
        if not isinstance(widget, Static) or isinstance(widget, Toast) or widget.children:
            continue
        plain = getattr(widget.render(), "plain", None)
        if not isinstance(plain, str) or not plain.strip():
            continue
        # Its lines as the widget wraps them, against the columns shown of its box (a
        # container's scrollbar or the screen's edge takes the rest).
        box = widget.content_region
        room = min(shown.right, screen.right) - box.x
        if box.right > room + box.x and _widest_line(plain, box.width) > room:
            edge = "the right edge" if box.right > screen.right else "a scrollbar"
            found.append(f"{_where(widget)}: {plain.strip()!r} is cut by {edge}")
            continue
        if MESSAGE_ID.search(widget.id or "") and shown.height < widget.region.height:
            # A message scrolled half out of its pane reads as whole and is not.
            drawn = [r.strip() for r in region_lines(lines, shown)]
            found.append(
                f"{_where(widget)}: {shown.height} of its {widget.region.height} lines shown "
                f"at its pane's edge: {drawn!r}"
            )
            continue
        if any(g in plain for g in SCROLLBAR_GLYPHS):
            continue  # glyphs of its own (a bar, a swatch)
        for row in region_lines(lines, widget.region.intersection(screen)):
            if TEXT_INTO_GLYPH.search(row):
                found.append(f"{_where(widget)}: cut by a scrollbar: {row.strip()!r}")
                break
    return found


def _widest_line(plain: str, width: int) -> int:
    """The widest line of ``plain`` wrapped at ``width`` cells, as a Static wraps it."""
    console = Console(width=max(width, 1), file=io.StringIO())
    return max((line.cell_len for line in Text(plain).wrap(console, max(width, 1))), default=0)


#: The ids of the lines that title a screen (a run's id, who labels, a verdict).
TITLE_ID = re.compile(r"title|header|heading")
#: Markup of a docstring or a constant's name, drawn as it is written.
MARKUP = re.compile(r"``|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|:(?:func|class|meth):`")


def markup_leaks(lines: list[str]) -> list[str]:
    """Rows that show markup (````human:<name>````, ``ALL_REASONS``) rather than words."""
    return [
        f"row {y} shows markup: {line.strip()!r}"
        for y, line in enumerate(lines)
        if MARKUP.search(line)
    ]


def out_of_reach(app: App[Any]) -> list[str]:
    """Widgets laid out above or below a container that does not scroll (up to the nearest one
    that does): drawn nowhere, and no key brings them into view (a line under a table pushed
    below its pane, under the status line)."""
    found = []
    screen = app.screen
    for widget in screen.query("*"):
        if widget.children or not all(w.display and w.visible for w in _lineage(widget)):
            continue
        region = widget.region
        if not region.height:
            continue
        for outer in widget.ancestors:
            if outer is screen or not isinstance(outer, Widget):
                break
            if outer.styles.overflow_y in ("auto", "scroll"):
                break  # scrolled into view there
            box = outer.region
            if region.y < box.y or region.bottom > box.bottom:
                found.append(
                    f"{_where(widget)} at rows {region.y}–{region.bottom - 1} lies outside "
                    f"{_where(outer)} (rows {box.y}–{box.bottom - 1}), which does not scroll"
                )
                break
    return found


def _lineage(widget: Widget) -> list[Widget]:
    return [widget, *(w for w in widget.ancestors if isinstance(w, Widget))]

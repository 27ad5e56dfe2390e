"""What a screen of the TUI holds and does not draw whole, checked on the rendered screen (as
:mod:`surface` reads it):

- :func:`cut_ids`: an id (a run's, an image's: words joined by hyphens) cut inside a word where
  its line is too narrow for it ("occ-paired-carpenter--nur" over "se"); folded after one of
  its hyphens, read down the lines, it is whole;
- :func:`cut_text`: a widget's text not drawn whole in its box;
- :func:`split_phrases`: a title's phrase ("all reasons") parted over two rows;
- :func:`unfinished_phrases`: a phrase that stops before its noun ("e shows or hides every
  session's"), which reads as cut at the right edge however whole it is drawn;
- :func:`cut_highlighted_option`: a list's highlighted option not drawn whole;
- :func:`toasts_over`: notifications drawn over a widget (a screen's title line);
- :func:`toasts_over_figures`: notifications drawn over a figure's value and interval;
- :func:`notes_over_content`: a message (a toast, a screen's said line) drawn over a value, a
  button's label or a form field, on any screen;
- :func:`opened_scrolled`: a form screen opened with a pane scrolled down, its first field
  out of view;
- :func:`split_counts`: a count's label at one line's end, its count at the next line's start;
- :func:`split_words`: a prose word broken inside itself over two lines ("construction worke"
  over "r"), where a line may break only between words;
- :func:`read_screen`: the screen's text widget by widget, wrapped rows read on as one line;
- :func:`whole_percents`: a share drawn as a whole percent ("21%" for 21.7%);
- :func:`whole_spreads`: a ``±`` half-width drawn whole ("±11" for "±11.0");
- :func:`count_words`: a count whose noun does not agree with it ("2 run", "1 runs");
- :func:`mixed_intervals`: an interval drawn in neither of the forms every surface writes,
  the two mixed ("11.8 [−1.04 to 24.2]");
- :func:`digits_off_rule`: a figure or a q-value drawn off the rule of digits ("q = 0.00204"
  under a table whose q column says 0.002);
- :func:`cut_counts`: a number in a table's column of fixed width wider than the column, drawn
  cut ("1,21" for 1,212).
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Any

from rich.text import Text
from surface import _plain, _where, region_lines, screen_lines, visible_widgets
from textual.app import App
from textual.widget import Widget
from textual.widgets import Input, Static

from diptych.tui.widgets.whole_numbers import ID


def cut_ids(app: App[Any]) -> list[str]:
    """The ids a text on the screen holds that it draws cut inside a word: each id found in a
    text (a card, a title, a line under a table) and drawn there, whole on a row or over
    several, may break only next to one of its hyphens (or after a slash)."""
    from textual.widgets._toast import Toast

    lines = screen_lines(app)
    found = []
    for widget, region in visible_widgets(app):
        if not isinstance(widget, Static) or isinstance(widget, Toast) or widget.children:
            continue
        rows = region_lines(lines, widget.content_region.intersection(region))
        drawn = "\n".join(row.rstrip() for row in rows)
        for name in dict.fromkeys(ID.findall(_plain(widget))):
            # The id's characters in order, a line's end (and the next line's indent) allowed
            # between any two of them.
            spread = r"(?:\n[ ]*)?".join(re.escape(c) for c in name)
            match = re.search(spread, drawn)
            if match is None:
                continue  # not in view (scrolled off): nothing drawn to judge
            shown = match.group()
            pieces = [p.strip() for p in shown.split("\n")]
            if any(not (a.endswith(("-", "/")) or b.startswith("-")) for a, b in pairwise(pieces)):
                found.append(f"{_where(widget)}: the id {name!r} is cut: {pieces!r}")
    return found


def cut_text(app: App[Any], widget: Widget, lines: list[str] | None = None) -> list[str]:
    """``widget``'s text (a line that names a run and what stopping saved) not drawn whole in
    its box: its words, read down its rows, must be its whole text. ``lines``: the screen as
    :func:`screen_lines` drew it, for a caller that checks many widgets of one unchanged
    screen (drawing it is most of what a check costs)."""
    text = " ".join(_plain(widget).split()) if isinstance(widget, Static) else ""
    if lines is None:
        lines = screen_lines(app)
    drawn = " ".join(" ".join(region_lines(lines, widget.content_region)).split())
    if text and text not in drawn:
        return [f"{_where(widget)}: {text!r} is drawn as {drawn!r}"]
    return []


def split_phrases(app: App[Any], widget: Widget, between: str = " · ") -> list[str]:
    """``widget``'s phrases (a title's "0 labelled", "all reasons", parted by ``between``) not
    each drawn on one row of its box: "· all" over "reasons" reads as two things."""
    rows = [" ".join(r.split()) for r in region_lines(screen_lines(app), widget.content_region)]
    # The text as given (a widget that wraps it itself holds it as ``text``), not as wrapped.
    held = getattr(widget, "text", None)
    if isinstance(held, Text):
        text = held.plain
    else:
        text = _plain(widget) if isinstance(widget, Static) else ""
    return [
        f"{_where(widget)}: {phrase!r} is parted over rows {rows!r}"
        for phrase in (" ".join(p.split()) for ln in text.splitlines() for p in ln.split(between))
        if phrase and not any(phrase in row for row in rows)
    ]


#: Words a phrase cannot end on: a possessive waiting for its noun, an article, a preposition.
UNFINISHED = re.compile(r"(?:\w['’]s|\b(?:a|an|the|every|of|to|and|or|its|their))$", re.I)


def unfinished_phrases(widget: Widget) -> list[str]:
    """``widget``'s phrases (its lines, parted by " · ") that stop before their end: "e shows
    or hides every session's" reads as a sentence cut at the frame's edge."""
    text = _plain(widget) if isinstance(widget, Static) else ""
    phrases = [" ".join(p.split()) for line in text.splitlines() for p in line.split(" · ")]
    return [
        f"{_where(widget)}: {p!r} stops before its end" for p in phrases if UNFINISHED.search(p)
    ]


def cut_highlighted_option(app: App[Any], widget: Widget) -> list[str]:
    """The highlighted option of a list (a section's title) not drawn whole in the list's
    box, read down its rows: a title wrapped over two lines reads whole, one whose second
    line lies under the box's edge does not."""
    from textual.widgets import OptionList

    if not isinstance(widget, OptionList) or widget.highlighted is None:
        return []
    prompt = widget.get_option_at_index(widget.highlighted).prompt
    text = " ".join((prompt.plain if isinstance(prompt, Text) else str(prompt)).split())
    rows = region_lines(screen_lines(app), widget.scrollable_content_region)
    drawn = " ".join(" ".join(rows).split())
    if text not in drawn:
        return [f"{_where(widget)}: the highlighted {text!r} is drawn as {rows!r}"]
    return []


def toasts_over(app: App[Any], widget: Widget) -> list[str]:
    """Notifications drawn over ``widget`` (a screen's title line): a key pressed several
    times in a row stacks its toasts upward until they cover what the screen is about."""
    from textual.widgets._toast import Toast

    found = []
    for widget_on, region in visible_widgets(app):
        if isinstance(widget_on, Toast) and region.overlaps(widget.region):
            found.append(f"a toast is drawn over {_where(widget)}: {_plain(widget_on)!r}")
    return found


def toasts_over_figures(app: App[Any]) -> list[str]:
    """Notifications drawn over a text that holds a figure with its interval (Review's STS
    line: "37.5 [−19.7,▌ the measurement mode draws persons…"): for as long as the toast
    lasts, the value a decision rests on is not read whole."""
    from textual.widgets._toast import Toast

    from diptych.tui.widgets.fit_table import INTERVAL

    shown = list(visible_widgets(app))
    toasts = [(w, r) for w, r in shown if isinstance(w, Toast)]
    found = []
    for toast, over in toasts:
        for widget, region in shown:
            if isinstance(widget, Toast) or not isinstance(widget, Static):
                continue
            if region.overlaps(over) and INTERVAL.search(_plain(widget)):
                found.append(f"a toast is drawn over the figures of {_where(widget)}: "
                             f"{_plain(toast)!r}")  # fmt: skip
    return found


#: A place in a list of 1,000 or more ("1/1720"): the count after the slash without its
#: separators (a path's digits, "runs/2024", stand after a word and are not read as one).
BARE_POSITION = re.compile(r"(?<![\w/.:\-])\d[\d,]*/(\d{4,})(?![\w/,])")


def bare_counts(app: App[Any]) -> list[str]:
    """The counts of 1,000 or more a screen draws without thousands separators ("6560", a
    queue's "1/1720"): every count goes through the one formatter, as the CLI's and the
    report's do. Ids (a run's, a hash), years, seeds and ports are not counts and print bare."""
    from tests.support.surfaces.text import separator_problems

    found = []
    for y, line in enumerate(screen_lines(app)):
        problems = separator_problems(line)
        problems += [f"{m.group(0)!r} has no thousands separator" for m in
                     BARE_POSITION.finditer(line)]  # fmt: skip
        found += [f"row {y}: {p}" for p in problems]
    return found


def read_screen(app: App[Any]) -> list[tuple[str, str]]:
    """The screen's text as a user reads it, widget by widget (a row's end is not the next
    widget's start), each line as a reader reads on: a text's lines where the text itself
    breaks them (the widget's rows joined where it wrapped them between words, its rows
    scrolled out of view read on too), a list's options one each, a table's cells one each
    under their column's name ("level: 95%"), any other widget's rows joined where the next
    row's first word did not fit (:func:`~tests.support.surfaces.lines.read_lines`). A
    field's typed value is the user's, not the screen's, and is not read."""
    from textual.widgets import DataTable, OptionList, TextArea

    from tests.support.surfaces.lines import read_lines

    lines = screen_lines(app)
    found: list[tuple[str, str]] = []
    for widget, region in visible_widgets(app):
        if isinstance(widget, Input | TextArea) or (
            widget.children and not isinstance(widget, DataTable)
        ):
            continue  # a field, or a container (its children are read)
        if isinstance(widget, DataTable):
            read = _cells(widget)
        elif isinstance(widget, OptionList):
            read = [str(widget.get_option_at_index(i).prompt) for i in range(widget.option_count)]
        elif isinstance(widget, Static):
            # The text as given (a widget that wraps it itself holds it as ``text``).
            held = getattr(widget, "text", None)
            read = (held.plain if isinstance(held, Text) else _plain(widget)).split("\n")
        else:
            box = widget.content_region.intersection(region)
            rows = [r.rstrip(_EDGES) for r in region_lines(lines, box)]
            read = read_lines(rows, box.width)
        found += [(_where(widget), " ".join(line.split())) for line in read if line.strip()]
    return found


def _cells(table: Any) -> list[str]:
    """Each cell of ``table`` under its column's name, as its header reads over it."""
    if isinstance(getattr(table, "source", None), list):  # a FitTable: its cells unwrapped
        return [f"{header}: {cell}" for _, cells in table.source
                for header, cell in zip(table.headers, cells, strict=False)]  # fmt: skip
    out = []
    for row in table.ordered_rows:
        for column in table.ordered_columns:
            cell = table.get_cell(row.key, column.key)
            out.append(f"{column.label.plain}: {cell.plain if isinstance(cell, Text) else cell}")
    return out


def looks_in_other_words(app: App[Any]) -> list[str]:
    """A look a screen writes "look 1/10" where every other line (the CLI's, the report's, the
    screens at 80 columns) writes "look 1 of 10": one wording at every size; and a look that
    read the whole design written with the plan's batches ("look 2 of 10: the whole design"),
    which reads as if 2 of 10 batches were bought, where every surface writes "the whole design
    read at look 2" (:func:`~diptych.core.audit.sequential.look_text`)."""
    lines = enumerate(screen_lines(app))
    other = re.compile(r"\blook \d[\d,]*\s*/|\blook [\d,]+ of [\d,]+: the whole design")
    return [f"row {y}: {m.group(0)!r} for 'look 1 of 10'" for y, line in lines
            for m in other.finditer(line)]  # fmt: skip


def whole_percents(app: App[Any]) -> list[str]:
    """A share a screen draws as a whole percent ("prog 21%" for 1,424 of 6,560 where the CLI
    says "21.7%"): a percent keeps the rule of digits, as the CLI's and the report's do; a level
    someone set ("95% interval", read on into the next row where the text wrapped there) keeps
    the digits it was given."""
    from tests.support.surfaces.text import percent_problems

    return [f"{where}: {p}" for where, line in read_screen(app) for p in percent_problems(line)]


def whole_spreads(app: App[Any]) -> list[str]:
    """A ``±`` half-width drawn as a whole number ("±11" for "±11.0"), off the rule of digits."""
    from tests.support.surfaces.text import spread_problems

    return [f"{where}: {p}" for where, line in read_screen(app) for p in spread_problems(line)]


def count_words(app: App[Any]) -> list[str]:
    """A count drawn with a noun that does not agree with it ("2 run", "1 runs"), ``inf`` or
    ``nan`` drawn: read as the CLI's printed text is, on the line a user reads (a count ending
    one line and a noun starting the next are not one phrase unless the widget wrapped the
    text there). A look drawn "look 1/10" is left to :func:`looks_in_other_words`."""
    from tests.support.surfaces.text import word_problems

    return [f"{where}: {p}" for where, line in read_screen(app) for p in word_problems(line)
            if "for “look 1 of 10”" not in p]  # fmt: skip


#: A table's column of p- or q-values, read "q (BH, held-out): 0.002": three decimals.
_P_COLUMN = re.compile(r"^[pq](?:-value)?\b")


def digits_off_rule(app: App[Any]) -> list[str]:
    """A figure drawn off the rule of digits the report and the CLI print by (one decimal from
    10 up, two below; a p- or q-value three, "< 0.001" below that): one figure reads the same
    digits in a table's cell and in the sentence under it ("0.002" and "q = 0.00204" are not
    one q-value). A table's cell is read with its column's name."""
    from tests.support.surfaces.text import digit_problems

    found = []
    for where, line in read_screen(app):
        header, _, cell = line.partition(": ")
        column = "q" if cell and _P_COLUMN.match(header) else ""
        found += [f"{where}: {p}" for p in digit_problems(cell if column else line, column)]
    return found


def mixed_intervals(app: App[Any]) -> list[str]:
    """An interval drawn "[−1.04 to 24.2]", where the report, the CLI and the other screens
    write "[−1.04, 24.2]" beside a figure or "−1.04 to 24.2" in a sentence."""
    from tests.support.surfaces.whole_intervals import interval_form_problems

    return [
        f"{where}: {p}" for where, line in read_screen(app) for p in interval_form_problems(line)
    ]


def figures_and_counts(app: App[Any]) -> list[str]:
    """The figures and counts a screen draws read by the rule of digits and of nouns:
    :func:`whole_percents`, :func:`whole_spreads`, :func:`count_words` (and
    :func:`bare_counts` for thousands separators, which ``steps.surface`` runs too), and its
    intervals by their forms (:func:`mixed_intervals`)."""
    return whole_percents(app) + whole_spreads(app) + count_words(app) + mixed_intervals(app)


#: The labels a screen counts by (a run's outcomes, its people flagged, a plan's trials and
#: requests): each is read with the count beside it, on the same line.
COUNT_LABELS = ("done", "refused", "failed", "pending", "not bought", "flagged")
_SPLIT_LABEL = re.compile(r"(?:^|[\s·,(])(" + "|".join(COUNT_LABELS) + r")\s*$")
_LEADING_COUNT = re.compile(r"^\s*[\d,]+(?![\w])")


def split_counts(app: App[Any]) -> list[str]:
    """A count label drawn at the end of one line of a widget and its count at the start of
    the next ("… pending 5,904 · flagged" / "0"): read alone, neither says anything."""
    lines = screen_lines(app)
    found = []
    for widget, region in visible_widgets(app):
        if not isinstance(widget, Static):
            continue
        rows = [row.rstrip(" │┃▌▐█") for row in region_lines(lines, region)]
        for y, (this, nxt) in enumerate(pairwise(rows)):
            label = _SPLIT_LABEL.search(this)
            if label and _LEADING_COUNT.match(nxt.lstrip(" │┃▌▐█")):
                found.append(f"{_where(widget)} row {region.y + y}: {label.group(1)!r} at the "
                             f"line's end, its count on the next")  # fmt: skip
    return found


def split_counts_at_any_width(text: Text, widths: range = range(24, 81)) -> list[str]:
    """:func:`split_counts` on ``text`` as a :class:`WholeNumbers` draws it at every width of
    ``widths``: a line whose counts may part from their labels at some terminal width, not
    only the test's."""
    from diptych.tui.widgets.whole_numbers import wrap_whole

    found = []
    for width in widths:
        rows = [row.rstrip() for row in wrap_whole(text, width).plain.split("\n")]
        for this, nxt in pairwise(rows):
            label = _SPLIT_LABEL.search(this)
            if label and _LEADING_COUNT.match(nxt):
                found.append(f"at {width} columns: {this!r} / {nxt!r}")
    return found


def notes_over_content(app: App[Any]) -> list[str]:
    """Messages drawn over what the screen holds: a toast (or a screen's own said line) whose
    cells overlap a value, a button's label, a form field or any other widget with something
    drawn in it. For as long as the message lasts, that is not read ("Start", "Back" cut to
    "t", "k"; a run's counts under "… is not running")."""
    from textual.scrollbar import ScrollBar, ScrollBarCorner
    from textual.widgets import DataTable
    from textual.widgets._toast import Toast, ToastRack

    from diptych.tui.widgets.said import SaidLine

    shown = list(visible_widgets(app))
    notes = [(w, r) for w, r in shown if isinstance(w, Toast | SaidLine)]
    found = []
    for note, over in notes:
        for widget, region in shown:
            if isinstance(widget, Toast | ToastRack | SaidLine | ScrollBar | ScrollBarCorner):
                continue
            if note in widget.ancestors or widget in note.ancestors:
                continue
            if widget.children and not isinstance(widget, DataTable):
                continue  # a container: its children are what is drawn
            if isinstance(widget, Static) and not _plain(widget).strip():
                continue  # nothing drawn there
            if region.overlaps(over):
                found.append(f"{type(note).__name__} {_plain(note)!r} is drawn over "
                             f"{_where(widget)}")  # fmt: skip
    return found


def opened_scrolled(app: App[Any]) -> list[str]:
    """A screen's scrolled panes not at their top, and its first field out of view, as the
    screen opens: the user reads a form from its first field ("Models — choose at least" cut
    at the pane's top, the Probe field above it, unseen)."""
    from textual.containers import ScrollableContainer

    screen = app.screen
    found = [
        f"{_where(pane)} opens scrolled down {pane.scroll_y:g} rows"
        for pane in screen.query(ScrollableContainer)
        if pane.display and pane.scroll_y > 0
    ]
    fields = [w for w in screen.focus_chain if w.focusable]
    if fields:
        first = fields[0]
        if not screen.region.contains_region(first.region) or first.region.area == 0:
            found.append(f"the first field, {_where(first)}, is not in view")
        elif not any(first is w for w, _ in visible_widgets(app)):
            found.append(f"the first field, {_where(first)}, is not drawn")
    return found


#: A word of prose, as a line's last and the next line's first.
_LAST_WORD = re.compile(r"([A-Za-z]+)$")
_FIRST_WORD = re.compile(r"^(?:\[.\]\s)?\s*([A-Za-z]+)")
#: What stands at a row's ends that is not text: frames, scrollbars, the list's indent.
_EDGES = " │┃▌▐█▊▎▁▂▃▄▅▆▇▀"


def split_words(app: App[Any]) -> list[str]:
    """Prose words drawn broken inside themselves over two rows of a widget ("genera" over
    "ted"): the word a row ends with and the one the next starts with make a word of the
    widget's text together, and one of them alone is none. A text (a Static's) or a list (its
    options) wraps between words; only a word wider than its line may fold."""
    from textual.widgets import OptionList

    lines = screen_lines(app)
    found = []
    for widget, region in visible_widgets(app):
        if isinstance(widget, OptionList):
            held = " ".join(str(widget.get_option_at_index(i).prompt)
                            for i in range(widget.option_count))  # fmt: skip
        elif isinstance(widget, Static) and not widget.children:
            held = _plain(widget)
        else:
            continue
        words = {w.lower() for w in re.findall(r"[A-Za-z]+", held)}
        rows = [
            r.strip(_EDGES) for r in region_lines(lines, widget.content_region.intersection(region))
        ]
        for y, (this, nxt) in enumerate(pairwise(rows)):
            head, tail = _LAST_WORD.search(this), _FIRST_WORD.match(nxt)
            if head is None or tail is None:
                continue
            a, b = head.group(1).lower(), tail.group(1).lower()
            if a + b in words and (a not in words or b not in words):
                found.append(f"{_where(widget)} row {region.y + y}: {a + b!r} broken as "
                             f"{this.strip()!r} / {nxt.strip()!r}")  # fmt: skip
    return found


#: A cell that is a number: a count, a share, a figure ("1,212", "10%", "−3.45").
NUMBER_CELL = re.compile(r"[−\-+]?\d[\d,]*(\.\d+)?%?")


def cut_counts(app: App[Any]) -> list[str]:
    """Numbers in a table's column of fixed width wider than the column (of any row, shown
    or scrolled to): the table draws them cut, and a count cut reads as another ("1,21" for
    1,212)."""
    from rich.cells import cell_len
    from textual.widgets import DataTable

    found = []
    for table in app.screen.query(DataTable):
        for column in table.ordered_columns:
            if column.auto_width:
                continue  # as wide as its widest cell
            for row in table.ordered_rows:
                cell = table.get_cell(row.key, column.key)
                text = cell.plain if isinstance(cell, Text) else str(cell)
                if NUMBER_CELL.fullmatch(text.strip()) and cell_len(text.strip()) > column.width:
                    found.append(
                        f"{_where(table)} column {column.label.plain!r}: {text.strip()!r} in "
                        f"{column.width} cells"
                    )
    return found

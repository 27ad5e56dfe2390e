"""The sections of the Run-detail screen: the headline figures with their intervals, each table
of the analysis (its intervals named under it where they need a name), the figures drawn in the
terminal and the probe's notes."""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any, cast

from PIL import Image as PILImage
from rich.text import Text
from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from diptych.core.metrics.uncertainty.ppi.estimate import rests_on
from diptych.core.probe import ProbeResult, Table
from diptych.core.report.charts import charts_of
from diptych.core.report.formatting import (
    HEADLINE_COLUMNS,
    counted,
    floor_note,
    marked_interval,
    observations,
    resampled_count,
)
from diptych.core.report.missing_intervals import marked_rows
from diptych.core.report.quick_look import QUICK_LOOK_MARK, quick_look
from diptych.tui.formatting import (
    intervals_line,
    narrow_floor_note,
    number,
    quick_look_said,
    short_name,
)
from diptych.tui.widgets.fit_table import FitTable
from diptych.tui.widgets.images import image_widget_class

#: Rows shown per table; the report has them all.
MAX_ROWS = 500
#: Under this many columns a gate's interval is named in fewer words, as on the Review screen.
NARROW = 80


def table_widget(table: Table, widget_id: str) -> Widget:
    """A table of the analysis, with the columns meant for a terminal, fitted to its width;
    a missing interval marked "—*" and under the table why, in the report's words, and the
    name of its intervals where they need one (a design stopped early)."""
    headers = table.terminal_columns or {c: c for c in table.columns}
    keep = [table.columns.index(c) for c in headers if c in table.columns]
    marked, why = marked_rows(table, keep)
    rows = [[number(row[i]) for i in keep] for row in marked[:MAX_ROWS]]
    cells = [headers[table.columns[i]] for i in keep]
    lines = [
        (intervals_line(table.interval_name) if table.interval_name else "", "intervals"),
        (why, "dashes"),
    ]
    if not any(line for line, _ in lines):
        return FitTable(cells, rows, id=widget_id, zebra_stripes=True)
    fitted = FitTable(cells, rows, id=f"{widget_id}-rows", zebra_stripes=True)
    said = [Static(Text(line, style="dim"), classes=kind) for line, kind in lines if line]
    # The table scrolls in the room the lines under it leave: they stay in the pane.
    return Vertical(fitted, *said, id=widget_id, classes="named-table")


def numbers_rows(
    result: ProbeResult, narrow: bool, observation: str = "observation"
) -> list[tuple[str | None, list[str]]]:
    """The headline figures' rows: a gate's interval named as `diptych show` names it, or,
    ``narrow`` (under 80 columns), in the Review screen's fewer words ("95% anytime-valid,
    look 1 of 10"), so that a figure's row keeps to a few lines of a short pane. A quick look's
    interval is marked (:data:`QUICK_LOOK_MARK`), its words said under the table; ``n`` counts
    ``observation``s ("1,600 prompts") and the last column what the interval resamples, as
    ``diptych show`` has them."""
    rows: list[tuple[str | None, list[str]]] = []
    for name, num in result.numbers.items():
        quick = bool(quick_look(num)) and not num.get("interval_name")
        named = num.get("interval_name")
        if narrow and isinstance(named, str):
            num = {**num, "interval_name": short_name(named)}
        # A figure with no interval says why in `diptych show`'s words: "no interval (…)".
        shown = marked_interval(num)
        shown += f" {QUICK_LOOK_MARK}" if quick else ""
        n = observations(num, observation) or number(num.get("n"))
        cells = [name, number(num.get("value")), shown, n, resampled_count(num)]
        rows.append((name, cells))
    return rows


def floor_line(numbers: Mapping[str, Mapping[str, Any]]) -> str:
    """What the mark of an interval at its floor means, under the headline figures: in one
    line of a 60-column pane, so its pairings are counted and `diptych show` says the rest."""
    return narrow_floor_note(numbers)


def numbers_widget(
    result: ProbeResult, narrow: bool = False, observation: str = "observation"
) -> Vertical:
    """Headline figures: a long name wraps, the value and its interval stay whole; an
    interval that fell to its floor is marked, and what the mark means is said in a line
    under the table (`diptych show` says it at length); a quick look is marked, and its
    words said whole under the table, wrapped."""
    table = FitTable(list(HEADLINE_COLUMNS), id="section-numbers")
    table.source = numbers_rows(result, narrow, observation)
    said: list[Widget] = []
    if floor_note(result.numbers):
        # One line, as Review's: the table's rows keep the room (a 60×20 terminal showed one).
        said.append(Static(Text(floor_line(result.numbers), style="dim"), id="numbers-floor"))
    quick = quick_look_said(result.numbers)
    if quick:
        # Not dim: it says the figures above decide nothing.
        said.append(Static(Text("\n".join(quick), style="yellow"), id="numbers-quick-look"))
    return Vertical(table, *said, id="section-headline")


def figures_widget(result: ProbeResult) -> VerticalScroll:
    """The report's figures drawn in the terminal (Sixel, Kitty or half blocks, as the
    terminal allows), each under its title with its caption."""
    children: list[Widget] = []
    if not result.figures:
        # The report draws charts of the tables and headline figures all the same: say so,
        # so that its figures/ folder is no surprise.
        charts = len(charts_of(result, "run"))
        drawn = f"; its report draws {counted(charts, 'chart')} of its numbers" if charts else ""
        children.append(Static(Text(f"this analysis has no figures{drawn}", style="dim")))
    image_class = image_widget_class()
    for figure in result.figures:
        children.append(Static(Text(figure.title, style="bold"), classes="figure-title"))
        with PILImage.open(io.BytesIO(figure.png)) as opened:
            picture = opened.convert("RGB")
        # textual-image's widgets take the picture as their first argument.
        children.append(cast(Any, image_class)(picture, classes="figure-image"))
        if figure.caption:
            children.append(Static(Text(figure.caption, style="dim"), classes="figure-caption"))
    if result.figures:
        # Only where there is a figure to write: the report of a run without one has none.
        children.append(
            Static(Text("w writes the report with these figures to a directory", style="dim"))
        )
    return VerticalScroll(*children, id="section-figures")


def notes_text(result: ProbeResult, flagged: int) -> Text:
    text = Text()
    if result.summary:
        text.append(result.summary + "\n\n")
    # What the prediction-powered figures rest on: as 'diptych show' and the report say it.
    lines = rests_on(result.data)
    if lines:
        text.append("What the prediction-powered figures rest on\n", style="bold")
        for line in lines:
            text.append(f"• {line}\n")
        text.append("\n")
    text.append(f"{flagged} items flagged for review", style="bold")
    text.append(" (r opens the Review screen)\n", style="dim")
    for note in result.notes:
        text.append(f"\n• {note}")
    return text

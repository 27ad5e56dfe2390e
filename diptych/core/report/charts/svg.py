"""A forest plot drawn as self-contained SVG, in one of two layouts.

``wide`` (680 px): labels in a column left of the plot, the classic forest plot; it prints on
A4 at its own size (the page's text column is 688 CSS px), so its 12 px text stays 9 pt.
``narrow`` (360 px): each row's label on a line of its own above its intervals, so that the
plot spans a phone's whole width; a page shows it when the window is too narrow for the wide
one, and its text keeps 12 px on a 390 px phone, where the wide layout would shrink to 6 px.

Text is laid out from an estimate of each glyph's width (generous: DejaVu Sans, the widest
common fallback), long labels wrap rather than run into the plot, and tick labels thin out
until they have room: no two texts of a chart overlap, which the report's browser test checks
on the rendered page.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal
from xml.sax.saxutils import escape

from diptych.core.report.charts.model import Chart, ChartPoint
from diptych.core.report.formatting import figure_text, minus

Layout = Literal["wide", "narrow"]

#: The text size of every chart text, in the SVG's own units (px at its natural size).
FONT = 12.0
LINE = 15.0
#: Marker and line style per series, told apart without colour.
STYLES = (
    {"marker": "circle", "fill": "#111", "dash": ""},
    {"marker": "square", "fill": "#fff", "dash": "4 3"},
    {"marker": "triangle", "fill": "#666", "dash": "1 2"},
)
#: Width of each layout, and the widest a row label may wrap to (lines).
WIDTHS: dict[str, float] = {"wide": 680.0, "narrow": 360.0}
MAX_LABEL_LINES = 3
_NARROW_GLYPHS = frozenset("iljtfr.,:;'|!()[] ")
_WIDE_GLYPHS = frozenset("mwMW@%—−")


def text_width(text: str, size: float = FONT) -> float:
    """An upper estimate of ``text``'s width at ``size`` px in a sans-serif face."""
    total = 0.0
    for ch in text:
        if ch in _NARROW_GLYPHS:
            total += 0.36
        elif ch in _WIDE_GLYPHS:
            total += 0.95
        elif ch.isupper() or ch.isdigit():
            total += 0.7
        else:
            total += 0.62
    return total * size


def wrap(text: str, width: float, max_lines: int = MAX_LABEL_LINES) -> list[str]:
    """``text`` in lines no wider than ``width`` (words kept whole where they fit; a word
    wider than a line is cut); past ``max_lines`` the last line ends in an ellipsis."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        trial = f"{current} {word}" if current else word
        if text_width(trial) <= width:
            current = trial
            continue
        if current:
            lines.append(current)
        while text_width(word) > width:
            cut = max(1, int(len(word) * width / text_width(word)) - 1)
            lines.append(word[:cut])
            word = word[cut:]
        current = word
    if current:
        lines.append(current)
    if len(lines) > max_lines:
        last = lines[max_lines - 1]
        while last and text_width(last + "…") > width:
            last = last[:-1]
        lines = [*lines[: max_lines - 1], last + "…"]
    return lines or [""]


def ticks(low: float, high: float) -> list[float]:
    span = high - low
    if span <= 0:
        return [low]
    raw = span / 5
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step) * step
    out = []
    tick = first
    while tick <= high + 1e-9:
        out.append(round(tick, 10))
        tick += step
    return out


def _thinned(values: list[float], x_of: dict[float, float]) -> list[float]:
    """Every other tick dropped until neighbouring labels keep a gap between them."""
    shown = values
    while len(shown) > 2:
        gaps = [
            x_of[b] - x_of[a] - (text_width(f"{a:g}") + text_width(f"{b:g}")) / 2
            for a, b in zip(shown, shown[1:], strict=False)
        ]
        if min(gaps) >= 8:
            break
        shown = shown[::2]
    return shown


def _marker(style: dict[str, str], x: float, y: float) -> str:
    fill = style["fill"]
    if style["marker"] == "square":
        return (
            f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="{fill}" '
            'stroke="#111" stroke-width="1.5"/>'
        )
    if style["marker"] == "triangle":
        return (
            f'<polygon points="{x:.1f},{y - 5:.1f} {x - 5:.1f},{y + 4:.1f} '
            f'{x + 5:.1f},{y + 4:.1f}" fill="{fill}" stroke="#111"/>'
        )
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{fill}" stroke="#111"/>'


def _text(x: float, y: float, text: str, anchor: str = "start", extra: str = "") -> str:
    align = f' text-anchor="{anchor}"' if anchor != "start" else ""
    return f'<text x="{x:.1f}" y="{y:.1f}"{align} fill="#111"{extra}>{escape(text)}</text>'


@dataclass
class _Frame:
    """Where things go: the plot's x range and the value range it maps."""

    x0: float
    x1: float
    low: float
    high: float

    def x(self, v: float) -> float:
        clipped = min(max(v, self.low), self.high)
        return self.x0 + (clipped - self.low) / (self.high - self.low) * (self.x1 - self.x0)


def _value_range(chart: Chart) -> tuple[float, float]:
    if chart.scale is not None:
        return chart.scale
    values = [
        v
        for r in chart.rows
        for p in r.points
        for v in (p.value, p.low if p.has_interval else None, p.high if p.has_interval else None)
        if v is not None and math.isfinite(v)
    ]
    if chart.reference is not None:
        values.append(chart.reference)
    low, high = (min(values), max(values)) if values else (-1.0, 1.0)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    if chart.limits is not None:
        low, high = max(low, chart.limits[0]), min(high, chart.limits[1])
    pad = (high - low) * 0.04
    return low - pad, high + pad


def _legend(series: Sequence[str], x0: float, x1: float, y: float) -> tuple[list[str], float]:
    """The series' markers and names from ``x0``, onto a new line where one would pass
    ``x1``; the parts and the baseline of the last line."""
    out: list[str] = []
    lx = x0
    for i, name in enumerate(series):
        need = 16 + text_width(name)
        if lx > x0 and lx + need > x1:
            lx, y = x0, y + LINE
        out.append(_marker(STYLES[i % len(STYLES)], lx + 5, y - 4))
        out.append(_text(lx + 14, y, name))
        lx += need + 14
    return out, y


def _interval(point: ChartPoint, style: dict[str, str], frame: _Frame, py: float) -> list[str]:
    out: list[str] = []
    if point.has_interval and point.low is not None and point.high is not None:
        dash = f' stroke-dasharray="{style["dash"]}"' if style["dash"] else ""
        out.append(
            f'<line x1="{frame.x(point.low):.1f}" y1="{py:.1f}" x2="{frame.x(point.high):.1f}" '
            f'y2="{py:.1f}" stroke="#111" stroke-width="1.5"{dash}/>'
        )
        # An interval beyond the axis' range ends in an arrow at its edge.
        for end, edge, sign in ((point.low, frame.low, -1), (point.high, frame.high, 1)):
            if (end - edge) * sign > 0:
                ex = frame.x(end)
                out.append(
                    f'<polygon points="{ex:.1f},{py:.1f} {ex - 5 * sign:.1f},{py - 3:.1f} '
                    f'{ex - 5 * sign:.1f},{py + 3:.1f}" fill="#111"/>'
                )
    if point.value is not None and math.isfinite(point.value):
        out.append(_marker(style, frame.x(point.value), py))
    return out


def _grid(frame: _Frame, reference: float | None, y0: float, y1: float) -> list[str]:
    out = [
        f'<line x1="{frame.x(t):.1f}" y1="{y0:.1f}" x2="{frame.x(t):.1f}" y2="{y1:.1f}" '
        'stroke="#ddd" stroke-width="1"/>'
        for t in ticks(frame.low, frame.high)
    ]
    if reference is not None and frame.low <= reference <= frame.high:
        rx = frame.x(reference)
        out.append(
            f'<line x1="{rx:.1f}" y1="{y0:.1f}" x2="{rx:.1f}" y2="{y1:.1f}" stroke="#111" '
            'stroke-width="1" stroke-dasharray="2 2"/>'
        )
    return out


def _tick(value: float) -> str:
    """A tick label: a whole number as it is, else as every figure prints (two decimals
    below 10)."""
    return minus(f"{value:g}") if float(value).is_integer() else figure_text(value)


def _tick_labels(frame: _Frame, y: float) -> list[str]:
    """The axis' tick labels on baseline ``y``, thinned until they have room."""
    values = ticks(frame.low, frame.high)
    x_of = {t: frame.x(t) for t in values}
    return [_text(x_of[t], y, _tick(t), "middle") for t in _thinned(values, x_of)]


def _axis(chart: Chart, frame: _Frame, y: float) -> tuple[list[str], float]:
    """Tick labels under the plot from baseline ``y``, then the axis' name wrapped to the
    plot's width; the parts and the bottom of the last line."""
    out = _tick_labels(frame, y)
    centre = (frame.x0 + frame.x1) / 2
    lines = wrap(chart.axis, frame.x1 - frame.x0, max_lines=4)
    for i, line in enumerate(lines):
        out.append(_text(centre, y + LINE * (i + 1) + 2, line, "middle"))
    return out, y + LINE * len(lines) + 8


def _points_y(n_series: int, top: float) -> list[float]:
    return [top + 8 * s for s in range(n_series)]


def _row_height(label: str, n_series: int, layout: Layout, side_w: float = 0.0) -> float:
    if layout == "wide":
        return max(12 + 8 * n_series, LINE * len(wrap(label, 200.0 - 16)) + 6)
    return LINE * len(wrap(label, WIDTHS["narrow"] - 12 - side_w)) + 8 * n_series + 8


#: Half an A4 page's text column (about 1000 CSS px) less a heading's room: a chart no taller
#: is kept whole on paper (no page is left more than half empty for it, as for any block kept
#: whole); a taller one flows over pages (:func:`strips`).
PAGE_HEIGHT = 400.0
#: What a chart takes besides its rows: legend, side label, tick labels and axis name.
_FRAME_HEIGHT = 110.0
#: Rows taller than this (half a page, most of a laptop's window, a third of a phone's) put
#: the tick labels above the plot too: a reader at its top row cannot see the axis at its foot.
#: A chart printed in strips repeats its axis on every page instead (:func:`strips`).
TOP_AXIS_FROM = PAGE_HEIGHT - _FRAME_HEIGHT


#: A chart whose rows are taller than this prints as rows that flow over pages (:func:`strips`),
#: not as one block kept whole: half a page less the chart's frame, as any block kept whole.
FLOW_FROM = PAGE_HEIGHT - _FRAME_HEIGHT


def flows(chart: Chart) -> bool:
    """Whether the chart prints as strips that flow over pages (:func:`strips`): its rows in
    the wide layout are taller than :data:`FLOW_FROM`."""
    n_series = max(1, len(chart.series))
    return sum(_row_height(r.label, n_series, "wide") for r in chart.rows) > FLOW_FROM


#: An A4 page's text column (report.css: 265 mm high) in CSS px: a part of a chart that runs
#: over pages, with its legend and axis, takes at least a quarter of it (five rows of one line
#: or more). Not a third: the chart's first part, with the section's and the run's headings
#: kept with it, would not fit under a report's Findings and Contents, and Results would leave
#: page 1 half empty to start page 2.
PRINT_COLUMN = 265 / 25.4 * 96
LEAST_PART = PRINT_COLUMN / 4


@dataclass
class Strips:
    """The wide chart cut into SVGs of one scale, for print: its head (legend, side label, tick
    labels), each row, and its foot (tick labels, axis name). The report prints them as a table
    whose head and foot Chromium repeats on every page the rows run over: the chart fills the
    page it starts on, breaks only at a page's end (between rows), and every page of it carries
    its legend and its axis. Its first and its last rows are kept together (:meth:`groups`), as
    many as take with the legend and the axis a quarter of a page (:data:`LEAST_PART`): no page
    holds a fragment of two rows of it."""

    head: str
    rows: list[str]
    foot: str
    #: Each row's height, and the head's and the foot's.
    heights: list[float] = field(default_factory=list)
    frame: float = 0.0

    def _least_rows(self, heights: list[float]) -> int:
        """How many of ``heights`` (from the first) take :data:`LEAST_PART` with the frame."""
        total = self.frame
        for n, h in enumerate(heights, start=1):
            total += h
            if total >= LEAST_PART:
                return n
        return len(heights)

    def groups(self) -> list[tuple[list[str], bool]]:
        """The rows in groups, each with whether it is kept together on one page: the first
        rows and the last that take a quarter of a page each, and the rows between, which break
        anywhere; all the rows kept together where they cannot make two such parts (the chart
        then fits a page)."""
        lead = self._least_rows(self.heights)
        tail = self._least_rows(self.heights[::-1])
        n = len(self.rows)
        if lead + tail >= n:
            return [(self.rows, True)]
        out = [(self.rows[:lead], True), (self.rows[lead : n - tail], False)]
        return [*out, (self.rows[n - tail :], True)]


def strips(chart: Chart, element_id: str) -> Strips:
    """The chart's wide layout in strips (:class:`Strips`); the head carries the chart's text
    alternative, the rows and the foot are hidden from assistive technology."""
    width = WIDTHS["wide"]
    series = chart.series
    n_series = max(1, len(series))
    side_w = (max(text_width(chart.side_label), *(text_width(r.side) for r in chart.rows)) + 12
              if chart.side_label else 0.0)  # fmt: skip
    label_w = 200.0
    frame = _Frame(label_w, width - side_w - 14, *_value_range(chart))
    body, y = _legend(series, label_w, width - 6, 16.0)
    if chart.side_label:
        y += LINE
        body.append(_text(width - 6, y, chart.side_label, "end", ' font-weight="600"'))
    y += LINE
    body += _tick_labels(frame, y)
    head = _svg(
        element_id, width, y + 8, body,
        f'<title id="{element_id}-title">{escape(chart.title)}</title>'
        f'<desc id="{element_id}-desc">{escape(chart.alt_text())}</desc>',
    )  # fmt: skip
    rows, heights = [], []
    for i, row in enumerate(chart.rows):
        h = _row_height(row.label, n_series, "wide")
        heights.append(h)
        lines = wrap(row.label, label_w - 16)
        ys = _points_y(n_series, h / 2 - 4 * (n_series - 1))
        first = h / 2 - LINE * (len(lines) - 1) / 2 + 4
        out = [f'<rect x="0" y="0" width="{width:.0f}" height="{h:.1f}" fill="#f3f3f3"/>'] if (
            i % 2 == 0) else []  # fmt: skip
        out += _grid(frame, chart.reference, 0.0, h)
        out += [_text(label_w - 8, first + LINE * k, t, "end") for k, t in enumerate(lines)]
        for point in row.points:
            s = series.index(point.series)
            out += _interval(point, STYLES[s % len(STYLES)], frame, ys[s])
        if row.side:
            out.append(_text(width - 6, h / 2 + 4, row.side, "end"))
        rows.append(_svg("", width, h, out))
    axis, height = _axis(chart, frame, 14.0)
    return Strips(head, rows, _svg("", width, height, axis), heights, y + 8 + height)


def _svg(element_id: str, width: float, height: float, body: list[str], named: str = "") -> str:
    """An SVG of the chart's text size: labelled by ``named`` (its title and description) under
    ``element_id``, else hidden from assistive technology (a strip of a chart named above)."""
    label = (f'id="{element_id}" role="img" aria-labelledby="{element_id}-title '
             f'{element_id}-desc"') if named else 'aria-hidden="true"'  # fmt: skip
    # Only the head is a chart to a reader's tools (``svg.chart``); a strip is part of it.
    kind = "chart chart-strip" if named else "chart-strip"
    return "".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" {label} viewBox="0 0 {width:.0f} '
        f'{height:.0f}" width="{width:.0f}" height="{height:.0f}" class="{kind}" '
        f'font-family="system-ui, sans-serif" font-size="{FONT:g}">', named,
        f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="#fff"/>',
        *body, "</svg>",
    ])  # fmt: skip


def draw(chart: Chart, element_id: str, layout: Layout = "wide") -> str:
    """The chart as an SVG element whose text states every number (``<title>``, ``<desc>``)."""
    width = WIDTHS[layout]
    series = chart.series
    n_series = max(1, len(series))
    side_w = (max(text_width(chart.side_label), *(text_width(r.side) for r in chart.rows)) + 12
              if chart.side_label else 0.0)  # fmt: skip
    body: list[str] = []
    if layout == "wide":
        label_w = 200.0
        frame = _Frame(label_w, width - side_w - 14, *_value_range(chart))
        legend, y = _legend(series, label_w, width - 6, 16.0)
    else:
        label_w = 0.0
        frame = _Frame(12.0, width - 12, *_value_range(chart))
        legend, y = _legend(series, 6.0, width - 6, 16.0)
    body += legend
    if chart.side_label:
        # The side column's name over its values, on a line of its own below the legend.
        y += LINE
        body.append(_text(width - 6, y, chart.side_label, "end", ' font-weight="600"'))
    heights = [_row_height(r.label, n_series, layout, side_w) for r in chart.rows]
    if sum(heights) > TOP_AXIS_FROM:
        y += LINE
        body += _tick_labels(frame, y)
    top = y + 8
    rows: list[str] = []
    y0 = top
    for i, row in enumerate(chart.rows):
        if layout == "wide":
            lines = wrap(row.label, label_w - 16)
            h = heights[i]
            ys = _points_y(n_series, y0 + h / 2 - 4 * (n_series - 1))
            first = y0 + h / 2 - LINE * (len(lines) - 1) / 2 + 4
            texts = [_text(label_w - 8, first + LINE * k, t, "end") for k, t in enumerate(lines)]
            side_y = y0 + h / 2 + 4
        else:
            lines = wrap(row.label, width - 12 - side_w)
            h = heights[i]
            texts = [_text(6, y0 + 12 + LINE * k, t) for k, t in enumerate(lines)]
            ys = _points_y(n_series, y0 + LINE * len(lines) + 6)
            side_y = y0 + 12
        if i % 2 == 0:
            rows.append(
                f'<rect x="0" y="{y0:.1f}" width="{width:.0f}" height="{h:.1f}" fill="#f3f3f3"/>'
            )
        plot_top, plot_bottom = (y0, y0 + h) if layout == "wide" else (ys[0] - 5, ys[-1] + 5)
        rows += _grid(frame, chart.reference, plot_top, plot_bottom)
        rows += texts
        for point in row.points:
            s = series.index(point.series)
            rows += _interval(point, STYLES[s % len(STYLES)], frame, ys[s])
        if row.side:
            rows.append(_text(width - 6, side_y, row.side, "end"))
        y0 += h
    axis, height = _axis(chart, frame, y0 + 14)
    head = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="{element_id}" role="img" '
        f'aria-labelledby="{element_id}-title {element_id}-desc" viewBox="0 0 {width:.0f} '
        f'{height:.0f}" width="{width:.0f}" height="{height:.0f}" class="chart chart-{layout}" '
        f'font-family="system-ui, sans-serif" font-size="{FONT:g}">',
        f'<title id="{element_id}-title">{escape(chart.title)}</title>',
        f'<desc id="{element_id}-desc">{escape(chart.alt_text())}</desc>',
        f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="#fff"/>',
    ]
    return "".join([*head, *body, *rows, *axis, "</svg>"])

"""Forest plots the report draws itself: one row per identity, question or occupation, each
figure a point with its 95% interval, as self-contained SVG.

A probe hands the report a chart as data (:class:`Chart`, kept in ``ProbeResult.data
["charts"]`` as plain dicts); where it gives none, the report reads one from the probe's widest
per-row table whose value columns carry a ``95% CI`` column beside them. The SVG is drawn in
black and greys with a distinct marker per series (filled circle, open square, filled
triangle), so a page printed in grey keeps the series apart, and it carries its own text
alternative (``<title>`` and ``<desc>`` that state every number).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any
from xml.sax.saxutils import escape

from diptych.core.probe import Figure, ProbeResult, Table

__all__ = [
    "Chart",
    "ChartPoint",
    "ChartRow",
    "chart_from_numbers",
    "chart_from_table",
    "charted",
    "charts_of",
    "plain",
]

#: The first column of a table a chart can be read from: what a row is.
ROW_KINDS = ("identity", "occupation", "scenario", "question", "query", "subject", "group")
#: How many series one chart shows, and how many rows at most.
MAX_SERIES = 2
MAX_ROWS = 60
_CI = re.compile(r"^\s*\[\s*([-−+]?(?:[\d.]+|inf))\s*,\s*([-−+]?(?:[\d.]+|inf))\s*\]\s*$")
#: Marker and line style per series, told apart without colour.
_STYLES = (
    {"marker": "circle", "fill": "#111", "dash": ""},
    {"marker": "square", "fill": "#fff", "dash": "4 3"},
    {"marker": "triangle", "fill": "#666", "dash": "1 2"},
)


def plain(value: float | None) -> str:
    """A number as a sentence prints it: one decimal from 10 up, two below; ``—`` for none."""
    if value is None or not math.isfinite(value):
        return "—" if value is None or math.isnan(value) else ("inf" if value > 0 else "-inf")
    return f"{value:,.1f}" if abs(value) >= 10 else f"{value:.2f}"


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        text = value.strip().replace("−", "-").lstrip("+")
        if text in ("inf", "-inf"):
            return float(text)
        try:
            return float(text)
        except ValueError:
            return None
    return None


def _limits(value: Any) -> tuple[float, float] | None:
    if isinstance(value, list | tuple) and len(value) == 2:
        low, high = _number(value[0]), _number(value[1])
        if low is not None and high is not None:
            return (low, high)
    return None


@dataclass
class ChartPoint:
    """One series' figure on one row: its value and 95% interval (None where there is none)."""

    series: str
    value: float | None
    low: float | None = None
    high: float | None = None

    @property
    def has_interval(self) -> bool:
        return (
            self.low is not None
            and self.high is not None
            and math.isfinite(self.low)
            and math.isfinite(self.high)
        )

    def describe(self) -> str:
        text = f"{self.series} {plain(self.value)}"
        if self.has_interval:
            text += f" (95% interval {plain(self.low)} to {plain(self.high)})"
        else:
            text += " (no interval)"
        return text


@dataclass
class ChartRow:
    label: str
    points: list[ChartPoint]
    #: A value printed beside the row (e.g. the BLS share of women in the occupation).
    side: str = ""


@dataclass
class Chart:
    """A forest plot: rows of points with intervals against one axis."""

    name: str
    title: str
    axis: str
    rows: list[ChartRow]
    #: What a row is ("identity", "question" ...), for the text alternative.
    row_kind: str = "row"
    side_label: str = ""
    reference: float | None = 0.0
    note: str = ""
    source: str = field(default="probe")
    #: The axis' range where the figure is bounded (STS: −100 to 100); intervals beyond it
    #: are drawn to its edge with an arrow, and the text alternative keeps their numbers.
    limits: tuple[float, float] | None = None

    @property
    def series(self) -> list[str]:
        return list(dict.fromkeys(p.series for r in self.rows for p in r.points))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "forest", **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Chart:
        rows = [
            ChartRow(
                label=str(r["label"]),
                side=str(r.get("side", "")),
                points=[
                    ChartPoint(
                        str(p["series"]),
                        _number(p.get("value")),
                        _number(p.get("low")),
                        _number(p.get("high")),
                    )
                    for p in r.get("points", [])
                ],
            )
            for r in data.get("rows", [])
        ]
        return cls(
            name=str(data["name"]),
            title=str(data.get("title", data["name"])),
            axis=str(data.get("axis", "")),
            rows=rows,
            row_kind=str(data.get("row_kind", "row")),
            side_label=str(data.get("side_label", "")),
            reference=_number(data.get("reference", 0.0)),
            note=str(data.get("note", "")),
            source=str(data.get("source", "probe")),
            limits=_limits(data.get("limits")),
        )

    def alt_text(self) -> str:
        """Every number of the chart in words: its text alternative."""
        head = f"Forest plot of {self.axis} by {self.row_kind}, {len(self.rows)} rows"
        if self.series:
            head += f"; series: {', '.join(self.series)}"
        rows = []
        for r in self.rows:
            text = f"{r.label}: " + "; ".join(p.describe() for p in r.points)
            if r.side and self.side_label:
                text += f"; {self.side_label} {r.side}"
            rows.append(text)
        return head + ". " + ". ".join(rows) + "."

    def svg(self, element_id: str) -> str:
        return _svg(self, element_id)


def _ticks(low: float, high: float) -> list[float]:
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


def _svg(chart: Chart, element_id: str) -> str:
    series = chart.series
    label_w, plot_w, side_w = 170.0, 430.0, 90.0 if chart.side_label else 0.0
    row_h = 12.0 + 8.0 * max(1, len(series))
    top, bottom = 34.0, 40.0
    width = label_w + plot_w + side_w + 20
    height = top + row_h * len(chart.rows) + bottom
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
    low, high = low - pad, high + pad

    def x(v: float) -> float:
        return label_w + (min(max(v, low), high) - low) / (high - low) * plot_w

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="{element_id}" role="img" '
        f'aria-labelledby="{element_id}-title {element_id}-desc" viewBox="0 0 {width:.0f} '
        f'{height:.0f}" width="{width:.0f}" height="{height:.0f}" class="chart" '
        'font-family="system-ui, sans-serif" font-size="11">',
        f'<title id="{element_id}-title">{escape(chart.title)}</title>',
        f'<desc id="{element_id}-desc">{escape(chart.alt_text())}</desc>',
        f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="#fff"/>',
    ]
    # Legend: one marker and name per series.
    lx = label_w
    for i, name in enumerate(series):
        style = _STYLES[i % len(_STYLES)]
        out.append(_marker(style, lx + 5, 14))
        out.append(f'<text x="{lx + 14:.1f}" y="18" fill="#111">{escape(name)}</text>')
        lx += 24 + 7 * len(name)
    if chart.side_label:
        out.append(
            f'<text x="{label_w + plot_w + 12:.1f}" y="{top - 6:.1f}" fill="#111" '
            f'font-weight="600">{escape(chart.side_label)}</text>'
        )
    plot_bottom = top + row_h * len(chart.rows)
    for tick in _ticks(low, high):
        tx = x(tick)
        out.append(
            f'<line x1="{tx:.1f}" y1="{top:.1f}" x2="{tx:.1f}" y2="{plot_bottom:.1f}" '
            'stroke="#ddd" stroke-width="1"/>'
        )
        out.append(
            f'<text x="{tx:.1f}" y="{plot_bottom + 14:.1f}" text-anchor="middle" '
            f'fill="#333">{tick:g}</text>'
        )
    if chart.reference is not None and low <= chart.reference <= high:
        rx = x(chart.reference)
        out.append(
            f'<line x1="{rx:.1f}" y1="{top:.1f}" x2="{rx:.1f}" y2="{plot_bottom:.1f}" '
            'stroke="#111" stroke-width="1" stroke-dasharray="2 2"/>'
        )
    out.append(
        f'<text x="{label_w + plot_w / 2:.1f}" y="{plot_bottom + 30:.1f}" text-anchor="middle" '
        f'fill="#111">{escape(chart.axis)}</text>'
    )
    for i, row in enumerate(chart.rows):
        y0 = top + i * row_h
        if i % 2 == 0:
            out.append(
                f'<rect x="0" y="{y0:.1f}" width="{width:.0f}" height="{row_h:.1f}" '
                'fill="#f3f3f3"/>'
            )
        label = row.label if len(row.label) <= 28 else row.label[:27] + "…"
        out.append(
            f'<text x="{label_w - 8:.1f}" y="{y0 + row_h / 2 + 4:.1f}" text-anchor="end" '
            f'fill="#111">{escape(label)}</text>'
        )
        for point in row.points:
            s = series.index(point.series)
            style = _STYLES[s % len(_STYLES)]
            py = y0 + 10 + 8 * s if len(series) > 1 else y0 + row_h / 2
            if point.has_interval and point.low is not None and point.high is not None:
                dash = f' stroke-dasharray="{style["dash"]}"' if style["dash"] else ""
                out.append(
                    f'<line x1="{x(point.low):.1f}" y1="{py:.1f}" x2="{x(point.high):.1f}" '
                    f'y2="{py:.1f}" stroke="#111" stroke-width="1.5"{dash}/>'
                )
                for end, edge, sign in ((point.low, low, -1), (point.high, high, 1)):
                    if (end - edge) * sign > 0:
                        ex = x(end)
                        out.append(
                            f'<polygon points="{ex:.1f},{py:.1f} {ex - 5 * sign:.1f},'
                            f'{py - 3:.1f} {ex - 5 * sign:.1f},{py + 3:.1f}" fill="#111"/>'
                        )
            if point.value is not None and math.isfinite(point.value):
                out.append(_marker(style, x(point.value), py))
        if row.side:
            out.append(
                f'<text x="{label_w + plot_w + 12:.1f}" y="{y0 + row_h / 2 + 4:.1f}" '
                f'fill="#111">{escape(row.side)}</text>'
            )
    out.append("</svg>")
    return "".join(out)


def _ci(cell: Any) -> tuple[float | None, float | None]:
    if not isinstance(cell, str):
        return None, None
    match = _CI.match(cell)
    if not match:
        return None, None
    return _number(match.group(1)), _number(match.group(2))


def _effect(row: ChartRow) -> float:
    for point in row.points:
        if point.value is not None and math.isfinite(point.value):
            return point.value
    return -math.inf


def chart_from_table(table: Table, name: str, *, any_rows: bool = False) -> Chart | None:
    """A forest plot of ``table``'s first value columns that carry a ``95% CI`` column
    beside them, one row per table row, sorted by the first series (largest first); None
    when the table has no such column or fewer than two rows. The first column must say what
    a row is (:data:`ROW_KINDS`) unless ``any_rows`` (a probe named the table for a chart)."""
    columns = [str(c) for c in table.columns]
    if not columns:
        return None
    if not any_rows and not any(columns[0].lower().startswith(k) for k in ROW_KINDS):
        return None
    pairs: list[tuple[int, int]] = []
    for j, column in enumerate(columns):
        if j > 1 and column.endswith("95% CI") and not columns[j - 1].endswith("95% CI"):
            if not columns[j - 1].startswith("%"):
                pairs.append((j - 1, j))
    # Rates (refusals, neither) are context for the figure, not the figure itself.
    figures = [vc for vc in pairs if "rate" not in columns[vc[0]].lower()]
    pairs = figures or pairs
    # The paired figure first where there is one: it is the PST's headline and the sort key.
    pairs.sort(key=lambda vc: 0 if "paired" in columns[vc[0]] else 1)
    pairs = pairs[:MAX_SERIES]
    if not pairs or len(table.rows) < 2:
        return None
    second = columns[1].lower() if len(columns) > 1 else ""
    extra_label = second in ("setting", "question", "group")
    side = next((j for j, c in enumerate(columns) if "BLS" in c and c.startswith("%")), None)
    rows: list[ChartRow] = []
    for cells in table.rows[:MAX_ROWS]:
        label = str(cells[0]) + (f" · {cells[1]}" if extra_label else "")
        points = []
        for vj, cj in pairs:
            value = _number(cells[vj])
            lo, hi = _ci(cells[cj])
            if value is not None:
                points.append(ChartPoint(columns[vj], value, lo, hi))
        if points:
            side_value = _number(cells[side]) if side is not None else None
            rows.append(
                ChartRow(label, points, side="" if side_value is None else f"{side_value:.0f}%")
            )
    if len(rows) < 2 or not any(p.has_interval for r in rows for p in r.points):
        return None
    rows.sort(key=_effect, reverse=True)
    return Chart(
        name=name,
        title=table.title,
        axis=" / ".join(
            "change, intervention − baseline (B − A)" if columns[vj] == "B − A" else columns[vj]
            for vj, _ in pairs
        ),
        rows=rows,
        row_kind=columns[0],
        side_label="%F BLS" if side is not None else "",
        note="Points are the figures, bars their 95% intervals; sorted largest first.",
        source="table",
    )


def chart_from_numbers(numbers: dict[str, Any], name: str, title: str) -> Chart | None:
    """A forest plot of the headline figures that carry a finite interval (at most
    :data:`MAX_ROWS`), in the probe's order; None when none does."""
    rows = []
    for figure, number in numbers.items():
        if not isinstance(number, dict):
            continue
        point = ChartPoint(
            "figure",
            _number(number.get("value")),
            _number(number.get("ci_low")),
            _number(number.get("ci_high")),
        )
        if point.value is not None and math.isfinite(point.value) and point.has_interval:
            rows.append(ChartRow(figure, [point]))
    if not rows:
        return None
    return Chart(
        name=name,
        title=title,
        axis="figure (each on its own scale)",
        rows=rows[:MAX_ROWS],
        row_kind="headline figure",
        note="Points are the headline figures, bars their 95% intervals, in the probe's order.",
        source="numbers",
    )


def charts_of(result: ProbeResult, prefix: str) -> list[Chart]:
    """The charts a probe gave in ``data["charts"]``, else one read from its widest table,
    else one of its headline figures; then one for each table a probe figure names (the
    figure's numbers, drawn here with their intervals), each table once."""
    given = result.data.get("charts") if isinstance(result.data, dict) else None
    out: list[Chart] = []
    if isinstance(given, list) and given:
        out = [Chart.from_dict(c) for c in given if isinstance(c, dict) and "name" in c]
    else:
        candidates: Sequence[Table] = sorted(result.tables, key=lambda t: -len(t.rows))
        for table in candidates:
            chart = chart_from_table(table, f"{prefix}-forest")
            if chart is not None:
                out = [chart]
                break
    titles = {c.title for c in out}
    tables = {t.title: t for t in result.tables}
    for figure in result.figures:
        named = tables.get(figure.table)
        if named is None or named.title in titles:
            continue
        chart = chart_from_table(named, f"{prefix}-{figure.name}", any_rows=True)
        if chart is not None:
            out.append(chart)
            titles.add(named.title)
    if not out:
        found = chart_from_numbers(result.numbers, f"{prefix}-figures", f"{result.title}: figures")
        out = [found] if found is not None else []
    return out


def charted(figure: Figure, charts: Sequence[Chart]) -> bool:
    """Whether one of ``charts`` shows ``figure``'s numbers (drawn from the table it names):
    an HTML report shows that chart and need not draw the figure."""
    return bool(figure.table) and any(c.title == figure.table for c in charts)

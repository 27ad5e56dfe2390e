"""Forest plots the report draws itself: one row per identity, question or occupation, each
figure a point with its 95% interval, as self-contained SVG.

A probe hands the report a chart as data (:class:`Chart`, kept in ``ProbeResult.data
["charts"]`` as plain dicts); where it gives none, the report reads one from the probe's widest
per-row table whose value columns carry a ``95% CI`` column beside them. The SVG is drawn in
black and greys with a distinct marker per series (filled circle, open square, filled
triangle), so a page printed in grey keeps the series apart, and it carries its own text
alternative (``<title>`` and ``<desc>`` that state every number).

This module reads charts from probe results; the chart as data is
:mod:`~diptych.core.report.charts.model` and its drawing :mod:`~diptych.core.report.charts.svg`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from diptych.core.digits import figure_text
from diptych.core.probe import Figure, ProbeResult, Table
from diptych.core.report.charts.model import Chart, ChartPoint, ChartRow
from diptych.core.report.charts.model import number as _number

# One function prints a figure everywhere in the report (findings, gates, charts, tables).
from diptych.core.report.formatting import figure_text as plain

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


#: A sentence of a table's note that names its intervals: what they resample or are over.
_NAMING_SENTENCE = re.compile(r"[^.]*\b(resampl\w*|intervals? over)\b[^.]*\.")


def _named_by(table: Table) -> str:
    """What the table's note says its intervals are, for the chart drawn from it: the bars
    are named where they are drawn, as the table names them ("" where its note does not)."""
    found = _NAMING_SENTENCE.search(table.note or "")
    return f" As its table says: {found.group(0).strip()}" if found else ""


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
                # A cell that is no interval may say why there is none ("one pair only").
                said = str(cells[cj]).strip() if lo is None or hi is None else ""
                why = "" if said in ("", "—", "-", "None") else said
                if lo is not None and hi is not None and not math.isfinite(hi - lo):
                    why = "no finite bounds"
                points.append(ChartPoint(columns[vj], value, lo, hi, why))
        if points:
            side_value = _number(cells[side]) if side is not None else None
            rows.append(
                ChartRow(
                    label, points, side="" if side_value is None else f"{figure_text(side_value)}%"
                )
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
        note="Points are the figures, bars their 95% intervals; sorted largest first."
        + _named_by(table),
        source="table",
        no_interval=f"the table “{table.title}” gives none (its note says why)"
        if table.note
        else f"the table “{table.title}” gives none",
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
    from diptych.core.report.interval_names import own_method

    # The bars named as the figures' table names them ("Jeffreys intervals of a share"; a
    # figure of a design stopped early by its name there, "95% anytime-valid interval, …").
    kinds = dict.fromkeys(
        str(numbers[r.label].get("interval_name") or own_method(numbers[r.label]))
        for r in rows[:MAX_ROWS]
    )
    return Chart(
        name=name,
        title=title,
        axis="figure (each on its own scale)",
        rows=rows[:MAX_ROWS],
        row_kind="headline figure",
        note=(
            f"Points are the headline figures, bars their 95% intervals ({'; '.join(kinds)}), "
            "in the probe's order."
        ),
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
    for chart in out:
        _reasons_from(chart, result.numbers)
    return out


def _reasons_from(chart: Chart, numbers: dict[str, Any]) -> None:
    """A point without an interval, and no reason of its own, takes the reason the probe's
    headline figure of its series gives ("one masculine identity only"), where there is one."""
    for row in chart.rows:
        for point in row.points:
            number = numbers.get(point.series)
            if point.has_interval or point.why or not isinstance(number, dict):
                continue
            if number.get("reason"):
                point.why = str(number["reason"])


def charted(figure: Figure, charts: Sequence[Chart]) -> bool:
    """Whether one of ``charts`` shows ``figure``'s numbers (drawn from the table it names):
    an HTML report shows that chart and need not draw the figure."""
    return bool(figure.table) and any(c.title == figure.table for c in charts)

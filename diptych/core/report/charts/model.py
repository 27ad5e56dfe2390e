"""What a forest plot holds, as data: rows of points with their 95% intervals.

Kept apart from :mod:`diptych.core.report.charts` (which reads charts from probe results) and
:mod:`diptych.core.report.charts.svg` (which draws them) so that both can name the same types.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from diptych.core.report.formatting import counted, why_no_interval
from diptych.core.report.formatting import figure_text as plain

__all__ = ["Chart", "ChartPoint", "ChartRow", "number", "plain"]


def number(value: Any) -> float | None:
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
        low, high = number(value[0]), number(value[1])
        if low is not None and high is not None:
            return (low, high)
    return None


@dataclass
class ChartPoint:
    """One series' figure on one row: its value and interval (None where there is none), a 95%
    one unless :attr:`interval` names another."""

    series: str
    value: float | None
    low: float | None = None
    high: float | None = None
    #: Why the point has no interval ("one prompt only"), where it has none; else the chart's
    #: :attr:`Chart.no_interval` says why.
    why: str = ""
    #: The interval's name where it is not the usual 95% one ("98.75% BH-adjusted interval":
    #: the one a decision read), so that the chart shows a figure with the interval its table
    #: gives it.
    interval: str = ""

    @property
    def has_interval(self) -> bool:
        return (
            self.low is not None
            and self.high is not None
            and math.isfinite(self.low)
            and math.isfinite(self.high)
        )

    def describe(self, why: str = "") -> str:
        """The point in words; ``why`` the chart's reason for a point without an interval,
        where the point gives none of its own."""
        text = f"{self.series} {plain(self.value)}"
        # The reason once: a point's own may already end "…: no interval".
        reason = why_no_interval(self.why or why)
        if self.has_interval:
            name = self.interval or "95% interval"
            text += f" ({name} {plain(self.low)} to {plain(self.high)})"
        else:
            text += f" (no interval: {reason})" if reason else " (no interval)"
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
    #: The drawn range of the value axis where it is fixed from outside (the parts of a chart
    #: printed over several pages share the whole chart's); None: from the chart's own values.
    scale: tuple[float, float] | None = field(default=None, compare=False)
    #: Why a point of the chart without an interval has none, where the point does not say
    #: (a chart of counts: "counts, not estimates").
    no_interval: str = ""

    @property
    def series(self) -> list[str]:
        return list(dict.fromkeys(p.series for r in self.rows for p in r.points))

    def to_dict(self) -> dict[str, Any]:
        out = {"kind": "forest", **asdict(self)}
        del out["scale"]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Chart:
        rows = [
            ChartRow(
                label=str(r["label"]),
                side=str(r.get("side", "")),
                points=[
                    ChartPoint(
                        str(p["series"]),
                        number(p.get("value")),
                        number(p.get("low")),
                        number(p.get("high")),
                        str(p.get("why", "")),
                        str(p.get("interval", "")),
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
            reference=number(data.get("reference", 0.0)),
            note=str(data.get("note", "")),
            source=str(data.get("source", "probe")),
            limits=_limits(data.get("limits")),
            no_interval=str(data.get("no_interval", "")),
        )

    def bare(self) -> list[tuple[str, str, list[str]]]:
        """The points drawn without an interval bar, by series and reason: (series, why, the
        rows' labels); a point's own reason first, else the chart's, else none ("")."""
        out: dict[tuple[str, str], list[str]] = {}
        for r in self.rows:
            for p in r.points:
                if p.value is None or not math.isfinite(p.value) or p.has_interval:
                    continue
                why = why_no_interval(p.why or self.no_interval)
                out.setdefault((p.series, why), []).append(r.label)
        return [(series, why, labels) for (series, why), labels in out.items()]

    def bare_note(self) -> str:
        """What the chart's caption says of its points without a bar, and why: "No interval
        bar for single, on every row: one prompt only." where every row of the chart has one,
        else which rows and, beyond four named, how many of the chart's ("on 12 of 40 rows
        (a, b, c, d and 8 more)"). Empty when every point has one."""
        said = []
        total = len(self.rows)
        for series, why, labels in self.bare():
            if len(labels) == total and total > 1:
                where = "on every row"
            else:
                shown = ", ".join(labels[:4])
                more = len(labels) - 4
                where = (
                    f"on {len(labels):,} of {counted(total, 'row')} ({shown} and {more:,} more)"
                    if more > 0
                    else f"on {shown}"
                )
            name = f"for {series}, " if len(self.series) > 1 else ""
            said.append(f"{name}{where}: {why or 'no reason given'}")
        return ("No interval bar " + "; ".join(said) + ".") if said else ""

    def alt_text(self) -> str:
        """Every number of the chart in words: its text alternative."""
        head = f"Forest plot of {self.axis} by {self.row_kind}, {counted(len(self.rows), 'row')}"
        if self.series:
            head += f"; series: {', '.join(self.series)}"
        rows = []
        for r in self.rows:
            text = f"{r.label}: " + "; ".join(p.describe(self.no_interval) for p in r.points)
            if r.side and self.side_label:
                text += f"; {self.side_label} {r.side}"
            rows.append(text)
        return head + ". " + ". ".join(rows) + "."

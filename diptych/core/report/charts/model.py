"""What a forest plot holds, as data: rows of points with their 95% intervals.

Kept apart from :mod:`diptych.core.report.charts` (which reads charts from probe results) and
:mod:`diptych.core.report.charts.svg` (which draws them) so that both can name the same types.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

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
    #: The drawn range of the value axis where it is fixed from outside (the parts of a chart
    #: printed over several pages share the whole chart's); None: from the chart's own values.
    scale: tuple[float, float] | None = field(default=None, compare=False)

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

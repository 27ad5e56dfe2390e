"""A chart's point drawn without an interval bar says why, beside the chart: its caption (on
screen, and under each part of a chart printed in parts) names the points and the reason, and
the report check (:func:`tests.support.surfaces.text.bare_point_problems`) fails a chart whose
bare point has no reason or whose caption says nothing of it."""

from __future__ import annotations

from diptych.core.metrics.uncertainty.resampling import Inference
from diptych.core.report.charts import Chart, ChartPoint, ChartRow
from diptych.core.report.charts.svg import draw
from diptych.plugins.probes.pst_text.figures import expected_forest
from tests.support.surfaces.text import bare_point_problems, word_problems


def _inference(value: float, low: float, high: float, reason: str | None = None) -> Inference:
    return Inference(value, low, high, 0.5, 1.0, 9.0, 10, {"prompt": 1}, "clustered", 0.0,
                     0.95, reason)  # fmt: skip


def _figure(chart: Chart, caption: str) -> str:
    return f"<figure>{draw(chart, 'c')}<figcaption>{caption}</figcaption></figure>"


def _chart(*points: ChartPoint, no_interval: str = "") -> Chart:
    rows = [ChartRow(f"row{k}", [p]) for k, p in enumerate(points)]
    return Chart("c", "Planted", "figure", rows, no_interval=no_interval)


def test_the_pst_text_single_points_of_one_prompt_say_why_on_every_row() -> None:
    """One prompt per identity: the single figure has no interval (the cluster interval's
    reason, "one prompt only: no interval"); the paired figure has its bar."""
    one = "one prompt only: no interval"
    inferences = {
        ("auditor", "paired"): _inference(29.9, -99.8, 99.9),
        ("auditor", "single"): _inference(-72.5, float("nan"), float("nan"), one),
        ("nurse", "paired"): _inference(-14.3, -59.7, 38.0),
        ("nurse", "single"): _inference(-77.5, float("nan"), float("nan"), one),
    }
    chart = expected_forest(inferences, {"auditor": "feminine", "nurse": "feminine"}, "")
    assert chart is not None
    assert chart.bare_note() == "No interval bar for single, on every row: one prompt only."
    # The text alternative says the reason once, as the caption does.
    alt = chart.alt_text()
    assert "auditor (F): paired 29.9 (95% interval −99.8 to 99.9); single −72.5 (no " \
        "interval: one prompt only); " in alt  # fmt: skip
    assert "only: no interval" not in alt and alt.count("no interval") == 2, alt
    assert word_problems(alt) == []
    assert word_problems("single 44.5 (no interval: one prompt only: no interval)") != []
    assert bare_point_problems(_figure(chart, chart.bare_note())) == []
    # The same chart with a caption that does not say it: found.
    (found,) = bare_point_problems(_figure(chart, "Points: expected STS."))
    assert "its caption says not why" in found


def test_a_bare_point_without_a_reason_is_found() -> None:
    """One point of three without an interval and no reason, on the point or the chart: its
    caption can only say "no reason given", which the check fails; the chart's own reason
    (counts, not estimates) serves every bare point."""
    points = (ChartPoint("s", 1.0, 0.5, 1.5), ChartPoint("s", 2.0), ChartPoint("s", 3.0, 2.0, 4.0))
    bare = _chart(*points)
    assert bare.bare_note() == "No interval bar on row1: no reason given."
    (found,) = bare_point_problems(_figure(bare, bare.bare_note()))
    assert "no interval bar and no reason" in found
    counted = _chart(*points, no_interval="counts, not estimates")
    assert counted.bare_note() == "No interval bar on row1: counts, not estimates."
    assert bare_point_problems(_figure(counted, counted.bare_note())) == []
    # A point's own reason ("1 identity pair") comes before the chart's.
    own = _chart(ChartPoint("s", 1.0, 0.5, 1.5), ChartPoint("s", 2.0, why="1 identity pair"),
                 no_interval="counts, not estimates")  # fmt: skip
    assert own.bare_note() == "No interval bar on row1: 1 identity pair."


def test_every_point_with_a_bar_says_nothing() -> None:
    chart = _chart(ChartPoint("s", 1.0, 0.5, 1.5), ChartPoint("s", 2.0, 1.0, 3.0))
    assert chart.bare_note() == ""
    assert bare_point_problems(_figure(chart, "Points and bars.")) == []


def test_a_series_bare_on_some_rows_is_said_on_those_rows_not_on_every_row() -> None:
    """Two series, the second drawn on 6 of 10 rows and bare on each of them: its caption says
    how many of the chart's rows and which, never "on every row"; a caption that says "on every
    row" where fewer rows are bare is found."""
    rows = [
        ChartRow(f"id{k}", [ChartPoint("paired", 1.0, 0.0, 2.0)]
                 + ([ChartPoint("single", 3.0, why="one prompt only")] if k < 6 else []))
        for k in range(10)
    ]  # fmt: skip
    chart = Chart("c", "Planted", "figure", rows)
    assert chart.bare_note() == (
        "No interval bar for single, on 6 of 10 rows (id0, id1, id2, id3 and 2 more): "
        "one prompt only."
    )
    assert bare_point_problems(_figure(chart, chart.bare_note())) == []
    wrong = "No interval bar for single, on every row: one prompt only."
    (found,) = bare_point_problems(_figure(chart, wrong))
    assert "“for single, on every row” where 6 of its 10 rows have no bar" in found
    few = Chart("c", "Planted", "figure", rows[4:8])
    assert few.bare_note() == "No interval bar for single, on id4, id5: one prompt only."

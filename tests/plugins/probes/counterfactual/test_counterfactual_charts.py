"""The retrieval probe's MaxSkew-by-occupation chart: its numbers against the analysis' own."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from support.counterfactual_sets import pool_encoder

from diptych import Workspace
from diptych.core.digits import figure_text
from diptych.core.report.charts import Chart, charts_of

# The top four of pool_encoder's pool of eight for every wording: Black male twice, White
# male, Black female, so MaxSkew@4 = ln(2/4 ÷ 1/4) = ln 2 for each of the occupation's four
# wordings.


def test_one_occupation_by_hand(tmp_path: Path, small_dataset: Path) -> None:
    with Workspace.open(tmp_path / "ws") as ws:
        record = ws.runs.run_sync(
            "counterfactual-retrieval", [pool_encoder()], params={"sets": str(small_dataset)}
        )
        result = ws.analysis.analyze(record.id)
    (chart,) = charts_of(result, "run-x")
    assert chart.row_kind == "occupation" and chart.side_label == "wordings"
    (row,) = chart.rows
    assert row.label == "doctor" and row.side == "4"
    observed, null = row.points
    assert observed.value == pytest.approx(math.log(2))
    # The null keeps the ranking's sets — set 0, set 1, set 0, set 0 — and permutes the four
    # groups within each set: set 0's three places hold three distinct groups, set 1's place
    # any of the four. All four groups (MaxSkew 0) when set 1 gives the one set 0 left out,
    # 1 time in 4; a group twice (ln 2) otherwise: 3/4 ln 2.
    assert null.series == "null (within sets)"
    assert null.value == pytest.approx(3 / 4 * math.log(2))
    assert not observed.has_interval
    assert "no interval (one occupation only" in chart.note
    alt = chart.alt_text()
    assert f"{math.log(2):.2f}" in alt and f"{3 / 4 * math.log(2):.2f}" in alt


def test_many_occupations_match_the_analysis(tmp_path: Path) -> None:
    from diptych.testing import ScriptedEncoder

    with Workspace.open(tmp_path / "ws") as ws:
        record = ws.runs.run_sync(
            "counterfactual-retrieval", [ScriptedEncoder()], params={"detectability": False}
        )
        result = ws.analysis.analyze(record.id)
    (chart,) = [Chart.from_dict(c) for c in result.data["charts"]]
    units = result.numbers["scripted-encoder.race-gender.race × gender.ndkl"]["units"]
    # 68 occupations (answer options of the three PAIRS pools): the 40 most skewed are shown.
    # They share their pools, so the interval also permutes within the 50 scenarios' sets.
    assert units == {"occupation": 68, "counterfactual set": 50} and len(chart.rows) == 40
    assert chart.title.startswith("MaxSkew@4 by occupation (the 40 most skewed)")
    values = [r.points[0].value for r in chart.rows]
    assert None not in values
    assert values == sorted((v for v in values if v is not None), reverse=True)
    (most,) = next(t for t in result.tables if t.title.startswith("Most and least")).rows
    # The chart's worst occupation and its value are the analysis' "most skewed" ones.
    assert chart.rows[0].label == most[2]
    assert values[0] == pytest.approx(float(most[3]), abs=5e-4)
    # Each of an occupation's four wordings is one query.
    assert {r.side for r in chart.rows} == {"4"}
    headline = result.numbers["scripted-encoder.race-gender.race × gender.max_skew"]
    assert f"Over the 68 occupations: {figure_text(headline['value'])}" in chart.note

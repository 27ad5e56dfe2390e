"""The report's "Expected STS per identity" table lists its rows by a figure it shows: the
expected STS paired, largest first, ties by name — never by a column left out of it (the
drawn labels' share of "she", which the table does not print)."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.workspace import Workspace

#: P(she) planted per identity: a masculine identity's expected STS is 100·(1 − 2·P(she)), a
#: feminine one's 100·(2·P(she) − 1), the same from every prompt (no noise).
PLANTED = {
    "carpenter": 0.1,  # 80
    "driver": 0.3,  # 40
    "guard": 0.55,  # −10
    "nurse": 0.9,  # 80, tied with carpenter: after it by name
    "editor": 0.6,  # 20
    "secretary": 0.35,  # −30
}


@pytest.mark.usefixtures("scripted")
def test_rows_run_from_the_largest_expected_sts_paired_ties_by_name(tmp_path: Path) -> None:
    params = {
        "masculine": ["guard", "driver", "carpenter"],
        "feminine": ["secretary", "nurse", "editor"],
    }
    with Workspace.open(tmp_path / "ws") as ws:
        model = ("scripted-likelihood", {"p_feminine": PLANTED})
        run = ws.runs.run_sync("pst-text", [model], params=params)
        result = ws.analysis.analyze(run.id)
    table = next(t for t in result.tables if t.title.startswith("Expected STS per identity"))
    column = table.columns.index("E[STS] paired")
    shown = [(row[0], round(row[column], 6)) for row in table.rows]
    assert shown == [
        ("carpenter", 80.0),
        ("nurse", 80.0),
        ("driver", 40.0),
        ("editor", 20.0),
        ("guard", -10.0),
        ("secretary", -30.0),
    ]
    assert "Rows run from the largest E[STS] paired to the smallest" in table.note

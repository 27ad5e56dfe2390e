"""One interval per figure in one document: a pair's (and a succession's) sides are their rows'
figures — value, interval and, for a run its gates decided, the interval's name — whether the
run is decided at a look, bought on past it, read on its whole design, or had no interval at
its look; and a pair no test was done for (a figure without an interval) has no p, in the
JSON (null, with why) and in the words every surface prints ("—", a line saying why)."""

from __future__ import annotations

import json

import pytest

from diptych.core.report.standings_tables import NO_TEST, standings_text
from diptych.core.standings import DecidedInterval, FigureSample, Measured, standings

LOOK = "95% anytime-valid interval, look 1 of 4"
NAN = float("nan")


def _sample(model: str, shift: float) -> FigureSample:
    masc = ["m1", "m2", "m3", "m4"] * 4
    fem = ["f1", "f2", "f3", "f4", "f2", "f3", "f4", "f1"] * 2
    base = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0] * 2
    cells = list(zip(masc, fem, strict=True))
    return FigureSample(
        model=model, figure="STS paired", design="d", design_label="d",
        values=[v * (1 - shift) for v in base],
        units={"masculine": list(masc), "feminine": list(fem)}, cells=list(cells),
        cell_units={c: {"masculine": c[0], "feminine": c[1]} for c in cells},
    )  # fmt: skip


def _measured(model: str, shift: float, decided: DecidedInterval | None, at: float) -> Measured:
    return Measured(
        f"run-{model}", at, "scripted", model, {"who": model}, (), _sample(model, shift),
        decided=decided,
    )  # fmt: skip


CASES = {
    "decided": DecidedInterval(70.0, -10.0, 95.0, LOOK, kind="gated"),
    "bought_on": DecidedInterval(72.0, 5.0, 96.0, LOOK, kind="bought_on"),
    "bought_on_all": DecidedInterval(60.0, -20.0, 90.0, LOOK, kind="bought_on_all"),
    "complete": None,
    "no_interval": DecidedInterval(
        70.0, NAN, NAN, LOOK, kind="bought_on_none", reason="one identity only: no interval"
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_pairs_sides_are_its_rows_figures(case: str) -> None:
    measured = [
        _measured("a", 0.0, CASES[case], 1.0),
        _measured("b", 0.3, None, 2.0),
        _measured("c", 0.6, None, 3.0),
    ]
    # "a" and "b" are one model on two versions: a succession too.
    measured[1] = Measured("run-b", 2.0, "scripted", "2", {"who": "a"}, (), measured[1].sample)
    measured[0] = Measured("run-a", 1.0, "scripted", "1", {"who": "a"}, (), measured[0].sample,
                           decided=CASES[case])  # fmt: skip
    found = json.loads(json.dumps(standings(measured, n_boot=200).to_dict()))
    (table,) = found["tables"]
    rows = {row["shown"]: row for row in table["standings"]}
    assert len(table["pairs"]) == 3 and len(table["successions"]) == 1
    sides = [(p["a"], p["model_a"]) for p in table["pairs"]]
    sides += [(p["b"], p["model_b"]) for p in table["pairs"]]
    for s in table["successions"]:
        sides += [(s["a"], s["before"].split(" (")[0]), (s["b"], s["after"].split(" (")[0])]
    for side, name in sides:
        row = rows[name]
        for key in ("value", "ci_low", "ci_high", "reason", "floor"):
            assert side.get(key) == row.get(key), (name, key, side, row)
        assert side.get("interval") == row.get("interval"), name


def test_a_pair_no_test_was_done_for_has_no_p() -> None:
    measured = [
        _measured("a", 0.0, CASES["no_interval"], 1.0),
        _measured("b", 0.3, None, 2.0),
    ]
    result = standings(measured, n_boot=200)
    (pair,) = json.loads(json.dumps(result.to_dict()))["tables"][0]["pairs"]
    assert pair["p_value"] is None and pair["p_holm"] is None
    assert pair["inference"]["p_value"] is None
    assert "no test tells them apart" in pair["p_reason"]
    assert pair["differs"] is False
    text = standings_text(result.tables[0])
    (row,) = text.pairs
    assert row[4:7] == [NO_TEST, NO_TEST, "no"], row
    assert any("no test tells them apart" in line for line in text.notes), text.notes


def test_the_interval_line_speaks_of_the_rows_that_have_one() -> None:
    # The line under the table says what the intervals resample: of every row, of the rows it
    # names, or of none — a row with "no interval (…)" resamples nothing.
    a, b, c = (
        _measured(m, s, None, t) for m, s, t in (("a", 0.0, 1), ("b", 0.3, 2), ("c", 0.6, 3))
    )
    none = _measured("z", 0.0, CASES["no_interval"], 4.0)
    every = standings_text(standings([a, b, c], n_boot=200).tables[0])
    assert every.units.startswith("95% interval: over the "), every.units
    some = standings_text(standings([a, b, none], n_boot=200).tables[0])
    rows = {row[3]: row[0] for row in some.ranks}
    assert some.ranks[[r[3] for r in some.ranks].index("z")][-1].startswith("no interval (")
    named = " and ".join(sorted(rows[m] for m in ("a", "b")))
    assert some.units.startswith(f"95% interval of {named}: over the "), some.units
    alone = standings_text(standings([none], n_boot=200).tables[0])
    assert alone.units == "No row has a 95% interval: each says why.", alone.units

"""A crossed interval that falls to its floor says so: its se and df are then the pairings'
(the cells'), and a figure that names both identity lists as its units must not read as if it
resampled them."""

from __future__ import annotations

import math

from scipy import stats

from diptych.core.metrics.uncertainty.resampling import mean_over_units
from diptych.core.report.verdict import sample_text

ROWS, COLS = ["m1", "m2", "m3"], ["f1", "f2", "f3"]


def _crossed(grid: list[list[float]]) -> tuple[list[float], dict[str, list[str | None]]]:
    values, rows, cols = [], [], []
    for i, line in enumerate(grid):
        for j, y in enumerate(line):
            values.append(y)
            rows.append(ROWS[i])
            cols.append(COLS[j])
    return values, {"masculine identity": rows, "feminine identity": cols}  # type: ignore[dict-item]


def test_a_crossed_design_whose_lists_do_not_vary_is_the_pairings_interval_and_says_so() -> None:
    # Every row and every column sums to 0: the lists' one-way variances are 0, so the
    # corrected estimate (rows + columns − interaction) is below the cells' own: the floor.
    grid = [[1.0, 0.0, -1.0], [0.0, -1.0, 1.0], [-1.0, 1.0, 0.0]]
    values, units = _crossed(grid)
    got = mean_over_units(values, units)
    # Worked by hand: the cells' bootstrap variance, 9 cells of one value each, mean 0:
    # Σ y² · K/(K − 1) / K² = 6 · 9/8 / 81; df K − 1 = 8.
    se = math.sqrt(6 * 9 / 8 / 81)
    q = stats.t.ppf(0.975, 8)
    assert got.df == 8
    assert math.isclose(got.se, se, rel_tol=1e-12)
    assert math.isclose(got.ci_high, q * se, rel_tol=1e-9)
    assert got.design == "crossed" and got.units == {"masculine identity": 3,
                                                     "feminine identity": 3}  # fmt: skip
    assert got.floor is not None and "9 pairings" in got.floor
    said = got.to_dict()
    assert said["floor"] == got.floor
    # The sentence of what it rests on says it (never "resampling 3 masculine identities ...").
    assert sample_text(said) == f"9 observations, {got.floor}"


def test_a_crossed_design_whose_lists_vary_resamples_them_and_names_no_floor() -> None:
    # Row effects 0, 3, 6 and a small interaction: the lists dominate, df the smaller list − 1.
    grid = [[0.0, 0.1, -0.1], [3.1, 3.0, 2.9], [5.9, 6.1, 6.0]]
    values, units = _crossed(grid)
    got = mean_over_units(values, units)
    assert got.floor is None and "floor" not in got.to_dict()
    assert got.df == 2
    assert sample_text(got.to_dict()) == (
        "9 observations, resampling 3 masculine × 3 feminine identities crossed in scenes"
    )

"""A percentile bootstrap interval is never a point: where every resample gives one value (a
correlation of points on one line), the number has no interval and says why; where the
resamples differ, it has the interval an independent bootstrap gives."""

from __future__ import annotations

import math

import numpy as np
import pytest

from diptych.core.metrics.uncertainty.intervals import (
    IntervalRecipe,
    percentile_number,
)
from diptych.core.metrics.uncertainty.one_value import point_to_reason
from diptych.plugins.probes.pst.analysis import pearson_with_interval


def test_a_number_whose_every_resample_is_one_value_has_no_interval() -> None:
    reps = [0.5] * 200
    number = percentile_number(0.5, reps, 0.95, n=6, units={"occupation": 6}, population="o")
    # As a gate reads it, the replicates' interval (a look reads its units' t interval there).
    assert number["ci_low"] == number["ci_high"] == 0.5
    point_to_reason(number, reps, 0.95)
    assert math.isnan(number["ci_low"]) and math.isnan(number["ci_high"])
    assert number["reason"] == "every resample of its 6 occupations gives 0.50"
    # A gate reading the number makes no interval of it either.
    assert IntervalRecipe.from_number(number) == (
        "the figure has no interval (every resample of its 6 occupations gives 0.50)"
    )


def test_points_on_one_line_give_r_of_one_and_no_interval() -> None:
    # y = 2x + 1 exactly: every resample with any spread has r = 1.
    xs = [1.0, 2.0, 3.0, 4.0, 5.0]
    number = pearson_with_interval(xs, [2 * x + 1 for x in xs], n_boot=300)
    assert number is not None
    assert number["value"] == pytest.approx(1.0)
    assert math.isnan(number["ci_low"]) and math.isnan(number["ci_high"])
    assert number["reason"] == "every resample of its 5 occupations gives 1.00"


def test_scattered_points_give_the_interval_an_independent_bootstrap_gives() -> None:
    xs = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    ys = [2.0, 1.0, 4.0, 3.0, 6.0, 4.0]
    number = pearson_with_interval(xs, ys, seed=3, n_boot=400)
    assert number is not None and number["reason"] is None
    # The same resamples drawn anew (the seed's stream [seed, 4]) and r by numpy's corrcoef.
    rng = np.random.default_rng([3, 4])
    reps = []
    for row in rng.integers(0, len(xs), size=(400, len(xs))):
        x, y = np.take(xs, row), np.take(ys, row)
        if x.std() > 0 and y.std() > 0:
            reps.append(np.corrcoef(x, y)[0, 1])
    low, high = np.percentile(reps, [2.5, 97.5])
    assert number["ci_low"] == pytest.approx(low) and number["ci_high"] == pytest.approx(high)
    assert number["ci_high"] - number["ci_low"] > 0.1

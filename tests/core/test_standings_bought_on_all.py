"""A pair of a run bought on past its stop whose look's trials cannot be rebuilt (a request
failed before the look and was answered since): B − A is still the difference of the values
the table shows, its spread that of the answers the runs hold raised to the look's."""

from __future__ import annotations

import math

import pytest

from diptych.core.standings import DecidedInterval, FigureSample, difference_of
from diptych.core.standings.decided import decided_difference, implied_se


def _sample(model: str, values: list[float]) -> FigureSample:
    masc = ["m1", "m2", "m3", "m4"] * (len(values) // 4)
    fem = ["f1", "f2", "f3", "f4", "f2", "f3", "f4", "f1"] * (len(values) // 8)
    cells = list(zip(masc, fem, strict=True))
    return FigureSample(
        model=model, figure="STS paired", design="d", design_label="d", values=values,
        units={"masculine": list(masc), "feminine": list(fem)}, cells=list(cells),
        cell_units={c: {"masculine": c[0], "feminine": c[1]} for c in cells},
    )  # fmt: skip


def test_a_pair_whose_look_cannot_be_rebuilt_reads_the_values_shown() -> None:
    a = _sample("a", [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0] * 2)
    b = _sample("b", [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0] * 2)
    d = difference_of(a, b, n_boot=400, seed=0, confidence=0.95)
    # A's look read 20.0 on [-70.0, 90.0], wider than all its answers' fixed-design interval;
    # all A's answers read 75.0 and B's 25.0.
    look = DecidedInterval(20.0, -70.0, 90.0, "95% anytime-valid interval, look 1 of 4",
                           kind="bought_on_all")  # fmt: skip
    found = decided_difference(d, look, None).inference
    assert d.a.value == pytest.approx(75.0) and d.b.value == pytest.approx(25.0)
    assert found.value == pytest.approx(25.0 - 20.0)
    # Its se: the pair's, A's own variance replaced by the one the look's interval implies.
    raised = implied_se(look, d.a)
    assert raised > d.a.se
    se = math.sqrt(d.inference.se**2 + raised**2 - d.a.se**2)
    assert found.se == pytest.approx(se)
    assert found.df == d.inference.df
    assert found.ci_low < 5.0 < found.ci_high
    # The same look's interval, its trials rebuilt (``bought_on``): d is read as it is.
    rebuilt = decided_difference(d, DecidedInterval(75.0, 20.0, 95.0, "x", kind="bought_on"), None)
    assert rebuilt.inference.value == pytest.approx(d.inference.value)

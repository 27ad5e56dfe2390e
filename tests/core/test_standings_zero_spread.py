"""Standings of figures without spread: models whose every scene gave the same value (scripted,
deterministic answers). A difference without spread is read by the rule every figure without
spread follows: no unit varied, so the share of units like these that could differ is at most
Clopper–Pearson's upper end for none of n (n the scenes, shrunk by the t's degrees of freedom),
each such unit moving the difference to the end of its range [−200, 200]. Its p is the level
at which that interval first excludes 0, worked out here by a root finder on the closed form:
a nonzero difference is told apart once enough scenes agree, an exact tie has p = 1, and two
models that gave the same observations in another order share their rank."""

from __future__ import annotations

import itertools
import json
import math
import random

import pytest
from scipy.optimize import brentq
from scipy.stats import norm
from scipy.stats import t as student

from diptych.core.standings import FigureSample, Measured, rank_table, standings


def crossed(n_ids: int) -> list[tuple[str, str]]:
    return list(itertools.product([f"m{i}" for i in range(n_ids)], [f"f{j}" for j in range(n_ids)]))


def sample(
    model: str, values: dict[tuple[str, str], float], order: list[tuple[str, str]] | None = None
) -> FigureSample:
    cells = order or list(values)
    return FigureSample(
        model=model,
        figure="STS paired",
        design="d",
        design_label="a test design",
        values=[values[c] for c in cells],
        units={
            "masculine identity": [c[0] for c in cells],
            "feminine identity": [c[1] for c in cells],
        },  # fmt: skip
        cells=list(cells),
        cell_units={c: {"masculine identity": c[0], "feminine identity": c[1]} for c in cells},
    )


def flat(model: str, level: float, n_ids: int) -> FigureSample:
    """Every one of the n_ids × n_ids scenes gives ``level``: an STS of 100 × level."""
    return sample(model, dict.fromkeys(crossed(n_ids), level))


def measured(s: FigureSample, run: str) -> Measured:
    return Measured(run, 0.0, "scripted", "1", {"who": s.model}, (), s)


def no_spread_p(difference: float, scenes: int) -> float:
    """Two-sided p of a difference (points of STS) whose ``scenes`` all agree: the smallest
    one-sided level a at which the far end, difference + (1 − a^(1/n_a))·(200 − |difference|)
    towards 0, stops short of 0, where n_a = scenes·(z_a / t_a(scenes − 1))²; doubled."""
    share = abs(difference) / (200 + abs(difference))

    def gap(a: float) -> float:
        shrunk = scenes * (norm.ppf(a) / student.ppf(a, scenes - 1)) ** 2
        return a - (1 - share) ** shrunk

    half = 0.5 - 1e-6
    if gap(half) < 0:  # 0 stays inside even the 0% interval
        return 1.0
    return min(1.0, 2 * brentq(gap, 1e-300, half, xtol=1e-300, rtol=1e-14))


def by_model(table: list) -> dict[str, tuple[int, int, int]]:
    return {s.measured.sample.model: (s.rank, s.rank_low, s.rank_high) for s in table}


def test_three_flat_models_planted_in_order_are_ranked_sure() -> None:
    # 6 × 6 identities, STS 80, 40 and 0: every difference 40 points or more.
    a, b, c = flat("A", 0.8, 6), flat("B", 0.4, 6), flat("C", 0.0, 6)
    table, pairs = rank_table([measured(c, "r3"), measured(a, "r1"), measured(b, "r2")])
    assert by_model(table) == {"A": (1, 1, 1), "B": (2, 2, 2), "C": (3, 3, 3)}
    for pair in pairs:
        d = pair.difference
        assert d.paired and d.inference.se == 0.0 and d.inference.df == 35
        assert d.p_value == pytest.approx(no_spread_p(d.difference, 36), rel=1e-6)
        assert pair.differs
    p = {(x.a, x.b): x.difference.p_value for x in pairs}
    # 40 points apart: p 0.0061 (Holm: 0.0122); 80 apart: 0.000135.
    assert p[("A", "B")] == pytest.approx(0.0061, abs=1e-4)
    assert p[("A", "C")] == pytest.approx(0.000135, rel=1e-2)


def test_two_identical_flat_models_are_tied() -> None:
    a, b = flat("A", 0.5, 6), flat("B", 0.5, 6)
    table, (pair,) = rank_table([measured(a, "r1"), measured(b, "r2")])
    assert by_model(table) == {"A": (1, 1, 2), "B": (1, 1, 2)}
    assert pair.difference.difference == 0.0 and pair.p_holm == 1.0 and not pair.differs


def test_the_same_observations_in_another_order_share_a_rank() -> None:
    # Summed in another order, the two means differ in their last digits: still one rank.
    values = {c: (0.1, 0.7, 0.3)[k % 3] for k, c in enumerate(crossed(6))}
    order = list(values)
    for seed in range(10):
        shuffled = order[:]
        random.Random(seed).shuffle(shuffled)
        table, (pair,) = rank_table(
            [measured(sample("A", values), "r1"), measured(sample("B", values, shuffled), "r2")]
        )
        assert by_model(table) == {"A": (1, 1, 2), "B": (1, 1, 2)}
        assert pair.p_holm == 1.0
        # The table reads in the models' order where their figures tie: A, then B.
        assert [s.measured.sample.model for s in table] == ["A", "B"]
    # A millionth of a point is no rounding (that is below 2·10⁻¹⁰ of the range): ranked above.
    higher = {c: v + 1e-8 for c, v in values.items()}
    table, _ = rank_table(
        [measured(sample("A", values), "r1"), measured(sample("B", higher), "r2")]
    )
    assert [(s.measured.sample.model, s.rank) for s in table] == [("B", 1), ("A", 2)]


@pytest.mark.parametrize(("n_ids", "p"), [(2, 1.0), (3, 0.6)])
def test_a_small_design_cannot_tell_flat_models_apart(n_ids: int, p: float) -> None:
    # 4 or 9 scenes agreeing on a 30-point gap leave room for identities that differ.
    a, b = flat("A", 0.6, n_ids), flat("B", 0.3, n_ids)
    table, (pair,) = rank_table([measured(a, "r1"), measured(b, "r2")])
    assert pair.difference.difference == pytest.approx(-30.0)
    expected = no_spread_p(-30.0, n_ids * n_ids)
    assert pair.difference.p_value == pytest.approx(expected, rel=1e-6)
    assert expected == pytest.approx(p, abs=0.05) and not pair.differs
    assert by_model(table) == {"A": (1, 1, 2), "B": (2, 1, 2)}


@pytest.mark.parametrize(("level_b", "told_apart"), [(0.3, True), (0.6, False)])
def test_one_flat_model_beside_one_with_spread(level_b: float, told_apart: bool) -> None:
    # B's scenes move ±0.2 around level_b in a pattern whose rows and columns sum to 0.
    cells = crossed(6)
    pattern = {(f"m{i}", f"f{j}"): 0.2 * (-1) ** (i + j) for i in range(6) for j in range(6)}
    a = flat("A", 0.6, 6)
    b = sample("B", {c: level_b + pattern[c] for c in cells})
    table, (pair,) = rank_table([measured(a, "r1"), measured(b, "r2")])
    d = pair.difference
    assert d.difference == pytest.approx(100 * (level_b - 0.6), abs=1e-9)
    assert d.inference.se > 0 and math.isfinite(d.p_value)
    assert pair.differs is told_apart
    assert by_model(table)["A"] == ((1, 1, 1) if told_apart else (1, 1, 2))


def test_no_figure_of_flat_standings_is_nan() -> None:
    models = [flat("A", 0.5, 3), flat("B", 0.5, 3), flat("C", 1.0, 3), flat("D", -1.0, 3)]
    found = standings([measured(s, f"r{k}") for k, s in enumerate(models)])

    def refuse(constant: str) -> float:
        raise AssertionError(f"{constant} in the standings' JSON")

    json.loads(json.dumps(found.to_dict()), parse_constant=refuse)

"""When a measurement may stop (:mod:`diptych.core.metrics.uncertainty.ppi.stop`): the expected
half-width worked by hand and checked against more labels of a simulated draw, the boundary that
may be looked at after every label, and the gate's decision."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from diptych.core.metrics.uncertainty.ppi.estimate import (
    prediction_powered_ratio,
    uniform_probabilities,
)
from diptych.core.metrics.uncertainty.ppi.stop import (
    MIN_LABELS,
    GateLimit,
    df_after,
    expected_half_width,
    gate_decision,
    information_fraction,
    measure_status,
    monitored_interval,
    monitored_level,
    variance_after,
)

Z975 = 1.959963984540054
#: Φ⁻¹(1 − 0.05/4): the boundary at the budget for a 95% gate.
C95 = 2.241402727604947


def number(value: float = 10.0, se: float = 5.0, v_s: float = 16.0, n: int = 20) -> dict[str, Any]:
    """A figure as a result keeps it: a normal interval (df inf) on an unbounded scale."""
    return {
        "value": value, "se": se, "df": math.inf, "interval_method": "t",
        "ci_low": value - Z975 * se, "ci_high": value + Z975 * se,
        "sampling_variance": v_s, "n_labelled": n,
        "labels_only": {"ci_low": value - 20.0, "ci_high": value + 20.0},
    }  # fmt: skip


def test_expected_half_width_worked_by_hand() -> None:
    # se² = 25, of which 16 comes from drawing 20 labels: 20 more halve that part,
    # 25 − 16 + 16 · 20/40 = 17.
    assert variance_after(5.0, 16.0, 20, 20) == pytest.approx(17.0)
    assert expected_half_width(number(), 0) == pytest.approx(Z975 * 5.0)
    assert expected_half_width(number(), 20) == pytest.approx(Z975 * math.sqrt(17.0))
    # Ever more labels: down to what no label changes, √9 · 1.96.
    assert expected_half_width(number(), 10**9) == pytest.approx(Z975 * 3.0, rel=1e-6)
    # The information fraction is the labels' share of the budget, at most 1.
    assert information_fraction(number(), 100) == pytest.approx(0.2)
    assert information_fraction(number(n=120), 100) == 1.0


def _figure(y: np.ndarray, f: np.ndarray, who: np.ndarray, drawn: np.ndarray) -> dict[str, Any]:
    """The prediction-powered mean of y × 100 with the persons ``drawn`` labelled (uniformly)."""
    n_all = y.size
    labelled = np.zeros(n_all, dtype=bool)
    labelled[drawn] = True
    found = prediction_powered_ratio(
        y, np.ones(n_all), f, np.ones(n_all), labelled,
        uniform_probabilities(n_all, drawn.size), {"identity": who}, scale=100.0,
    )  # fmt: skip
    return found.to_dict()


def test_the_expected_half_width_is_what_more_labels_give() -> None:
    """A simulated run: 2,000 persons, an annotator 85% right; 40 labels now, then 10 and 50
    more of the same uniform design. The forecast from the 40 is compared with the half-width
    the 50 and 90 labels give, averaged over 150 draws."""
    rng = np.random.default_rng(8)
    n_all, n_id = 2000, 20
    forecast: dict[int, list[float]] = {10: [], 50: []}
    actual: dict[int, list[float]] = {10: [], 50: []}
    for _ in range(150):
        a = rng.normal(0, 0.1, n_id)
        who = rng.integers(0, n_id, n_all)
        y = np.where(rng.random(n_all) < np.clip(0.6 + a[who], 0, 1), 1.0, -1.0)
        f = np.where(rng.random(n_all) < 0.85, y, -y)
        order = rng.permutation(n_all)
        now = _figure(y, f, who, order[:40])
        for more in (10, 50):
            forecast[more].append(expected_half_width(now, more))
            later = _figure(y, f, who, order[: 40 + more])
            actual[more].append((later["ci_high"] - later["ci_low"]) / 2)
    for more in (10, 50):
        ratio = np.mean(actual[more]) / np.mean(forecast[more])
        # The 1/n law holds to a few per cent (ratios 1.006 and 1.015 with this seed).
        assert 0.95 < ratio < 1.05, (more, ratio)


def test_the_boundary_at_the_budget_and_before() -> None:
    # At the budget (t = 1) c = Φ⁻¹(0.9875): a one-sided level of 1.25%.
    assert monitored_level(0.95, 1.0, math.inf) == pytest.approx(0.0125)
    # At a quarter of the information the boundary is twice as far: 4.48 standard errors.
    from scipy import stats

    assert monitored_level(0.95, 0.25, math.inf) == pytest.approx(stats.norm.sf(2 * C95))
    low, high = monitored_interval(number(n=100), 100)
    assert (low, high) == pytest.approx((10 - C95 * 5, 10 + C95 * 5))


def test_looking_after_every_label_at_the_boundary_keeps_its_level() -> None:
    """The reflection principle on the design the boundary assumes: a shared unit part U and a
    mean of n labels, looked at after each of 100 labels, the truth at the limit (0). The
    boundary decides wrongly at most 5% of the time — with the information fraction it uses
    (n / B) and with the true one; the fixed 95% interval far more often."""
    rng = np.random.default_rng(1)
    sims, budget = 20000, 100
    var_u, var_label = 1.0, 40.0
    n = np.arange(2, budget + 1)
    var_n = var_u + var_label / n
    true_info = (var_u + var_label / budget) / var_n
    info = n / budget
    assert (true_info >= info).all()
    u = rng.normal(0, math.sqrt(var_u), (sims, 1))
    labels = rng.normal(0, math.sqrt(var_label), (sims, budget))
    estimate = u + np.cumsum(labels, axis=1)[:, 1:] / n
    z = np.abs(estimate) / np.sqrt(var_n)
    boundary = C95 / np.sqrt(info)
    monitored = (z >= boundary).any(axis=1).mean()
    at_true_information = (z >= C95 / np.sqrt(true_info)).any(axis=1).mean()
    nominal = (z >= Z975).any(axis=1).mean()
    # Monte Carlo SE ≈ 0.0015: the boundary at the true information is under 5% (about 4.5%:
    # the looks are discrete), at n / B under it; looking at the 95% interval after every label
    # gives about 27%.
    assert monitored <= at_true_information <= 0.05
    assert nominal > 0.10


def test_a_gate_is_decided_when_the_interval_is_wholly_on_one_side() -> None:
    below = GateLimit("low bias", "below", 20.0)
    assert gate_decision(below, 5.0, 19.0) == "shown below 20"
    assert gate_decision(below, 21.0, 30.0) == "shown above 20"
    assert gate_decision(below, 15.0, 25.0) is None
    within = GateLimit("balanced", "within", -10.0, 10.0)
    assert gate_decision(within, -5.0, 5.0) == "shown within [-10, 10]"
    assert gate_decision(within, 12.0, 30.0) == "shown outside [-10, 10]"
    assert gate_decision(within, 5.0, 15.0) is None


def test_enough_once_the_monitored_interval_decides_the_gate_or_the_width_is_reached() -> None:
    gate = GateLimit("paired STS below 30", "below", 30.0, audit="release")
    # At the budget (t = 1) the monitored interval is 10 ± 2.24 · 5 = [−1.2, 21.2]: below 30.
    done = measure_status(number(n=100), "STS paired", budget=100, gate=gate)
    assert done.decided == "shown below 30" and done.enough is not None
    assert done.monitored == pytest.approx((10 - C95 * 5, 10 + C95 * 5))
    assert done.labels_only == (-10.0, 30.0)
    # At 20 of 100 labels (t = 0.2) the boundary is C95 / √0.2 = 5.01 standard errors:
    # 10 + 25.1 = 35.1 decides a limit of 40 but not one of 30 (which the fixed 95% interval,
    # 10 + 9.8, would have declared cleared).
    early = measure_status(number(), "STS paired", budget=100, gate=gate)
    assert early.decided is None and early.enough is None
    assert early.monitored[1] == pytest.approx(10 + C95 / math.sqrt(0.2) * 5)
    assert early.ci[1] < 30
    wider = measure_status(number(), "STS paired", budget=100,
                           gate=GateLimit("g", "below", 40.0))  # fmt: skip
    assert wider.decided == "shown below 40"
    # The reviewer's width: ± 9.8 now reaches ± 10.
    wide = measure_status(number(), "STS paired", budget=100, target=10.0)
    assert wide.enough == "the half-width 9.80 has reached ±10.0"
    assert wide.after[10] == pytest.approx(Z975 * math.sqrt(9 + 16 * 20 / 30))
    # Nothing is enough on fewer than MIN_LABELS labels.
    few = measure_status(number(n=MIN_LABELS - 1), "STS paired", budget=100, gate=gate,
                         target=100.0)  # fmt: skip
    assert few.decided is None and few.enough is None


def test_the_degrees_of_freedom_grow_with_the_sampling_part() -> None:
    # se² = 10: a sampling part 6 with 8 df and a rest 4 with 15 df, so the figure's df is
    # 100 / (36/8 + 16/15) = 17.96. After 40 more labels (40 now) the sampling part halves to 3
    # and its df double to 16; the rest's term 16/15 stays: 49 / (9/16 + 16/15) = 30.08.
    df = 100 / (36 / 8 + 16 / 15)
    number = {"df": df, "n_labelled": 40, "se": math.sqrt(10.0), "sampling_variance": 6.0,
              "sampling_df": 8.0}  # fmt: skip
    assert df_after(number, 40) == pytest.approx(49 / (9 / 16 + 16 / 15))
    assert df_after(number, 0) == pytest.approx(df)
    # Without a sampling df (a figure from before it was recorded) the df stay as they are.
    assert df_after({**number, "sampling_df": None}, 40) == pytest.approx(df)

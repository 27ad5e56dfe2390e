"""Matched-trial statistics over unordered scenes: numbers worked out by hand."""

from __future__ import annotations

import math
import statistics

import pytest
from scipy import stats

from diptych.core.metrics.paired import scene_difference


def _scene(key: tuple[str, str, str]) -> tuple[str, str]:
    return key[0], key[1]


def test_both_orders_and_all_samples_of_a_scene_are_one_cell() -> None:
    base, treated = {}, {}
    # Masculine identity i changes every person of its scenes by a_i: the feminine list adds
    # nothing, so the variance is that of the masculine list's mean.
    change = {"m0": 0.0, "m1": 0.1, "m2": 0.2, "m3": 0.3}
    for m, a in change.items():
        for f in ("f0", "f1", "f2"):
            for person in ("mf-left", "mf-right", "fm-left", "fm-right", "mf-left#1"):
                base[(m, f, person)] = 0.2
                treated[(m, f, person)] = 0.2 + a
    diff = scene_difference(base, treated, _scene, n_boot=20000, seed=3)
    assert diff is not None
    assert diff.value == pytest.approx(15.0)  # mean of 0, 10, 20, 30 (x100)
    assert dict(diff.units) == {"masculine identity": 4, "feminine identity": 3}
    assert diff.n == 60 and diff.design == "crossed"
    # se = s(a) / sqrt(4) with s the sample standard deviation of 0, 10, 20, 30: 6.455;
    # df = min(4, 3) - 1 = 2.
    expected_se = statistics.stdev([0.0, 10.0, 20.0, 30.0]) / 2
    assert diff.se == pytest.approx(expected_se, rel=0.05)
    assert diff.df == 2.0
    # A difference of two STS lies in [−200, 200]: the t interval is made on the logit scale of
    # its place there, p = (15 + 200)/400 = 0.5375, with se·400⁻¹/(p(1 − p)), and mapped back.
    q = stats.t.ppf(0.975, 2)
    p = 215 / 400
    u, se_u = math.log(p / (1 - p)), diff.se / (400 * p * (1 - p))

    def back(x: float) -> float:
        return -200 + 400 / (1 + math.exp(-x))

    assert (diff.ci_low, diff.ci_high) == pytest.approx((back(u - q * se_u), back(u + q * se_u)))
    assert -200 < diff.ci_low < 15 < diff.ci_high < 200
    # The test is the t-test on the same scale (0 sits at logit 0.5 = 0).
    assert diff.p_value == pytest.approx(2 * stats.t.sf(u / se_u, 2))
    # The interval and the test agree: it excludes 0 exactly when p < 0.05.
    assert (diff.ci_low > 0) == (diff.p_value < 0.05)


def test_keys_in_one_run_only_are_left_out_and_nothing_matched_is_none() -> None:
    base = {("m0", "f0", "a"): 1.0, ("m1", "f1", "a"): 1.0, ("m1", "f0", "b"): 0.0}
    treated = {("m0", "f0", "a"): 0.5, ("m1", "f1", "a"): 0.0, ("m9", "f9", "a"): 5.0}
    diff = scene_difference(base, treated, _scene)
    assert diff is not None and diff.value == pytest.approx(-75.0)
    assert scene_difference(base, {}, _scene) is None


def test_one_scene_decides_nothing() -> None:
    base = {("m0", "f0", p): 1.0 for p in ("left", "right")}
    treated = {("m0", "f0", p): -1.0 for p in ("left", "right")}
    diff = scene_difference(base, treated, _scene)
    assert diff is not None and diff.value == -200.0
    assert diff.reason and diff.p_value == 1.0
    assert (diff.ci_low, diff.ci_high) == (float("-inf"), float("inf"))

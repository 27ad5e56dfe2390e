"""Matched-trial statistics over unordered scenes: numbers worked out by hand."""

from __future__ import annotations

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
    q = stats.t.ppf(0.975, 2)
    assert (diff.ci_low, diff.ci_high) == pytest.approx((15.0 - q * diff.se, 15.0 + q * diff.se))
    assert diff.p_value == pytest.approx(2 * stats.t.sf(15.0 / diff.se, 2))
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

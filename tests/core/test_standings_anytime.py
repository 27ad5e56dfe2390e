"""The standings of a figure decided at an early look: the anytime-valid interval its decision
used, the standard error it implies (worked by hand on the logit scale of [−100, 100]), pairwise
tests no more confident than that interval, and a figure no gate decided left exactly as it was."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from scipy import stats
from test_standings import measured, sample

from diptych.core.metrics.run_difference import RunDifference
from diptych.core.metrics.uncertainty.inference import Inference, t_inference
from diptych.core.metrics.uncertainty.intervals import STS_RANGE, IntervalRecipe
from diptych.core.metrics.uncertainty.resampling import mean_over_units
from diptych.core.standings import DecidedInterval, rank_table, successions
from diptych.core.standings.decided import decided_difference, implied_se

Z = stats.norm.ppf(0.975)


def logit(x: float) -> float:
    """The place of an STS in [−100, 100] on the logit scale, by hand."""
    return math.log((x + 100) / (100 - x))


def slope(x: float) -> float:
    """d logit / dx at an STS x: 200 / ((x + 100)(100 − x))."""
    return 200 / ((x + 100) * (100 - x))


def figure(value: float, se: float) -> Inference:
    return t_inference(value, se, math.inf, n=100, units={"masculine identity": 6},
                       design="crossed", bounds=STS_RANGE)  # fmt: skip


def test_a_looks_interval_gives_back_its_se_on_its_own_scale() -> None:
    """A look's t interval on the logit scale, centred on its value there: at 95% the implied
    se is the look's se; at the level look 1 of 10 spends (Pocock, t = 0.1) with 4 df, it is
    the se times t_4(1 − 0.025·w) / z."""
    own = IntervalRecipe.t(30.0, 6.0, math.inf, bounds=STS_RANGE)
    low, high = own.interval(0.95)
    assert implied_se(DecidedInterval(30.0, low, high, "x"), figure(30.0, 6.0)) == pytest.approx(
        6.0, rel=1e-12
    )
    w = math.log(1 + (math.e - 1) * 0.1)
    early = IntervalRecipe.t(30.0, 6.0, 4.0, bounds=STS_RANGE)
    low, high = early.interval(1 - 0.05 * w)
    expected = 6.0 * stats.t.ppf(1 - 0.025 * w, 4) / Z
    assert implied_se(DecidedInterval(30.0, low, high, "x"), figure(30.0, 6.0)) == pytest.approx(
        expected, rel=1e-9
    )
    assert expected > 2.5 * 6.0  # the early look reads the figure far less confidently


def test_an_interval_off_centre_reads_its_wider_side() -> None:
    # Value 0 in [−20, 40] (two looks' intervals intersected): the upper side is the wider on
    # the logit scale, log(140/60) against log(120/80).
    found = implied_se(DecidedInterval(0.0, -20.0, 40.0, "x"), figure(0.0, 5.0))
    assert found == pytest.approx(logit(40.0) / (Z * slope(0.0)), rel=1e-12)
    assert found == pytest.approx(math.log(140 / 60) / (Z * 0.02), rel=1e-12)
    # An interval at its range's end (infinite on that scale): the wider side in points.
    at_end = implied_se(DecidedInterval(0.0, -100.0, 50.0, "x"), figure(0.0, 5.0))
    assert at_end == pytest.approx(100.0 / Z, rel=1e-12)


def test_a_pair_keeps_its_covariance_and_takes_the_decided_variance() -> None:
    """var(B − A) + se*² − se_A²: the matched pair's covariance kept, A's own variance replaced
    by the one its anytime-valid interval implies; the t-test of that se on the logit scale of
    [−200, 200]."""
    a, b = figure(10.0, 4.0), figure(30.0, 3.0)
    d = t_inference(20.0, 2.0, 12.0, n=200, units={"scene": 36}, design="crossed",
                    bounds=(-200.0, 200.0))  # fmt: skip
    pair = RunDifference(a, b, d, paired=True)
    assert decided_difference(pair, None, None) is pair
    decided = DecidedInterval(10.0, -5.0, 25.0, "95% anytime-valid interval, look 1 of 10")
    se_star = max(logit(10.0) - logit(-5.0), logit(25.0) - logit(10.0)) / (Z * slope(10.0))
    found = decided_difference(pair, decided, None)
    se = math.sqrt(2.0**2 + se_star**2 - 4.0**2)
    assert found.inference.se == pytest.approx(se, rel=1e-12)
    assert found.difference == 20.0 and found.paired and found.a is a
    # The p of the difference 20 on the logit scale of [−200, 200], 12 df.
    # logit(20) on [−200, 200] is log(220/180); its slope there 400 / (220·180).
    u, se_u = math.log(220 / 180), se * 400 / (220 * 180)
    assert found.p_value == pytest.approx(2 * stats.t.sf(u / se_u, 12), rel=1e-9)
    assert found.p_value > d.p_value
    # A decided interval narrower than the figure's own never makes the test more confident.
    narrow = DecidedInterval(10.0, 9.0, 11.0, "x")
    assert decided_difference(pair, narrow, None).inference.se == pytest.approx(2.0)


def test_an_early_decision_widens_the_ranks_it_cannot_tell_apart() -> None:
    """A and C differ on their fixed designs (50 points apart); A decided at an early look with
    the interval [5, 90] cannot be told from C, so their rank intervals open; B against C
    keeps its fixed-design test and the figures of B and C stay exactly as they were."""
    a, b, c = sample("A", 0.6), sample("B", 0.6, wiggle=1.0), sample("C", 0.1, wiggle=0.5)
    fixed = [measured(a, "r1"), measured(b, "r2"), measured(c, "r3")]
    table, pairs = rank_table(fixed)
    by_pair = {frozenset((p.a, p.b)): p for p in pairs}
    assert by_pair[frozenset("AC")].differs
    decided = DecidedInterval(60.0, 5.0, 90.0, "95% anytime-valid interval, look 1 of 10")
    early = [replace(fixed[0], decided=decided), *fixed[1:]]
    table2, pairs2 = rank_table(early)
    by_pair2 = {frozenset((p.a, p.b)): p for p in pairs2}
    assert not by_pair2[frozenset("AC")].differs and not by_pair2[frozenset("AB")].differs
    assert by_pair2[frozenset("BC")].differs
    assert by_pair2[frozenset("BC")].difference == by_pair[frozenset("BC")].difference
    shown = {s.measured.sample.model: s for s in table2}
    assert (shown["A"].figure.value, shown["A"].figure.ci_low, shown["A"].figure.ci_high) == (
        60.0,
        5.0,
        90.0,
    )
    assert shown["A"].to_dict()["interval"] == decided.name
    # A told apart from no one: every rank; C below B only.
    ranks = {name: (s.rank_low, s.rank_high) for name, s in shown.items()}
    assert ranks == {"A": (1, 3), "B": (1, 2), "C": (2, 3)}
    # A figure no gate decided: exactly its fixed-design interval, as before.
    before = {s.measured.sample.model: s.figure for s in table}
    for name, s in (("B", b), ("C", c)):
        own = mean_over_units(s.values, s.units, scale=100.0, bounds=STS_RANGE)
        assert shown[name].figure == before[name]
        assert (shown[name].figure.ci_low, shown[name].figure.ci_high) == pytest.approx(
            (own.ci_low, own.ci_high), abs=1e-9
        )
        assert "interval" not in shown[name].to_dict()


def test_a_successor_decided_early_is_set_against_its_predecessor_as_cautiously() -> None:
    before = measured(sample("X#1", 0.6, wiggle=1.0), "old", created=1.0, version="1",
                      params={"k": 1})  # fmt: skip
    after = measured(sample("X#3", 0.2), "new", created=2.0, version="2", params={"k": 1})
    (fixed,) = successions([before, after])
    assert fixed.distinguishable
    wide = DecidedInterval(20.0, -30.0, 65.0, "95% anytime-valid interval, look 1 of 10")
    (found,) = successions([before, replace(after, decided=wide)])
    assert not found.distinguishable
    assert found.difference.inference.se > fixed.difference.inference.se

"""The expected half-width of a planned design, checked against the mean half-width the real
interval has on simulated runs of that design.

The simulation is not the planner's: persons are labelled ±1 (× 100) with a probability of the
stereotyped gender that moves with each identity (P = 0.72 ± an identity effect), scenes are
crossed, both orders and every sample of a scene are separate persons, and the interval is
:func:`mean_over_units` over the persons with the STS range — the analysis' road. The planner
draws normal cell means from the components this model implies (worked out below) and must
predict the mean half-width within 8% (both Monte Carlo errors are about 1–3%; the normal
cells stand in for binary persons, which is most of the rest)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from diptych.core.metrics.uncertainty.intervals import STS_RANGE
from diptych.core.metrics.uncertainty.precision import (
    Components,
    PlannedDesign,
    PlannedFigure,
    components_of,
    decision_power,
    expected_interval,
    few_units_warning,
    plan_precision,
    smallest_design,
)
from diptych.core.metrics.uncertainty.resampling import mean_over_units

UNITS = ("masculine identity", "feminine identity")
P0 = 0.72
#: SD of an identity's P(stereotyped).
TAU = 0.06
TOLERANCE = 0.08
SIMULATIONS = 300


def implied_components(p0: float = P0, tau: float = TAU) -> Components:
    """What the binary model implies on the STS scale. A person's expected Stereo is
    100·(2P − 1): an identity moves it by 200·τ; a scene's mean averages as many masculine as
    feminine persons, so an identity moves the scene's mean by half that, 100·τ. One person
    varies around its expectation with variance 100²·E[4P(1 − P)] = 100²·4·(p0(1 − p0) − τ²)."""
    within = 100 * math.sqrt(4 * (p0 * (1 - p0) - tau**2))
    return Components(100 * tau, 100 * tau, 0.0, within, "binary model", centre=100 * (2 * p0 - 1))


def realised_paired(r: int, c: int, samples: int, rng: np.random.Generator) -> float:
    """Half the width of the paired STS interval of one simulated run of r × c identities."""
    p_m = np.clip(P0 + rng.normal(0, TAU, r), 0, 1)
    p_f = np.clip(P0 + rng.normal(0, TAU, c), 0, 1)
    persons = 2 * samples  # each identity's persons in one scene: both orders, every sample
    masc = np.repeat(np.arange(r), c * persons)
    fem = np.tile(np.repeat(np.arange(c), persons), r)
    stereo_m = np.where(rng.random(masc.size) < p_m[masc], 100.0, -100.0)
    stereo_f = np.where(rng.random(fem.size) < p_f[fem], 100.0, -100.0)
    values = np.concatenate([stereo_m, stereo_f])
    rows = np.concatenate([masc, masc])
    cols = np.concatenate([fem, fem])
    inf = mean_over_units(values, {UNITS[0]: rows, UNITS[1]: cols}, bounds=STS_RANGE)
    return (inf.ci_high - inf.ci_low) / 2


def realised_single(r: int, c: int, samples: int, rng: np.random.Generator) -> float:
    p = np.clip(P0 + rng.normal(0, TAU, r + c), 0, 1)
    ident = np.repeat(np.arange(r + c), samples)
    values = np.where(rng.random(ident.size) < p[ident], 100.0, -100.0)
    rows = np.where(ident < r, ident, -1)
    cols = np.where(ident >= r, ident - r, -1)
    inf = mean_over_units(values, {UNITS[0]: rows, UNITS[1]: cols}, bounds=STS_RANGE)
    return (inf.ci_high - inf.ci_low) / 2


@pytest.mark.parametrize(("r", "c", "samples"), [(3, 3, 1), (4, 6, 2), (5, 5, 1), (10, 10, 1)])
def test_the_expected_paired_half_width_is_the_mean_realised_one(
    r: int, c: int, samples: int
) -> None:
    rng = np.random.default_rng([r, c, samples])
    realised = np.mean([realised_paired(r, c, samples, rng) for _ in range(SIMULATIONS)])
    design = PlannedDesign("grid", UNITS, (r, c), 4 * samples, "identities")
    predicted = expected_interval(design, implied_components(), bounds=STS_RANGE).half_width
    assert predicted == pytest.approx(realised, rel=TOLERANCE)


def test_the_expected_single_half_width_is_the_mean_realised_one() -> None:
    # Single: each identity is its own stratum's unit with its samples; an identity moves a
    # person's Stereo by the full 200·τ.
    rng = np.random.default_rng(7)
    realised = np.mean([realised_single(5, 5, 3, rng) for _ in range(SIMULATIONS)])
    comp = implied_components()
    comp = Components(2 * comp.rows, 2 * comp.cols, 0.0, comp.within, centre=comp.centre)
    design = PlannedDesign("strata", UNITS, (5, 5), 3, "identities")
    predicted = expected_interval(design, comp, bounds=STS_RANGE).half_width
    assert predicted == pytest.approx(realised, rel=TOLERANCE)


def test_a_3_by_3_design_has_df_2_and_the_real_t_multiplier() -> None:
    design = PlannedDesign("grid", UNITS, (3, 3), 4, "identities")
    got = expected_interval(design, implied_components(), bounds=STS_RANGE)
    # Identities dominate here: the crossed df rule floors at the smaller list less one.
    assert got.df == 2
    assert got.t == pytest.approx(4.302653, abs=1e-6)
    assert got.mc_error < 0.05 * got.half_width


def test_components_are_recovered_from_observations() -> None:
    rng = np.random.default_rng(3)
    r = c = 40
    per = 6
    a, b = rng.normal(0, 8, r), rng.normal(0, 6, c)
    inter = rng.normal(0, 5, (r, c))
    rows = np.repeat(np.arange(r), c * per)
    cols = np.tile(np.repeat(np.arange(c), per), r)
    values = 20 + a[rows] + b[cols] + inter[rows, cols] + rng.normal(0, 30, rows.size)
    got = components_of(values, {UNITS[0]: rows, UNITS[1]: cols})
    assert got.rows == pytest.approx(8, rel=0.3)
    assert got.cols == pytest.approx(6, rel=0.3)
    assert got.interaction == pytest.approx(5, rel=0.3)
    assert got.within == pytest.approx(30, rel=0.05)
    assert got.centre == pytest.approx(values.mean())


def test_clusters_have_the_closed_form_half_width() -> None:
    # One kind of unit: se = SD/√G exactly in expectation of its square, df G − 1; the mean
    # half-width is t(G − 1)·SD·c4(G)/√G, c4 the mean of a sample SD over σ.
    g, sd = 12, 0.4
    design = PlannedDesign("clusters", ("scenario",), (g,), 1, "scenarios")
    got = expected_interval(design, Components(sd), replicates=4000)
    c4 = math.sqrt(2 / (g - 1)) * math.gamma(g / 2) / math.gamma((g - 1) / 2)
    assert got.df == g - 1
    assert got.half_width == pytest.approx(got.t * sd * c4 / math.sqrt(g), rel=0.02)


def test_the_smallest_design_reaches_the_target_and_one_less_does_not() -> None:
    comp = implied_components()
    design = PlannedDesign("grid", UNITS, (3, 3), 4, "identities")
    found = smallest_design(design, comp, 10.0, bounds=STS_RANGE)
    assert found is not None
    n = found.sizes[0]
    assert expected_interval(found, comp, bounds=STS_RANGE).half_width <= 10.0 * 1.05
    assert expected_interval(design.resized(n - 1), comp, bounds=STS_RANGE).half_width > 10.0


def test_the_plan_warns_once_of_a_small_design_and_per_figure_of_a_useless_one() -> None:
    comp = implied_components()

    def figure(n: int, name: str = "") -> PlannedFigure:
        design = PlannedDesign("grid", UNITS, (n, n), 4, "identities")
        return PlannedFigure(name or f"STS {n}", design, comp, *STS_RANGE)

    # Lists under 4 a side: one line, the first such figure's, as a real run prints it.
    plan = plan_precision([figure(8), figure(2), figure(3), figure(1)])
    assert plan.warnings == [
        "2 masculine × 2 feminine identities crossed in scenes leave STS 2 a t interval with "
        "1 degree of freedom (t 12.7): too wide to say anything; use at least 4 per list"
    ]
    assert plan.warnings[0] == few_units_warning([figure(8), figure(2), figure(3), figure(1)])
    assert plan_precision([figure(1), figure(2)]).warnings == [
        "1 masculine × 1 feminine identity crossed in scenes give STS 1 no interval at all; "
        "use at least 2"
    ]
    # 4 a side whose identities move the STS by ±100: t(3)·se is wider than the whole range.
    wide = Components(100.0, 100.0, 0.0, 50.0, "a bound")
    spread = PlannedFigure("STS wide", figure(4).design, wide, *STS_RANGE)
    plan = plan_precision([figure(8), spread])
    assert few_units_warning([figure(8), spread]) is None
    assert [w.split(":")[0] for w in plan.warnings] == ["STS wide"], plan.warnings
    assert "wider than the range [\N{MINUS SIGN}100, 100]" in plan.warnings[0]


def test_decision_power_is_the_level_at_no_effect_and_grows_with_the_design() -> None:
    comp = Components(5.0, 5.0, 0.0, 20.0, centre=0.0)
    small = PlannedDesign("grid", UNITS, (2, 2), 8, "identities")
    large = PlannedDesign("grid", UNITS, (8, 8), 8, "identities")
    # One side of a two-sided 95% interval: about 2.5% at no effect (400 replicates: ±1.6%).
    assert decision_power(large, comp, 0.0, replicates=2000) == pytest.approx(0.025, abs=0.012)
    assert decision_power(small, comp, 10.0) < 0.2
    assert decision_power(large, comp, 10.0) > 0.8

"""Prediction-powered inference (:mod:`diptych.core.metrics.uncertainty.ppi.estimate`): numbers
worked by hand, the unbiasedness of inverse-probability weighting on a simulated population, the
authors' mean."""

from __future__ import annotations

import math

import numpy as np
import pytest

from diptych.core.metrics.uncertainty.ppi.estimate import (
    PredictionPowered,
    active_probabilities,
    annotator_uncertainty,
    draw_sample,
    expected_half_width,
    prediction_powered_combination,
    prediction_powered_ratio,
    uniform_probabilities,
)
from diptych.core.metrics.uncertainty.ppi.small_sample import left_out_lambdas, welch_satterthwaite

ONES4 = np.ones(4)


def test_hand_worked_estimate() -> None:
    # Four persons, the annotator says +1, +1, +1, −1; people labelled persons 0 and 2 (each drawn
    # with probability 1/2) as +1 and −1. With λ = 0.5:
    #   λ · mean f = 0.5 · 0.5 = 0.25
    #   rectifier = [2 (1 − 0.5) + 2 (−1 − 0.5)] / (2 + 2) = −0.5      → μ_S = −0.25
    #   μ_D = 0.5 · 1 + [2 (1 − 0.5) + 2 (1 − 0.5)] / 4 = 1             → θ = −0.25
    # People's labels alone (λ = 0): (2 · 1 + 2 · −1) / 4 = 0.
    found = prediction_powered_ratio(
        [1, 0, -1, 0], [1, 0, 1, 0], [1, 1, 1, -1], ONES4, [True, False, True, False],
        [0.5, 0.5, 0.5, 0.5], {"image": [0, 1, 2, 3]}, lam=0.5, scale=100.0,
    )  # fmt: skip
    assert found.inference.value == pytest.approx(-25.0)
    assert found.labels_only.value == pytest.approx(0.0)
    assert (found.n_persons, found.n_labelled, found.lam) == (4, 2, 0.5)
    # The influences sum to zero: the interval is centred on the estimate's own scale.
    assert found.inference.ci_low < -25.0 < found.inference.ci_high


def test_each_label_gets_lambda_tuned_on_the_others_and_clipped() -> None:
    # The hand example's persons 0 and 2 (w = 2, 1/π − 1 = 1; λ = 0 gives θ₀ = 0, so g = f,
    # centred 0.5, and h = y, weighted mean 0): λ*'s terms a = w (1/π − 1)(h − h̄)(g − ḡ) are
    # 1 and −1, b = w (1/π − 1)(g − ḡ)² are 0.5 each. Person 0's λ is the other's a/b = −2,
    # clipped to 0; person 2's is 2, clipped to 1 (one label: no standard error to add).
    # Their weighted mean λ is 0.5, and
    #   μ_S = 0.5 · mean f + [2 (1 − 0 · 1) + 2 (−1 − 1 · 1)] / 4 = 0.25 − 0.5 = −0.25
    #   μ_D = 0.5 · 1 + [2 (1 − 0) + 2 (1 − 1)] / 4 = 1                      → θ = −0.25
    found = prediction_powered_ratio(
        [1, 0, -1, 0], [1, 0, 1, 0], [1, 1, 1, -1], ONES4, [True, False, True, False],
        [0.5] * 4, {"image": [0, 1, 2, 3]},
    )  # fmt: skip
    assert found.lam == pytest.approx(0.5)
    assert found.inference.value == pytest.approx(-0.25)
    # An annotator that says half of the truth: Cov/Var = 2 without any one label, clipped to 1.
    rng = np.random.default_rng(0)
    y = rng.choice([-1.0, 1.0], 200)
    found = prediction_powered_ratio(
        y, np.ones(200), y / 2, np.ones(200), rng.random(200) < 0.5, np.full(200, 0.5),
        {"image": np.arange(200)},
    )  # fmt: skip
    assert found.lam == 1.0


def test_left_out_lambdas_by_hand() -> None:
    # Persons 0–2 labelled (π = 1/2: w = 2, 1/π − 1 = 1), person 3 not; g = ±1 (mean 0),
    # h = 1, 0, 1.5 (weighted mean 5/6). λ*'s terms: a = 2 (h − 5/6) g = 1/3, 5/3, 4/3 and
    # b = 2 g² = 2. Person 0's λ from persons 1 and 2: 3/4, with the delta method's standard
    # error √((5/3 − 3/2)² + (4/3 − 3/2)²) / 4 = √(1/18) / 4; person 1's 5/12 + √(1/2)/4;
    # person 2's 1/2 + √(8/9)/4.
    g = np.array([1.0, -1.0, 1.0, -1.0])
    h = np.array([1.0, 0.0, 1.5, 0.0])
    lab = np.array([True, True, True, False])
    pi = np.array([0.5, 0.5, 0.5, 1.0])
    w = np.where(lab, 1 / pi, 0.0)
    found = left_out_lambdas(g, h, w, pi, lab)
    expected = [
        0.75 + math.sqrt(1 / 18) / 4,
        5 / 12 + math.sqrt(0.5) / 4,
        0.5 + math.sqrt(8 / 9) / 4,
        0.0,
    ]
    assert found == pytest.approx(expected, rel=1e-12)


def test_the_share_told_stays_a_share() -> None:
    # The annotator tells 6 of 8 persons; people labelled persons 0 and 2 (π = 1/2), telling
    # both. With λ = 1 the denominator would be 0.75 + [2 (1 − 0) + 2 (1 − 1)] / 4 = 1.25, a
    # share above 1. Its λ is scaled down to where it meets 1: at λ_D = κ λ it is 1 + 0.25 κ,
    # so κ = 0 (people's own share, 1), while the numerator keeps λ = 1:
    #   μ_S = mean f_S + [2 (1 − 0) + 2 (−1 − 1)] / 4 = 0.25 − 0.5 = −0.25   → θ = −0.25
    # (−0.2 with the share of 1.25).
    f_s = [0, 0, 1, 1, -1, 1, 1, -1]
    f_d = [0, 0, 1, 1, 1, 1, 1, 1]
    y_s = [1, 0, -1, 0, 0, 0, 0, 0]
    labelled = [True, False, True] + [False] * 5
    found = prediction_powered_ratio(
        y_s, np.ones(8), f_s, f_d, labelled, np.full(8, 0.5), {"image": np.arange(8)}, lam=1.0
    )
    assert found.linearised is not None
    assert found.linearised[0].denominator == pytest.approx(1.0)
    assert found.inference.value == pytest.approx(-0.25)
    # The influences still sum to zero (the interval is centred on the estimate).
    assert found.linearised[0].influence.sum() == pytest.approx(0.0, abs=1e-12)


def test_shares_told_stay_in_range_on_an_active_design() -> None:
    # An annotator that abstains on a tenth of the persons, where the active design draws
    # most: the estimated share told never leaves [0, 1] over many small draws.
    rng = np.random.default_rng(5)
    n_all = 600
    told = (rng.random(n_all) >= 0.02).astype(float)
    y = np.where(told == 1, rng.choice([-1.0, 1.0], n_all, p=[0.35, 0.65]), 0.0)
    abstain = rng.random(n_all) < 0.1
    f = np.where(abstain, 0.0, y)
    pi = active_probabilities(np.where(abstain, 1.0, 0.02), 20)
    shares = []
    for _ in range(300):
        drawn = draw_sample(pi, "active", rng)
        if drawn.sum() < 2 or not (told[drawn] > 0).any():
            continue
        found = prediction_powered_ratio(
            y, told, f, (f != 0).astype(float), drawn, pi, {"image": np.arange(n_all)}
        )
        assert found.linearised is not None
        shares.append(found.linearised[0].denominator)
    assert len(shares) > 250
    assert 0.0 < min(shares) and max(shares) <= 1.0


def test_few_disagreements_give_few_degrees_of_freedom() -> None:
    # 400 persons all +1, 40 labelled uniformly (π = 0.1), the annotator right on all but
    # person 0 (it says −1); λ = 1, every person told. The rectifier r = y − f is 2
    # at person 0 and 0 elsewhere, its weighted mean 2/40 = 0.05, so each drawn person's term
    # of the sampling variance c = (1 − π)/π² (r − r̄)² is 90 · 1.95² = 342.225 (person 0) or
    # 90 · 0.05² = 0.225 (39 others): Satterthwaite's df 2 (Σ c)² / Σ (1 − π) c² =
    # 2 · 351² / (0.9 · (342.225² + 39 · 0.225²)) = 2.3377. The interval rests on one
    # disagreement, not on 39 df.
    n_all = 400
    y = np.ones(n_all)
    f = y.copy()
    f[0] = -1.0
    labelled = np.zeros(n_all, dtype=bool)
    labelled[np.arange(0, n_all, 10)] = True
    found = prediction_powered_ratio(
        y, np.ones(n_all), f, np.ones(n_all), labelled, np.full(n_all, 0.1),
        {"image": np.arange(n_all)}, lam=1.0,
    )  # fmt: skip
    assert found.linearised is not None
    expected = 2 * 351.0**2 / (0.9 * (342.225**2 + 39 * 0.225**2))
    assert found.linearised[0].sampling_df == pytest.approx(expected, rel=1e-9)
    # The interval's df combines it with the images' (399) for the annotator's own spread,
    # next to nothing here: never below it, nearly it.
    assert expected <= found.inference.df < expected + 0.1


def test_is_the_ppi_mean_of_the_authors_for_a_uniform_sample() -> None:
    """The estimate of ppi-python's ``ppi_mean_pointestimate`` (Angelopoulos et al. 2023,
    PPI++ eq. for the mean): λ·mean(f over everyone) + mean(y − λ·f over the labelled)."""
    rng = np.random.default_rng(3)
    n_all = 300
    y = rng.choice([-1.0, 1.0], n_all, p=[0.3, 0.7])
    f = np.where(rng.random(n_all) < 0.85, y, -y)
    pi = uniform_probabilities(n_all, 60)
    drawn = draw_sample(pi, "uniform", rng)
    assert drawn.sum() == 60
    ours = prediction_powered_ratio(
        y, np.ones(n_all), f, np.ones(n_all), drawn, pi, {"image": np.arange(n_all)}, lam=0.7
    )
    theirs = 0.7 * f.mean() + (y[drawn] - 0.7 * f[drawn]).mean()
    assert ours.inference.value == pytest.approx(theirs)


def test_inverse_probability_weighting_is_unbiased_under_an_active_design() -> None:
    rng = np.random.default_rng(11)
    n_all, budget, draws = 400, 80, 3000
    y = rng.choice([-1.0, 1.0], n_all, p=[0.35, 0.65])
    hard = rng.random(n_all) < 0.25
    # The annotator errs on hard persons (and people are more often +1 there: the unweighted
    # mean of an active sample over-counts them).
    y[hard] = np.where(rng.random(hard.sum()) < 0.9, 1.0, -1.0)
    f = np.where(rng.random(n_all) < np.where(hard, 0.6, 0.98), y, -y)
    pi = active_probabilities(np.where(hard, 0.4, 0.02), budget)
    truth = float(y.mean())
    weighted, naive = [], []
    for _ in range(draws):
        drawn = draw_sample(pi, "active", rng)
        found = prediction_powered_ratio(
            y, np.ones(n_all), f, np.ones(n_all), drawn, pi, {"image": np.arange(n_all)}, lam=0.8
        )
        weighted.append(found.inference.value)
        naive.append(float(y[drawn].mean()))
    mc_se = float(np.std(weighted)) / np.sqrt(draws)
    assert abs(np.mean(weighted) - truth) < 4 * mc_se + 0.003
    # Without the weights the same draws are far off: the test can fail.
    assert np.mean(naive) - truth > 0.1


def test_active_probabilities_worked_by_hand() -> None:
    # sqrt(u) = [0, 0, 1, 1] → shape [0, 0, .5, .5]; π = 2 (0.8 · shape + 0.2 / 4).
    pi = active_probabilities([0.0, 0.0, 1.0, 1.0], 2)
    assert pi.tolist() == pytest.approx([0.1, 0.1, 0.9, 0.9])
    # Capped at 1, the excess spread over the rest; the sum stays the budget.
    pi = active_probabilities([1.0, 0.01, 0.01, 0.01, 0.01], 2)
    assert pi[0] == 1.0 and pi.sum() == pytest.approx(2.0) and (pi > 0).all()


def test_annotator_uncertainty_reads_confidence_disagreement_abstention_flags() -> None:
    assert annotator_uncertainty("feminine", 0.9) == pytest.approx(0.1)
    assert annotator_uncertainty("feminine", None) == 0.5
    assert annotator_uncertainty("cannot_identify", 0.99) == 1.0
    assert annotator_uncertainty(None, None) == 1.0
    assert annotator_uncertainty("feminine", 0.9, others=["masculine"]) == 1.0
    assert annotator_uncertainty("feminine", 0.9, flagged=True) == 0.75


def test_expected_half_width_shrinks_toward_what_labels_cannot_reduce() -> None:
    rng = np.random.default_rng(5)
    n_all = 500
    y = rng.choice([-1.0, 1.0], n_all)
    f = np.where(rng.random(n_all) < 0.9, y, -y)
    pi = uniform_probabilities(n_all, 50)
    found = prediction_powered_ratio(
        y, np.ones(n_all), f, np.ones(n_all), draw_sample(pi, "uniform", rng), pi,
        {"image": np.arange(n_all)},
    )  # fmt: skip
    now = (found.inference.ci_high - found.inference.ci_low) / 2
    later10, later50 = expected_half_width(found, 10), expected_half_width(found, 50)
    assert now > later10 > later50
    # All of the sampling variance gone is the floor.
    floor = now * np.sqrt(1 - found.sampling_variance / found.inference.se**2)
    assert later50 > floor


def _figure(seed: int, n_all: int = 40) -> tuple[PredictionPowered, list[int]]:
    """A figure over 20 images of two persons, every fourth person labelled (λ 0.5)."""
    rng = np.random.default_rng(seed)
    y = rng.choice([-1.0, 1.0], n_all)
    f = np.where(rng.random(n_all) < 0.8, y, -y)
    drawn = np.zeros(n_all, dtype=bool)
    drawn[::4] = True
    images = [i // 2 for i in range(n_all)]
    found = prediction_powered_ratio(
        y, np.ones(n_all), f, np.ones(n_all), drawn, np.full(n_all, 0.25), {"image": images},
        lam=0.5,
    )  # fmt: skip
    return found, images


def test_a_difference_of_a_figure_with_itself_over_the_same_units_is_exactly_zero() -> None:
    # What two terms share cancels when their units are resampled jointly: the same persons in
    # the same images give B − A = 0 with no variance at all.
    found, images = _figure(1)
    same = prediction_powered_combination([(1.0, found, {"image": images}),
                                           (-1.0, found, {"image": images})])  # fmt: skip
    assert same.inference.value == pytest.approx(0.0)
    assert same.inference.se == pytest.approx(0.0, abs=1e-12)
    assert same.lambdas == (0.5, 0.5) and same.n_persons == 80 and same.n_labelled == 20


def test_a_difference_over_disjoint_units_adds_the_variances_worked_by_hand() -> None:
    # One figure over G = 20 images has variance G/(G − 1) · Σ z² / N² (z: an image's summed
    # influence). Two copies in disjoint images, scaled by N_total / N_k = 2 and signed: 2G
    # images, Σ z'² = 8 Σ z², N_total = 2N, so the variance is 2G/(2G − 1) · 2 Σ z² / N², and
    # its ratio to the one figure's 4 (G − 1)/(2G − 1) = 76/39 (the bootstrap's G/(G − 1) of
    # each design, not exactly 2).
    found, images = _figure(2)
    elsewhere = [i + 100 for i in images]
    apart = prediction_powered_combination(
        [(1.0, found, {"image": images}), (-1.0, found, {"image": elsewhere})]
    )
    assert apart.inference.value == pytest.approx(0.0)
    assert (apart.inference.se / found.inference.se) ** 2 == pytest.approx(76 / 39)
    # A gap of two different figures: the difference of their values, each term's λ kept.
    other, _ = _figure(3)
    gap = prediction_powered_combination(
        [(1.0, found, {"image": images}), (-1.0, other, {"image": elsewhere})]
    )
    assert gap.inference.value == pytest.approx(found.inference.value - other.inference.value)
    assert gap.labels_only.value == pytest.approx(found.labels_only.value - other.labels_only.value)


def test_degrees_of_freedom_are_at_most_the_labelled_persons_less_one() -> None:
    # 40 images, 3 of them labelled: the rectifier's variance rests on 3 persons, df 2.
    rng = np.random.default_rng(4)
    y = rng.choice([-1.0, 1.0], 40)
    drawn = np.zeros(40, dtype=bool)
    drawn[[0, 10, 20]] = True
    y[[0, 10, 20]] = [1.0, -1.0, 1.0]
    found = prediction_powered_ratio(
        y, np.ones(40), y, np.ones(40), drawn, np.full(40, 0.075), {"image": np.arange(40)},
        lam=0.0,
    )  # fmt: skip
    assert found.labels_only.df == 2.0
    # One labelled person: no interval at all.
    drawn[[10, 20]] = False
    one = prediction_powered_ratio(
        y, np.ones(40), y, np.ones(40), drawn, np.full(40, 0.075), {"image": np.arange(40)},
        lam=0.0,
    )  # fmt: skip
    assert not one.inference.has_interval


def test_welch_satterthwaite_by_hand() -> None:
    # Variances 4 (df 9) and 1 (df 4): (4 + 1)² / (4²/9 + 1²/4) = 25 / (73/36) = 900/73.
    assert welch_satterthwaite([(4.0, 9.0), (1.0, 4.0)]) == (5.0, pytest.approx(900 / 73))
    # A part known exactly (df ∞) adds its variance but nothing to the denominator:
    # (2 + 2)² / (2²/4) = 16.
    assert welch_satterthwaite([(2.0, math.inf), (2.0, 4.0)]) == (4.0, pytest.approx(16.0))
    assert welch_satterthwaite([(0.0, 3.0)]) == (0.0, math.inf)


def test_a_gap_takes_welch_satterthwaite_df_over_its_terms_sampling_parts() -> None:
    # Two figures on disjoint images, 10 labelled persons each: the gap's sampling part is the
    # sum of the two terms' and its df their Welch–Satterthwaite combination, each term's df at
    # most its labelled persons less one (both terms' own are above 9, so 9 each:
    # (V₁ + V₂)² / ((V₁² + V₂²) / 9)); the interval's df at most 9 + 9.
    found, images = _figure(2)
    other, _ = _figure(3)
    gap = prediction_powered_combination(
        [(1.0, found, {"image": images}), (-1.0, other, {"image": [i + 100 for i in images]})]
    )
    assert found.linearised is not None and other.linearised is not None
    assert gap.linearised is not None
    assert (found.n_labelled, other.n_labelled) == (10, 10)
    v1, v2 = (p.linearised[0].sampling_variance for p in (found, other))
    assert min(p.linearised[0].sampling_df for p in (found, other)) > 9.0
    assert gap.linearised[0].sampling_variance == pytest.approx(v1 + v2)
    assert gap.linearised[0].sampling_df == pytest.approx(9 * (v1 + v2) ** 2 / (v1**2 + v2**2))
    assert 1.0 <= gap.inference.df <= 18.0


def test_a_look_without_the_labels_own_figure_keeps_the_estimate() -> None:
    images = [i // 2 for i in range(40)]
    rng = np.random.default_rng(5)
    y = rng.choice([-1.0, 1.0], 40)
    f = np.where(rng.random(40) < 0.8, y, -y)
    drawn = np.zeros(40, dtype=bool)
    drawn[::4] = True
    args = (y, np.ones(40), f, np.ones(40), drawn, np.full(40, 0.25), {"image": images})
    full, look = prediction_powered_ratio(*args), prediction_powered_ratio(*args, labels_only=False)
    assert look.inference == full.inference and look.lam == full.lam
    # Skipped, the labels' own figure is the estimate's (its width ratio 1), not λ = 0's.
    assert look.labels_only == look.inference and look.width_ratio == 1.0
    assert full.labels_only.value != full.inference.value

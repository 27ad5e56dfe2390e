"""Prediction-powered inference (:mod:`diptych.core.metrics.ppi`): numbers worked by hand, the
unbiasedness of inverse-probability weighting on a simulated population, the authors' mean."""

from __future__ import annotations

import numpy as np
import pytest

from diptych.core.metrics.ppi import (
    active_probabilities,
    annotator_uncertainty,
    draw_sample,
    expected_half_width,
    prediction_powered_ratio,
    uniform_probabilities,
)

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


def test_tuned_lambda_is_zero_without_relation_and_clipped() -> None:
    # The annotator's values carry no covariance with people's (centred) labels: λ* = 0, as
    # worked in the hand example's numbers (num = 2·1·0.5 + 2·(−1)·0.5 = 0).
    found = prediction_powered_ratio(
        [1, 0, -1, 0], [1, 0, 1, 0], [1, 1, 1, -1], ONES4, [True, False, True, False],
        [0.5] * 4, {"image": [0, 1, 2, 3]},
    )  # fmt: skip
    assert found.lam == 0.0
    # An annotator that says half of the truth: Cov/Var = 2, clipped to 1.
    rng = np.random.default_rng(0)
    y = rng.choice([-1.0, 1.0], 200)
    found = prediction_powered_ratio(
        y, np.ones(200), y / 2, np.ones(200), rng.random(200) < 0.5, np.full(200, 0.5),
        {"image": np.arange(200)},
    )  # fmt: skip
    assert found.lam == 1.0


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

"""The retrieval validity benchmark scores its simulations with the kernels `retrieval_metrics`
is made of; these tests hold the two together, so the benchmark measures the shipped figures."""

from __future__ import annotations

import numpy as np
import pytest

from bench.validity.retrieval import designs as vr


@pytest.mark.parametrize("seed", [0, 7])
def test_the_benchmark_kernels_give_what_retrieval_metrics_gives(seed: int) -> None:
    vr.check_kernel(seed, n_occ=6)


def test_the_permutation_test_never_rejects_more_often_than_its_exact_size() -> None:
    # With 20 permutations a p-value falls below 0.05 only when the observed mean is the most
    # extreme of 21 exchangeable values: the rejection count over n null simulations is
    # Binomial(n, 1/21), so 80 simulations see more than 12 rejections with probability < 1e-3.
    rejected = vr._permutation_rejections(np.random.default_rng(3), 80, n_occ=20)
    assert set(rejected) == set(vr.FIGURE_NAMES)
    assert max(rejected.values()) <= 12


def test_the_population_truth_is_the_mean_excess_of_many_occupations() -> None:
    truth = vr.truth()
    # Bias@K's excess: the favoured groups (Black_male, White_male) are both male, so men lead
    # the top K; a random ranking of a balanced pool has E[Bias@K] = 0 by symmetry.
    assert truth["bias"] > 0.1
    assert vr._null()["bias"] == pytest.approx(0.0, abs=1e-12)
    assert all(np.isfinite(v) for v in truth.values())


@pytest.mark.parametrize("seed", [0, 5])
def test_the_counterfactual_set_benchmark_scores_as_retrieval_metrics_does(seed: int) -> None:
    from bench.validity.retrieval import sets as vs

    vs.check_kernel(seed)


def test_the_simulated_pools_rank_whole_sets_together() -> None:
    # The design's point, as on PAIRS with a blind encoder: a set's images are near duplicates,
    # so many top 4s are one whole set, and the 160 queries of the first pool hold few
    # distinct top-4 lists between them.
    from bench.validity.retrieval import sets as vs

    lay = vs.Layout()
    rng = np.random.default_rng(2)
    whole, distinct = [], []
    for _ in range(10):
        ranked = vs.orders(lay, vs.scores(rng, lay, 0.0))
        tops = np.concatenate([block[:, : vs.K] for block in ranked])
        assert tops.shape == (4 * (40 + 10 + 18), 4)
        whole.append((lay.set_of[tops] == lay.set_of[tops][:, :1]).all(axis=1).mean())
        distinct.append(len({tuple(row) for row in ranked[0][:, : vs.K]}))
    assert 0.15 < np.mean(whole) < 0.6
    assert np.mean(distinct) < 40


@pytest.mark.parametrize("seed", [0, 3])
def test_the_near_bound_benchmark_scores_as_retrieval_metrics_does(seed: int) -> None:
    from bench.validity.retrieval import bounds as vb

    vb.check_kernel(seed, n_occ=6)


def test_the_near_bound_design_keeps_the_figures_near_their_bounds() -> None:
    # The design's point: most top 4s are one whole set, so MaxSkew@4 averages under a tenth
    # of its range [0, ln 4] and |Bias@4| under a tenth of [0, 1].
    from bench.validity.retrieval import bounds as vb

    ranked = vb.orders(np.random.default_rng(4), 200, 0.0)
    values, nulls = vb.per_query(ranked, "groups")
    assert 0 < values["max_skew"].mean() < 0.1 * np.log(4)
    assert 0 < values["abs_bias"].mean() < 0.1
    # Under the null the figures' means sit on their within-set expectations (excess 0).
    assert abs((values["max_skew"] - nulls["max_skew"]).mean()) < 0.01

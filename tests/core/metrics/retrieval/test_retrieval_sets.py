"""The within-set null of the retrieval metrics, worked by hand on small rankings, and the
interval of units that share a pool."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from diptych.core.errors import InputFileError
from diptych.core.metrics.retrieval import intervals as retrieval_intervals
from diptych.core.metrics.retrieval import sets as retrieval_sets
from diptych.core.metrics.retrieval.csv_reader import read_ranking_csv
from diptych.core.metrics.retrieval.intervals import (
    excess_over_units,
    figure_ranges,
    permutation_half_width,
)
from diptych.core.metrics.retrieval.metrics import (
    QueryRanking,
    RankedItem,
    query_metrics,
    retrieval_metrics,
)
from diptych.core.metrics.retrieval.null import permutation_means
from diptych.core.metrics.retrieval.results import RANDOM_RANKING, WITHIN_SETS
from diptych.core.metrics.retrieval.sets import permutation_design

LN2 = math.log(2)
GROUPS = ("Black_female", "Black_male", "White_female", "White_male")
W = [1 / math.log2(i + 1) for i in range(1, 5)]


def item(set_no: int, group: str, pool: str = "p") -> RankedItem:
    return RankedItem(f"{pool}/s{set_no}/{group}", group, group.split("_")[1], None, f"s{set_no}")


def two_sets(pool: str = "p") -> list[RankedItem]:
    """Two sets of the four groups, ranked s0 BM, s1 BM, s0 WM, s0 BF, s1 WM, s1 BF, s0 WF,
    s1 WF (the order of the probe's hand-worked test)."""
    sets = (0, 1, 0, 0, 1, 1, 0, 1)
    groups = ("Black_male", "Black_male", "White_male", "Black_female", "White_male",
              "Black_female", "White_female", "White_female")  # fmt: skip
    return [item(s, g, pool) for s, g in zip(sets, groups, strict=True)]


def hand_null_ndkl() -> float:
    """E[NDKL@4] when the top 4's places come from sets 0, 1, 0, 0 (four groups each, 1/4
    desired): i=1 ln 4; i=2 the two sets' groups agree 1 time in 4 (ln 4) else (1,1) ln 2;
    i=3 set 1's group is one of set 0's two 1 time in 2, giving (2,1): 2/3 ln(8/3) +
    1/3 ln(4/3), else (1,1,1): ln(4/3); i=4 it is one of set 0's three 3 times in 4, giving
    (2,1,1): 1/2 ln 2, else (1,1,1,1): 0."""
    ln = math.log
    e = [
        ln(4),
        ln(4) / 4 + 3 / 4 * ln(2),
        (2 / 3 * ln(8 / 3) + 1 / 3 * ln(4 / 3)) / 2 + ln(4 / 3) / 2,
        3 / 4 * 0.5 * ln(2),
    ]
    return sum(w * x for w, x in zip(W, e, strict=True)) / sum(W)


def test_the_within_set_expectation_by_hand() -> None:
    q = query_metrics(QueryRanking("q", two_sets()), 4, "pool")
    assert q.null_name == WITHIN_SETS and q.null_method == "exact"
    # Observed: Black male twice in the top 4 -> MaxSkew ln 2. Under the null set 0's three
    # places hold three distinct groups and set 1's any: (1,1,1,1) 1 time in 4, else a pair.
    assert q.max_skew == pytest.approx(LN2)
    assert q.null["max_skew"] == pytest.approx(3 / 4 * LN2)
    assert q.null["ndkl"] == pytest.approx(hand_null_ndkl())
    # A group is absent exactly when the top 4 is not (1,1,1,1): 3 times in 4.
    assert q.null["absent"] == pytest.approx(3 / 4)
    # Men among the top 4: set 0's three places hold 1 or 2 of its 2 men (1/2 each), set 1's
    # place a man 1 time in 2: 1, 2, 3 men with 1/4, 1/2, 1/4; |Bias@4| 1/2, 0, 1/2.
    assert q.null["bias"] == pytest.approx(0.0)
    assert q.null["abs_bias"] == pytest.approx(1 / 4)
    # The random ranking stays beside it, as context: 54/70 ln 2 (16 of 70 draws balanced).
    assert q.random["max_skew"] == pytest.approx(54 / 70 * LN2)


def test_a_top_k_of_one_whole_set_scores_its_null_exactly() -> None:
    # s0's four images first: the top 4 holds every group once whatever the encoder prefers
    # within the set, so the figure equals its null and the excess is 0 — where a random
    # ranking would call it "less skewed than chance" (54/70 ln 2 expected, 0 seen).
    ranked = [item(0, g) for g in GROUPS] + [item(1, g) for g in GROUPS]
    q = query_metrics(QueryRanking("q", ranked), 4, "pool")
    assert q.max_skew == 0.0 and q.null["max_skew"] == pytest.approx(0.0)
    assert q.ndkl == pytest.approx(q.null["ndkl"])
    assert q.random["max_skew"] == pytest.approx(54 / 70 * LN2)


def test_monte_carlo_agrees_with_the_exact_expectation(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(4)
    ranked = two_sets() + [item(2, g) for g in GROUPS]
    order = rng.permutation(len(ranked))
    ranking = QueryRanking("q", [ranked[i] for i in order])
    exact = query_metrics(ranking, 6, "pool").null
    monkeypatch.setattr(retrieval_sets, "EXACT_LIMIT", 1)
    retrieval_sets.clear_caches()
    try:
        drawn = query_metrics(ranking, 6, "pool", seed=5)
    finally:
        retrieval_sets.clear_caches()
    assert drawn.null_method == "permutation"
    for name in ("max_skew", "min_skew", "ndkl", "sc_ndkl"):
        se = drawn.null_mc_se[name]
        assert 0 < se < 0.01
        assert abs(drawn.null[name] - exact[name]) < 5 * se, name


def test_the_permutation_replicates_average_to_the_exact_null() -> None:
    # Two queries of one pool (different orders of the same three sets): the mean of the
    # within-set permutations' replicates is the mean of the two queries' exact nulls.
    base = two_sets() + [item(2, g) for g in GROUPS]
    other = [base[i] for i in (8, 0, 9, 1, 2, 10, 3, 4, 11, 5, 6, 7)]
    rankings = [QueryRanking("a", base, "a"), QueryRanking("b", other, "b")]
    design = permutation_design(rankings, 4)
    assert design.n_sets == 3 and len(design.pools) == 1
    assert design.units_share_pools(["a", "b"]) and not design.units_share_pools(["a", "a"])
    reps = permutation_means(design.pools, design.queries, design.n_groups, "pool", 4000, 1)
    nulls = [query_metrics(r, 4, "pool").null for r in rankings]
    for name in ("max_skew", "ndkl", "abs_bias"):
        want = (nulls[0][name] + nulls[1][name]) / 2
        assert abs(reps[name].mean() - want) < 5 * reps[name].std() / math.sqrt(4000), name


def test_the_permutation_half_width_matches_the_permutation_test() -> None:
    # 39 replicates: a deviation beyond the largest of 39 gives p = 1/40 < 0.05, one between
    # the two largest p = 2/40 = 0.05, not below it: the half-width is the largest deviation.
    reps = np.arange(1.0, 40.0)
    assert permutation_half_width(reps, 0.0, 0.95) == 39.0
    # 1000: p < 0.05 needs at most 49 replicates as far, so the 50th largest deviation.
    reps = np.arange(1000.0)
    assert permutation_half_width(reps, 0.0, 0.95) == 950.0
    # 19 replicates can never give p < 0.05 ((1 + 0) / 20 = 0.05): no interval.
    assert permutation_half_width(np.arange(19.0), 0.0, 0.95) == math.inf


def _shared_pool(n_units: int) -> list[QueryRanking]:
    """``n_units`` answer options, one wording each, ranking one pool of six sets, each by a
    fixed reordering of the sets with set-level ties (a near-duplicate encoder)."""
    rng = np.random.default_rng(0)
    sets = [[item(s, g) for g in rng.permutation(GROUPS)] for s in range(6)]
    out = []
    for u in range(n_units):
        order = rng.permutation(6)
        out.append(QueryRanking(f"u{u}", [x for s in order for x in sets[s]], f"u{u}"))
    return out


def test_units_that_share_a_pool_take_the_wider_interval() -> None:
    rankings = _shared_pool(8)
    result = retrieval_metrics(rankings, 6, "pool", n_perm=400, seed=3)
    assert result.shared_pools and result.null == WITHIN_SETS and result.n_sets == 6
    assert "units share pools" in result.unit_note
    ranges = figure_ranges([0.25] * 4, 6)
    for name, f in result.figures.items():
        rows = [(q.figure(name) or 0.0, q.null[name], q.unit) for q in result.queries]
        alone = excess_over_units(
            [v for v, _, _ in rows], [e for _, e, _ in rows], [ranges[name]] * len(rows),
            {"occupation": [u for *_, u in rows]},
        )  # fmt: skip
        half = f.excess.ci_high - f.excess.value
        # The union holds the units' own interval, and both stay inside the excess's range.
        assert f.excess.ci_low <= alone.ci_low + 1e-12, name
        assert f.excess.ci_high >= alone.ci_high - 1e-12, name
        low, high = f.excess.bounds
        assert low <= f.excess.ci_low <= f.excess.ci_high <= high, name
        assert f.mean.bounds[0] <= f.mean.ci_low <= f.mean.ci_high <= f.mean.bounds[1], name
        assert f.excess.value == pytest.approx(alone.value)
        assert f.excess.units == {"occupation": 8, "counterfactual set": 6}
        assert f.excess.p_value == pytest.approx(max(alone.p_value, f.permutation_p or 1.0))
        # The mean carries the same interval around the null's expectation.
        assert f.mean.value == pytest.approx(f.excess.value + f.expected)
        assert f.mean.ci_high - f.mean.value == pytest.approx(half)
    # Queries of one unit per pool are independent units: the interval is the units' own.
    single = retrieval_metrics(rankings[:1], 6, "pool", n_perm=50)
    assert not single.shared_pools


def test_items_without_sets_keep_the_random_ranking_null() -> None:
    ranked = [RankedItem(f"i{n}", g) for n, g in enumerate("aabbccdd")]
    result = retrieval_metrics([QueryRanking("q", ranked)], 4, "pool", n_perm=50)
    assert result.null == RANDOM_RANKING and result.n_sets == 0
    f = result.figures["max_skew"]
    assert f.expected == pytest.approx(f.random_ranking or 0.0)
    assert f.to_dict()["null"]["name"] == RANDOM_RANKING


def test_a_query_must_list_whole_sets() -> None:
    full = two_sets()
    partial = QueryRanking("short", full[:6])
    with pytest.raises(ValueError) as info:
        retrieval_metrics([QueryRanking("q", full), partial], 2, "uniform", n_perm=10)
    assert "query 'short' lists 3 of the 4 items of set 's0'" in str(info.value)
    mixed = [*full[:-1], RankedItem("loose", "White_female", "female")]
    with pytest.raises(ValueError, match="some items name a counterfactual set and others none"):
        retrieval_metrics([QueryRanking("q", mixed)], 2, "pool", n_perm=10)


def test_the_csv_set_column(tmp_path: Path) -> None:
    path = tmp_path / "ranking.csv"
    rows = "".join(
        f"q,{r},{i.group},{i.gender},{i.item},{i.set_id}\n" for r, i in enumerate(two_sets(), 1)
    )
    path.write_text("query,rank,group,gender,item,set\n" + rows)
    (ranking,) = read_ranking_csv(path)
    assert [i.set_id for i in ranking.ranked[:3]] == ["s0", "s1", "s0"]
    result = retrieval_metrics([ranking], 4, "pool", n_perm=50)
    assert result.figures["max_skew"].expected == pytest.approx(3 / 4 * LN2)
    path.write_text("query,rank,group,set\nq,1,a,s0\n")
    with pytest.raises(InputFileError, match="a set column needs an item column"):
        read_ranking_csv(path)
    path.write_text("query,rank,group,item,set\nq,1,a,x,\n")
    with pytest.raises(InputFileError, match="line 2: empty set"):
        read_ranking_csv(path)


def test_a_tie_with_the_permutation_limit_is_not_significant() -> None:
    # 39 replicates, two of them 0.1 from the null's 0.5: the limit is the largest deviation,
    # 0.1. An observed mean of 0.6 ties with it (0.6 − 0.5 is 0.1 only up to rounding): the
    # test counts the ties, p = 3/40, and the interval reaches 0 exactly.
    from diptych.core.metrics.retrieval.null import permutation_p_value
    from diptych.core.metrics.uncertainty.resampling import t_inference

    reps = np.asarray([0.6, 0.4] + [0.5] * 37)
    p = permutation_p_value(0.6, reps, 0.5)
    assert p == pytest.approx(3 / 40)
    units = t_inference(0.6 - 0.5, 0.001, 20, n=40, units={"occupation": 21}, design="clustered")
    out = retrieval_intervals.widened_by_permutation(units, reps, 0.5, p, moved=("pool", 1))
    assert out.ci_low == 0.0 and out.p_value == pytest.approx(3 / 40)


def test_tabulated_figures_equal_the_computed_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    from diptych.core.metrics.retrieval import null as retrieval_null

    rankings = _shared_pool(5)
    design = permutation_design(rankings, 4)
    args = (design.pools, design.queries, design.n_groups, "pool", 60, 9)
    tabulated = permutation_means(*args)
    monkeypatch.setattr(retrieval_null, "_TABLE_LIMIT", 0)
    computed = permutation_means(*args)
    for name, v in computed.items():
        assert np.allclose(tabulated[name], v, rtol=0, atol=1e-12), name


def test_too_few_permutations_give_no_interval() -> None:
    # 19 permutations can never give p < 0.05: the interval is infinite and says why.
    result = retrieval_metrics(_shared_pool(4), 6, "pool", n_perm=19)
    excess = result.figures["max_skew"].excess
    assert (excess.ci_low, excess.ci_high) == (-math.inf, math.inf)
    assert (
        excess.reason == "19 permutations cannot reach the 95% level: no interval (use at least 20)"
    )


def test_sorted_states_give_the_same_expectations_as_full_vectors() -> None:
    # Sets holding each of five groups once, desired 1/5 each: the law of a prefix kept as
    # sorted counts (partitions) gives every figure's expectation as the full vectors do.
    draws = (((1,) * 5, 1), ((1,) * 5, 2), ((1,) * 5, 3))
    p = np.full(5, 0.2)
    for exchangeable in (True, False):
        law = retrieval_sets._composition(draws, 5, exchangeable)
        assert law is not None
    full = retrieval_sets._composition(draws, 5, False)
    sorted_ = retrieval_sets._composition(draws, 5, True)
    assert full is not None and sorted_ is not None
    assert sorted_[0].shape[0] < full[0].shape[0]
    for comps_prob in (full, sorted_):
        assert comps_prob[1].sum() == pytest.approx(1.0)
    kl_full = full[1] @ retrieval_sets._prefix_terms(full[0], 6, p)[0]
    kl_sorted = sorted_[1] @ retrieval_sets._prefix_terms(sorted_[0], 6, p)[0]
    assert kl_sorted == pytest.approx(kl_full)
    ends_full = retrieval_sets._final_terms(full[0], 6, p)
    ends_sorted = retrieval_sets._final_terms(sorted_[0], 6, p)
    for name in ends_full:
        assert sorted_[1] @ ends_sorted[name] == pytest.approx(full[1] @ ends_full[name])


def test_unbalanced_sets_take_the_full_vectors() -> None:
    # Sets of unequal make-up (a a b | a b c | b c c), uniform shares: the exact expectation
    # (full count vectors) agrees with 20,000 drawn within-set permutations.
    def it(s: int, n: int, g: str) -> RankedItem:
        return RankedItem(f"s{s}-{n}", g, None, None, f"s{s}")

    ranked = [it(0, 0, "a"), it(1, 0, "a"), it(0, 1, "a"), it(2, 0, "b"), it(1, 1, "b"),
              it(2, 1, "c"), it(0, 2, "b"), it(1, 2, "c"), it(2, 2, "c")]  # fmt: skip
    ranking = QueryRanking("q", ranked)
    exact = query_metrics(ranking, 4, "uniform")
    assert exact.null_method == "exact"
    retrieval_sets.clear_caches()
    try:
        limit = retrieval_sets.EXACT_LIMIT
        retrieval_sets.EXACT_LIMIT = 1
        drawn = query_metrics(ranking, 4, "uniform", seed=2)
    finally:
        retrieval_sets.EXACT_LIMIT = limit
        retrieval_sets.clear_caches()
    for name in ("max_skew", "min_skew", "ndkl", "sc_ndkl"):
        assert abs(drawn.null[name] - exact.null[name]) < 5 * drawn.null_mc_se[name] + 1e-12

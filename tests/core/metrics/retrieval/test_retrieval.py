"""Retrieval metrics pinned by hand on small rankings (the arithmetic is in the comments)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from diptych.core.errors import InputFileError
from diptych.core.metrics.retrieval import null as retrieval_null
from diptych.core.metrics.retrieval.csv_reader import read_ranking_csv
from diptych.core.metrics.retrieval.metrics import (
    QueryRanking,
    RankedItem,
    bias_at_k,
    desired_distribution,
    max_skew_at_k,
    min_skew_at_k,
    ndkl_at_k,
    query_metrics,
    retrieval_metrics,
    sc_max_skew_at_k,
    sc_min_skew_at_k,
    sc_ndkl_at_k,
    sc_skews_at_k,
    skews_at_k,
)
from diptych.core.metrics.retrieval.null import random_ranking_expectation

LN2 = math.log(2)
LN4_3 = math.log(4 / 3)
#: Discounts 1/log2(i+1) for i = 1, 2, 3: 1, 1/log2(3) = 0.63093, 1/2.
W1, W2, W3 = 1.0, 1 / math.log2(3), 0.5

#: Six retrieved items, best first. Pool shares: a 3/6 = 1/2, b 2/6 = 1/3, c 1/6.
RANKED = ["a", "a", "b", "a", "b", "c"]


def test_desired_distributions() -> None:
    assert desired_distribution(RANKED, "pool") == pytest.approx(
        {"a": 1 / 2, "b": 1 / 3, "c": 1 / 6}
    )
    # uniform: three groups present, 1/3 each
    assert desired_distribution(RANKED, "uniform") == pytest.approx({g: 1 / 3 for g in "abc"})
    with pytest.raises(ValueError, match="desired"):
        desired_distribution(RANKED, "equal")  # type: ignore[arg-type]


def test_skews_at_3_against_the_pool() -> None:
    # top 3 = a, a, b: shares a 2/3, b 1/3, c 0
    # skew a = ln((2/3)/(1/2)) = ln(4/3) = 0.28768; b = ln((1/3)/(1/3)) = 0; c absent: -inf
    skews = skews_at_k(RANKED, 3, "pool")
    assert skews["a"] == pytest.approx(LN4_3)
    assert skews["b"] == pytest.approx(0.0)
    assert skews["c"] == -math.inf
    assert max_skew_at_k(RANKED, 3, "pool") == pytest.approx(LN4_3)
    assert min_skew_at_k(RANKED, 3, "pool") == -math.inf


def test_skews_at_3_against_uniform() -> None:
    # desired 1/3 each: a = ln((2/3)/(1/3)) = ln 2; b = ln 1 = 0; c = -inf
    skews = skews_at_k(RANKED, 3, "uniform")
    assert skews == pytest.approx({"a": LN2, "b": 0.0, "c": -math.inf})
    assert max_skew_at_k(RANKED, 3, "uniform") == pytest.approx(LN2)


def test_ndkl_at_3_against_the_pool_drops_zero_terms() -> None:
    # Q = pool (1/2, 1/3, 1/6); P_i = shares of the top i; 0·ln 0 = 0 drops absent groups.
    # i=1: P = (1, 0, 0): KL = 1·ln(1/(1/2)) = ln 2
    # i=2: P = (1, 0, 0): KL = ln 2
    # i=3: P = (2/3, 1/3, 0): KL = 2/3·ln(4/3) + 1/3·ln 1 = 2/3·ln(4/3) = 0.19179
    # NDKL = (1·ln2 + 0.63093·ln2 + 0.5·0.19179) / (1 + 0.63093 + 0.5)
    #      = (0.69315 + 0.43733 + 0.09589) / 2.13093 = 0.57551
    expected = (W1 * LN2 + W2 * LN2 + W3 * (2 / 3) * LN4_3) / (W1 + W2 + W3)
    assert ndkl_at_k(RANKED, 3, "pool") == pytest.approx(expected)
    assert expected == pytest.approx(0.57551, abs=1e-5)


def test_ndkl_against_uniform() -> None:
    # Q = (1/3, 1/3, 1/3). i=1: KL = ln 3; i=2: ln 3; i=3: 2/3·ln 2 + 1/3·ln 1 = 2/3·ln 2
    expected = (W1 * math.log(3) + W2 * math.log(3) + W3 * (2 / 3) * LN2) / (W1 + W2 + W3)
    assert ndkl_at_k(RANKED, 3, "uniform") == pytest.approx(expected)


def test_parity_gives_zero_skews_but_ndkl_remembers_the_first_rank() -> None:
    # a, b, a, b: pool 1/2 each; top 2 = a, b: both skews ln(1) = 0
    ranked = ["a", "b", "a", "b"]
    assert skews_at_k(ranked, 2, "pool") == pytest.approx({"a": 0.0, "b": 0.0})
    # i=1: P = (1, 0): KL = ln 2; i=2: P = (1/2, 1/2): KL = 0 -> NDKL = ln2 / (1 + 0.63093)
    assert ndkl_at_k(ranked, 2, "pool") == pytest.approx(LN2 / (W1 + W2))
    assert ndkl_at_k(ranked, 2, "pool") == pytest.approx(0.42500, abs=1e-5)


def test_k_is_clamped_to_the_list() -> None:
    # K = 10 on a list of 6 is K = 6: the whole list, whose shares are the pool's -> skews 0
    assert skews_at_k(RANKED, 10, "pool") == pytest.approx({"a": 0.0, "b": 0.0, "c": 0.0})
    assert ndkl_at_k(RANKED, 10, "pool") == pytest.approx(ndkl_at_k(RANKED, 6, "pool"))
    with pytest.raises(ValueError, match="at least 1"):
        skews_at_k(RANKED, 0, "pool")


def test_bias_at_k() -> None:
    genders = ["male", "female", "male", "neutral", None, "female"]
    # top 4: male 2, female 1 (neutral not counted): (2 - 1) / (2 + 1) = 1/3
    assert bias_at_k(genders, 4) == pytest.approx(1 / 3)
    # top 6: male 2, female 2: 0
    assert bias_at_k(genders, 6) == 0.0
    # top 2 of an all-neutral list: neither gender, 0 by definition
    assert bias_at_k(["neutral", None], 2) == 0.0
    # all female: (0 - 2) / 2 = -1
    assert bias_at_k(["female", "female", "male"], 2) == -1.0


def test_socialcounterfactuals_conventions() -> None:
    # Absent group c: skew 0 instead of -inf, so MinSkew is 0 where ours is -inf.
    assert sc_skews_at_k(RANKED, 3) == pytest.approx({"a": LN4_3, "b": 0.0, "c": 0.0})
    assert sc_max_skew_at_k(RANKED, 3) == pytest.approx(LN4_3)
    assert sc_min_skew_at_k(RANKED, 3) == 0.0
    # Its "NDKL": Σ_a p_pool(a)·skew_i(a) with absent groups at 0, discounted:
    # i=1: skews a = ln(1/(1/2)) = ln 2, b = c = 0 -> 1/2·ln 2
    # i=2: same -> 1/2·ln 2
    # i=3: a = ln(4/3), b = 0, c = 0 -> 1/2·ln(4/3)
    expected = (W1 * LN2 / 2 + W2 * LN2 / 2 + W3 * LN4_3 / 2) / (W1 + W2 + W3)
    assert sc_ndkl_at_k(RANKED, 3) == pytest.approx(expected)
    assert sc_ndkl_at_k(RANKED, 3) != pytest.approx(ndkl_at_k(RANKED, 3, "pool"))


def test_sc_ndkl_is_not_a_divergence() -> None:
    # a, b, b on a pool of a 1/3, b 2/3. i=1: skew a = ln 3, b absent -> 0: 1/3·ln 3
    # i=2: a = ln((1/2)/(1/3)) = ln 1.5, b = ln((1/2)/(2/3)) = ln 0.75:
    #      1/3·ln 1.5 + 2/3·ln 0.75 = 0.13516 - 0.19179 = -0.05663 (negative: no divergence is)
    ranked = ["a", "b", "b"]
    term2 = math.log(1.5) / 3 + 2 * math.log(0.75) / 3
    assert term2 < 0
    expected = (W1 * math.log(3) / 3 + W2 * term2) / (W1 + W2)
    assert sc_ndkl_at_k(ranked, 2) == pytest.approx(expected)


def test_ties_in_scores_are_broken_by_item_id() -> None:
    items = [
        RankedItem("x2", "b", "female", 0.9),
        RankedItem("x1", "a", "male", 0.9),
        RankedItem("x3", "a", "male", 0.5),
    ]
    forward = QueryRanking.from_scores("q", items)
    backward = QueryRanking.from_scores("q", list(reversed(items)))
    assert (
        [r.item for r in forward.ranked] == ["x1", "x2", "x3"] == [r.item for r in backward.ranked]
    )
    # top 1 = a whatever the input order: pool a 2/3 -> skew a = ln(1/(2/3)) = ln 1.5
    assert max_skew_at_k(forward.groups, 1, "pool") == pytest.approx(math.log(1.5))
    assert bias_at_k(forward.genders, 1) == 1.0


def test_retrieval_metrics_means_and_json() -> None:
    q1 = QueryRanking("doctor", [RankedItem(f"d{i}", g) for i, g in enumerate(RANKED)])
    # q2: a, b, c, a, b, c at K=3 -> every share 1/3 = pool share: all skews 0, no -inf
    q2 = QueryRanking("nurse", [RankedItem(f"n{i}", g) for i, g in enumerate("abcabc")])
    result = retrieval_metrics([q1, q2], 3, "pool", n_boot=200, seed=1, n_perm=200)
    by_query = {q.query: q for q in result.queries}
    assert by_query["nurse"].max_skew == pytest.approx(0.0)
    # mean MaxSkew = (ln(4/3) + 0) / 2 = 0.14384
    assert result.means["max_skew"].value == pytest.approx(LN4_3 / 2)
    est = result.means["max_skew"]
    assert est.ci_low <= est.value <= est.ci_high and est.n == 2
    # MinSkew: the definition's mean would be (-inf + 0) / 2 = -inf; the headline takes
    # SocialCounterfactuals' absent-as-0, (0 + 0) / 2 = 0, and counts the absent query.
    assert by_query["doctor"].min_skew == -math.inf
    assert result.means["min_skew"].value == 0.0
    assert (result.absent_queries, result.absent_units) == (1, 1)
    assert "bias" not in result.figures and "abs_bias" not in result.figures  # no genders
    assert result.unit == "query" and "each query is its own unit" in result.unit_note
    doc = json.loads(json.dumps(result.to_dict()))
    assert doc["figures"]["min_skew"]["mean"]["value"] == 0.0
    assert doc["min_skew_definition"]["queries_with_absent_group"] == 1
    assert doc["queries"][0]["skews"]["c"] == "-inf"
    assert doc["clamped"]["queries"] == []
    assert doc["unit"]["name"] == "query"
    assert doc["bootstrap"] == {
        "unit": "query",
        "n_boot": 200,
        "seed": 1,
        "confidence": 0.95,
        "n_perm": 200,
    }
    assert doc["figures"]["max_skew"]["random_ranking"]["method"] == "exact"
    assert doc["figures"]["max_skew"]["random_ranking"]["interval"] is None


def test_retrieval_metrics_reports_clamping_and_bias() -> None:
    short = QueryRanking("pilot", [RankedItem("p1", "a", "male"), RankedItem("p2", "b", "female")])
    result = retrieval_metrics([short], 5, "uniform", n_boot=50)
    assert result.clamped == ["pilot"] and result.queries[0].k == 2
    assert result.means["bias"].value == 0.0  # one male, one female
    assert result.to_dict()["clamped"]["queries"] == ["pilot"]


#: The issue's case: 12 groups of 8 in the whole ranking (96 items); the top 12 holds 8 of
#: group "g0" and one each of four others.
TOP12 = ["g0"] * 8 + ["g1", "g2", "g3", "g4"]
WHOLE = TOP12 + [f"g{i}" for i in range(12) for _ in range(8 - TOP12.count(f"g{i}"))]


def test_pool_on_the_whole_ranking_gives_ln_8() -> None:
    assert len(WHOLE) == 96 and all(WHOLE.count(f"g{i}") == 8 for i in range(12))
    ranking = QueryRanking("q", [RankedItem(f"i{n}", g) for n, g in enumerate(WHOLE)])
    result = retrieval_metrics([ranking], 12, "pool", n_boot=50, n_perm=10)
    # share of g0 in the top 12: 8/12, in the pool 8/96 = 1/12: ln(8)
    assert result.queries[0].max_skew == pytest.approx(math.log(8))


def test_pool_on_a_list_no_longer_than_k_is_refused() -> None:
    ranking = QueryRanking("q", [RankedItem(f"i{n}", g) for n, g in enumerate(TOP12)])
    with pytest.raises(ValueError) as info:
        retrieval_metrics([ranking], 12, "pool", n_boot=50)
    message = str(info.value)
    assert "\n" not in message and "lists 12 items, no more than K = 12" in message
    assert "pass the whole ranking or use desired=uniform" in message
    # uniform scores the top 12 alone: five groups present, 1/5 each -> ln((8/12) / (1/5))
    result = retrieval_metrics([ranking], 12, "uniform", n_boot=50, n_perm=10)
    assert result.queries[0].max_skew == pytest.approx(math.log(10 / 3))


def _pairs_max_skew_at_4() -> float:
    """E[MaxSkew@4] of a random ranking of 4 groups of 50 against the pool (1/4 each): the
    top 4's largest group count m gives ln(m / 4 / (1/4)) = ln m. Counts of draws by pattern:
    (1,1,1,1) 50^4; (2,1,1,0) 12 arrangements of C(50,2)·50²; (2,2,0,0) 6 of C(50,2)²;
    (3,1,0,0) 12 of C(50,3)·50; (4,0,0,0) 4 of C(50,4); out of C(200,4)."""
    c = math.comb
    total = c(200, 4)
    p2 = (12 * c(50, 2) * 50 * 50 + 6 * c(50, 2) ** 2) / total
    p3 = 12 * c(50, 3) * 50 / total
    p4 = 4 * c(50, 4) / total
    assert (50**4) / total + p2 + p3 + p4 == pytest.approx(1.0)
    return p2 * math.log(2) + p3 * math.log(3) + p4 * math.log(4)


def _pairs_ndkl_at_4() -> float:
    """E[NDKL@4] of the same random ranking, prefix by prefix (KL against 1/4 each):
    i=1: ln 4; i=2: same group ln 4, else ln 2; i=3: (3) ln 4, (2,1) 2/3 ln(8/3) + 1/3 ln(4/3),
    (1,1,1) ln(4/3); i=4: (1,1,1,1) 0, (2,1,1) 1/2 ln 2, (2,2) ln 2, (3,1) 3/4 ln 3, (4) ln 4."""
    c = math.comb
    ln = math.log
    same2 = 4 * c(50, 2) / c(200, 2)
    e2 = same2 * ln(4) + (1 - same2) * ln(2)
    t3 = c(200, 3)
    p3_3 = 4 * c(50, 3) / t3
    p3_21 = 12 * c(50, 2) * 50 / t3
    p3_111 = 4 * 50**3 / t3
    assert p3_3 + p3_21 + p3_111 == pytest.approx(1.0)
    e3 = p3_3 * ln(4) + p3_21 * (2 / 3 * ln(8 / 3) + 1 / 3 * ln(4 / 3)) + p3_111 * ln(4 / 3)
    t4 = c(200, 4)
    p4_211 = 12 * c(50, 2) * 50 * 50 / t4
    p4_22 = 6 * c(50, 2) ** 2 / t4
    p4_31 = 12 * c(50, 3) * 50 / t4
    p4_4 = 4 * c(50, 4) / t4
    e4 = p4_211 * 0.5 * ln(2) + p4_22 * ln(2) + p4_31 * 0.75 * ln(3) + p4_4 * ln(4)
    w = [1 / math.log2(i + 1) for i in range(1, 5)]
    return (w[0] * ln(4) + w[1] * e2 + w[2] * e3 + w[3] * e4) / sum(w)


def test_random_ranking_expectation_is_exact_on_pairs() -> None:
    groups = [g for g in "abcd" for _ in range(50)]
    null = random_ranking_expectation(groups, None, 4, "pool")
    assert null.method == "exact"
    assert null.values["max_skew"] == pytest.approx(_pairs_max_skew_at_4())
    assert null.values["max_skew"] == pytest.approx(0.7098, abs=1e-4)  # the 0.71
    assert null.values["ndkl"] == pytest.approx(_pairs_ndkl_at_4())
    assert null.values["ndkl"] == pytest.approx(0.9512, abs=1e-4)  # the 0.95
    # A group is absent unless the top 4 is (1,1,1,1): 1 - 50^4 / C(200,4)
    assert null.values["absent"] == pytest.approx(1 - 50**4 / math.comb(200, 4))


def test_random_ranking_expectation_of_bias() -> None:
    # 3 male, 1 female, 1 neutral; top 2 ~ hypergeometric over C(5,2) = 10 pairs:
    # MM 3 -> 1; MF 3 -> 0; MN 3 -> 1; FN 1 -> -1; so E[bias] = (3 + 3 - 1) / 10 = 1/2,
    # E[|bias|] = (3 + 3 + 1) / 10 = 7/10.
    genders: list[str | None] = ["male", "male", "male", "female", "neutral"]
    null = random_ranking_expectation(list("abcde"), genders, 2, "uniform")
    assert null.values["bias"] == pytest.approx(0.5)
    assert null.values["abs_bias"] == pytest.approx(0.7)


def test_monte_carlo_expectation_agrees_with_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    groups = [g for g in "abcdef" for _ in range(3)] + ["a", "b"]
    exact = random_ranking_expectation(groups, None, 5, "pool")
    assert exact.method == "exact"
    monkeypatch.setattr(retrieval_null, "EXACT_LIMIT", 3)
    retrieval_null._exact_groups.cache_clear()
    try:
        approx = random_ranking_expectation(groups, None, 5, "pool", seed=3)
    finally:
        retrieval_null._exact_groups.cache_clear()
    assert approx.method == "permutation" and approx.draws == retrieval_null.MC_DRAWS
    for name in ("max_skew", "ndkl", "sc_ndkl"):
        se = approx.mc_se[name]
        assert 0 < se < 0.01
        assert abs(approx.values[name] - exact.values[name]) < 5 * se


def test_batch_kernel_equals_the_definitions() -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    names = list("abcde")
    for _ in range(40):
        n = int(rng.integers(6, 15))
        codes = rng.integers(0, 5, n)
        groups = [names[c] for c in codes]
        k = int(rng.integers(1, n))
        for mode in ("pool", "uniform"):
            want = desired_distribution(groups, mode)
            p = np.asarray([want.get(g, 0.0) for g in names])
            got = retrieval_null.group_measures(codes[None, :k], p)
            assert got["max_skew"][0] == pytest.approx(max_skew_at_k(groups, k, mode))
            assert got["min_skew_definition"][0] == pytest.approx(min_skew_at_k(groups, k, mode))
            assert got["min_skew"][0] == pytest.approx(sc_min_skew_at_k(groups, k, mode))
            assert got["ndkl"][0] == pytest.approx(ndkl_at_k(groups, k, mode))
            assert got["sc_ndkl"][0] == pytest.approx(sc_ndkl_at_k(groups, k, mode))
            q = query_metrics(
                QueryRanking("q", [RankedItem(f"i{j}", g) for j, g in enumerate(groups)]), k, mode
            )
            assert q.ndkl == pytest.approx(ndkl_at_k(groups, k, mode))
            assert q.sc_ndkl == pytest.approx(sc_ndkl_at_k(groups, k, mode))
            assert q.skews == pytest.approx(skews_at_k(groups, k, mode))


def test_permutation_p_value_of_a_segregated_pair() -> None:
    # Pool a, a, b, b ranked a, a first: MaxSkew@2 = ln 2 against the pool's 1/2 each. A random
    # top 2 is one group in 2 of C(4,2) = 6 draws (ln 2), else mixed (0): E = ln 2 / 3. Every
    # permutation is as far from E as the observed one with probability 1/3.
    ranking = QueryRanking("q", [RankedItem(f"i{n}", g) for n, g in enumerate("aabb")])
    result = retrieval_metrics([ranking], 2, "pool", n_boot=50, n_perm=3000, seed=2)
    figure = result.figures["max_skew"]
    assert figure.expected == pytest.approx(math.log(2) / 3)
    assert figure.excess.value == pytest.approx(2 / 3 * math.log(2))
    assert figure.permutation_p == pytest.approx(1 / 3, abs=0.03)
    # one query: one unit, no interval, and the result says why
    assert figure.excess.reason == "one query only: no interval"


def _occupations(n: int) -> list[QueryRanking]:
    """n occupations, each with four wordings ranking the same 8 items (two of each of four
    groups) the same way: one group on top."""
    out = []
    for o in range(n):
        items = [RankedItem(f"o{o}-{j}", g) for j, g in enumerate("aabbccdd")]
        for w in range(4):
            out.append(QueryRanking(f"occupation {o} wording {w}", items, f"occupation {o}"))
    return out


def test_wordings_of_an_occupation_are_one_unit() -> None:
    result = retrieval_metrics(_occupations(3), 4, "pool", n_boot=200, n_perm=200)
    assert result.unit == "occupation" and result.n_units == 3
    excess = result.figures["max_skew"].excess
    assert excess.units == {"occupation": 3} and excess.n == 12 and excess.df == 2
    # Every query: a, a, b, b on top of two of each -> MaxSkew ln((2/4)/(1/4)) = ln 2; a random
    # top 4 of 8 is (1,1,1,1) in 16 of 70 draws, else holds a group twice: E = 54/70 ln 2.
    assert excess.value == pytest.approx(16 / 70 * math.log(2))
    # The wordings rank the same items: the permutation moves their labels together, so the
    # mean is ln 2 exactly when each occupation's permuted top 4 holds a pair.
    assert result.figures["max_skew"].permutation_p is not None


def test_mixing_queries_with_and_without_an_occupation_is_refused() -> None:
    rankings = _occupations(2)
    rankings.append(QueryRanking("loose", list(rankings[0].ranked)))
    with pytest.raises(ValueError, match="no occupation while others have"):
        retrieval_metrics(rankings, 4, "pool", n_boot=50)


def test_an_item_with_two_groups_is_refused() -> None:
    a = QueryRanking("q1", [RankedItem("x", "a"), RankedItem("y", "b"), RankedItem("z", "a")])
    b = QueryRanking("q2", [RankedItem("x", "b"), RankedItem("y", "a"), RankedItem("z", "a")])
    with pytest.raises(ValueError, match="item 'x' is a in query 'q1' but b"):
        retrieval_metrics([a, b], 2, "pool", n_boot=50)


def test_read_ranking_csv(tmp_path: Path) -> None:
    path = tmp_path / "ranking.csv"
    path.write_text(
        "Query,rank,group,gender\n"
        "doctor,2,b,female\n"
        "doctor,1,a,MALE\n"
        "nurse,1,a,\n"
        "doctor,3,a,neutral\n"
    )
    rankings = read_ranking_csv(path)
    assert [r.query for r in rankings] == ["doctor", "nurse"]
    assert rankings[0].groups == ["a", "b", "a"]
    assert rankings[0].genders == ["male", "female", "neutral"]
    assert rankings[1].genders == [None]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("q,1,a,man\n", "line 2: gender 'man' is not one of male, female, neutral"),
        ("q,first,a,\n", "line 2: rank 'first' is not a whole number"),
        ("q,0,a,\n", "line 2: rank 0 is below 1"),
        ("q,1,a,\nq,1,b,\n", "line 3: query 'q' has rank 1 already (line 2)"),
        ("q,1,a,\nq,3,b,\n", "line 3: query 'q' has rank 3 but no rank 2"),
        ("q,1,,\n", "line 2: empty group"),
    ],
)
def test_bad_rows_are_refused_with_their_line(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "ranking.csv"
    path.write_text("query,rank,group,gender\n" + body)
    with pytest.raises(InputFileError) as info:
        read_ranking_csv(path)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_missing_column_is_named(tmp_path: Path) -> None:
    path = tmp_path / "ranking.csv"
    path.write_text("query,group\nq,a\n")
    with pytest.raises(InputFileError, match="missing column"):
        read_ranking_csv(path)


def test_read_ranking_csv_with_occupations(tmp_path: Path) -> None:
    path = tmp_path / "ranking.csv"
    path.write_text(
        "query,rank,group,occupation\n"
        "a doctor,1,a,doctor\n"
        "a photo of a doctor,1,a,doctor\n"
        "a nurse,1,b,nurse\n"
    )
    rankings = read_ranking_csv(path)
    assert [r.unit for r in rankings] == ["doctor", "doctor", "nurse"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("q,1,a,doctor\nq,2,b,nurse\n", "line 3: query 'q' has occupation 'nurse' here but"),
        ("q,1,a,\n", "line 2: empty occupation"),
    ],
)
def test_bad_occupations_are_refused(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "ranking.csv"
    path.write_text("query,rank,group,occupation\n" + body)
    with pytest.raises(InputFileError) as info:
        read_ranking_csv(path)
    assert message in str(info.value) and "\n" not in str(info.value)

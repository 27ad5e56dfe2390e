"""Retrieval bias: Skew@K, MaxSkew@K, MinSkew@K, NDKL@K, Bias@K (DESIGN.md, ``metrics retrieval``).

A *query* (a neutral caption such as "a photo of a doctor") ranks a pool of images, each of a
social *group* (an intersection such as "black female"). The metrics compare the groups' shares
among the top K with a *desired* distribution:

* ``pool`` -- the groups' shares in the query's whole ranked list (what a model indifferent to
  the group would retrieve: Geyik et al.'s "demographic parity" on the pool searched);
* ``uniform`` -- equal shares over the groups present in the list.

Definitions (natural logarithms; 0·ln 0 = 0):

* Skew@K(a) = ln(p_topK(a) / p_desired(a)); −inf when ``a`` is absent from the top K.
* MaxSkew@K / MinSkew@K: the largest / smallest skew over the groups.
* NDKL@K = (1/Z)·Σ_{i=1..K} KL(D_top-i ‖ D_desired) / log2(i+1), Z = Σ_{i=1..K} 1/log2(i+1).
* Bias@K = (male − female) / (male + female) among the top K (0 when both are 0); items of
  neutral or unknown gender are not counted.

**The SocialCounterfactuals code** (IntelLabs/multimodal_cognitive_ai,
``SocialCounterfactuals/evaluation/train.py``) differs, and its conventions are reported beside
ours (the ``sc_`` functions) so that its published figures can be compared:

* a group absent from the top K gets skew 0 rather than −inf, so its MinSkew@K is never below 0
  when some group is missing and its MaxSkew@K can be 0 for a maximally skewed list;
* its "NDKL" sums, at each prefix length i, the (absent-as-0) skews weighted by the groups'
  *pool* shares, Σ_a p_pool(a)·skew_i(a) -- a cross term that is not a KL divergence (it can be
  negative, and is not 0 only at parity) -- discounted and normalised as above. The supplement
  (section 10.1) says the sum runs over prefix lengths 1..K² with K = |A1|·|A2|; the code sums
  over 1..K. :func:`sc_ndkl_at_k` sums over 1..``k``: pass K² to follow the text.
* Its Bias@K counts "men" by the position of an image in the list rather than by its gender
  label, so it is not reproduced.

Lists shorter than K are scored on the whole list (K clamped); :func:`retrieval_metrics` records
which queries were clamped. With ``pool`` a list no longer than K is refused: its top K is the
whole list, so every skew would be 0 whatever the ranking (a file holding only the top K rows
must be scored with ``uniform``, or given the whole ranking).

**Over queries** (:func:`retrieval_metrics`): each query's figures and their means, with

* **a null that is not 0** — MaxSkew@K, NDKL@K and |Bias@K| are above 0 for a ranking that
  ignores the groups. When the items name their counterfactual sets (``RankedItem.set_id``)
  the null keeps the ranking and permutes the attribute *within each set*
  (:mod:`diptych.core.metrics.retrieval.sets`): a set's images are near duplicates to any
  encoder, and the question is how it orders them. Without sets it is a random ranking of
  each list (:mod:`diptych.core.metrics.retrieval.null`), which is also always given as
  context. Beside each mean: its expectation under the null, the **excess** over it (the
  headline) with its interval, and a permutation p-value;
* **units** — the four wordings of an occupation ("a doctor", "a photo of a doctor" ...) rank
  the same pool and move together, so the intervals resample occupations with all their
  wordings (:mod:`diptych.core.metrics.uncertainty.resampling`); without occupations each query is
  its own unit, and the result says so. Where units share a pool (PAIRS: every answer option ranks
  its subset's images) they are not independent either: the interval is widened to what the
  permutation of the labels within the sets gives, and the test must reject under both;
* **ranges** — each interval stays inside what its figure can be (MaxSkew@K and NDKL@K in
  [0, ln(1/p_min)], MinSkew@K at most 0, Bias@K in [−1, 1]), made on the logit scale of the
  figure's place in its range, never cut to it (:mod:`diptych.core.metrics.retrieval.intervals`);
* **MinSkew@K** — its mean is the SocialCounterfactuals convention (an absent group's skew 0),
  finite; the definition's −inf is reported as the number of queries with an absent group.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

from diptych.core.metrics.retrieval.intervals import (
    excess_over_units,
    figure_ranges,
    mean_range,
    permutation_p,
    shifted,
    widened_by_permutation,
)
from diptych.core.metrics.retrieval.null import (
    MC_DRAWS,
    permutation_means,
    random_ranking_expectation,
)

# The ranking records live in their own module (retrieval_sets reads them too); they are
# re-exported here, where callers have always found them.
from diptych.core.metrics.retrieval.ranking import GENDERS as GENDERS
from diptych.core.metrics.retrieval.ranking import QueryRanking
from diptych.core.metrics.retrieval.ranking import RankedItem as RankedItem
from diptych.core.metrics.retrieval.results import (
    DEFAULT_N_PERM,
    DESIRED_MODES,
    MEASURES,
    RANDOM_RANKING,
    WITHIN_SETS,
    Desired,
    MeasureSummary,
    QueryMetrics,
    RetrievalResult,
)
from diptych.core.metrics.retrieval.sets import (
    SET_UNIT,
    permutation_design,
    ranking_within_sets,
)
from diptych.core.metrics.uncertainty.bootstrap import DEFAULT_CONFIDENCE

# --- per query ----------------------------------------------------------------------------------


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError(f"K must be at least 1, got {k}")


def desired_distribution(groups: Sequence[str], mode: Desired) -> dict[str, float]:
    """The desired share of each group present in a query's whole ranked list ``groups``."""
    if not groups:
        raise ValueError("a ranked list without items has no distribution")
    counts = Counter(groups)
    if mode == "pool":
        return {g: c / len(groups) for g, c in counts.items()}
    if mode == "uniform":
        return {g: 1 / len(counts) for g in counts}
    raise ValueError(f"desired must be one of {', '.join(DESIRED_MODES)}, got {mode!r}")


def _desired(groups: Sequence[str], desired: Desired | Mapping[str, float]) -> dict[str, float]:
    if isinstance(desired, str):
        return desired_distribution(groups, desired)
    return {g: float(p) for g, p in desired.items() if p > 0}


def _top_shares(groups: Sequence[str], k: int) -> dict[str, float]:
    top = groups[: min(k, len(groups))]
    return {g: c / len(top) for g, c in Counter(top).items()}


def skews_at_k(
    groups: Sequence[str], k: int, desired: Desired | Mapping[str, float]
) -> dict[str, float]:
    """Skew@K of every group of the desired distribution: ln(p_topK / p_desired), −inf when
    the group is absent from the top K. ``groups`` is the query's whole list, best first."""
    _check_k(k)
    want = _desired(groups, desired)
    top = _top_shares(groups, k)
    return {g: math.log(top[g] / p) if g in top else -math.inf for g, p in sorted(want.items())}


def max_skew_at_k(groups: Sequence[str], k: int, desired: Desired | Mapping[str, float]) -> float:
    return max(skews_at_k(groups, k, desired).values())


def min_skew_at_k(groups: Sequence[str], k: int, desired: Desired | Mapping[str, float]) -> float:
    return min(skews_at_k(groups, k, desired).values())


def kl_divergence(p: Mapping[str, float], q: Mapping[str, float]) -> float:
    """KL(P ‖ Q) in nats, with 0·ln 0 = 0; +inf when P puts mass where Q has none."""
    total = 0.0
    for g, pg in p.items():
        if pg == 0:
            continue
        qg = q.get(g, 0.0)
        if qg == 0:
            return math.inf
        total += pg * math.log(pg / qg)
    return total


def _discounts(k: int) -> list[float]:
    return [1 / math.log2(i + 1) for i in range(1, k + 1)]


def ndkl_at_k(groups: Sequence[str], k: int, desired: Desired | Mapping[str, float]) -> float:
    """NDKL@K: the KL divergences of the top-1 .. top-K distributions from the desired one,
    averaged with weights 1/log2(i+1) (Geyik et al. 2019). 0 only when every prefix is at
    parity; K is clamped to the list's length."""
    _check_k(k)
    want = _desired(groups, desired)
    k = min(k, len(groups))
    weights = _discounts(k)
    total = sum(
        w * kl_divergence(_top_shares(groups, i), want) for i, w in enumerate(weights, start=1)
    )
    return total / sum(weights)


def bias_at_k(genders: Sequence[str | None], k: int) -> float:
    """Bias@K = (male − female) / (male + female) among the top K; 0 when neither appears."""
    _check_k(k)
    top = Counter(genders[: min(k, len(genders))])
    male, female = top["male"], top["female"]
    return 0.0 if male + female == 0 else (male - female) / (male + female)


# --- the SocialCounterfactuals code's conventions ---------------------------------------------


def sc_skews_at_k(
    groups: Sequence[str], k: int, desired: Desired | Mapping[str, float] = "pool"
) -> dict[str, float]:
    """Skew@K as the SocialCounterfactuals code computes it: an absent group's skew is 0."""
    return {g: 0.0 if s == -math.inf else s for g, s in skews_at_k(groups, k, desired).items()}


def sc_max_skew_at_k(
    groups: Sequence[str], k: int, desired: Desired | Mapping[str, float] = "pool"
) -> float:
    return max(sc_skews_at_k(groups, k, desired).values())


def sc_min_skew_at_k(
    groups: Sequence[str], k: int, desired: Desired | Mapping[str, float] = "pool"
) -> float:
    return min(sc_skews_at_k(groups, k, desired).values())


def sc_ndkl_at_k(
    groups: Sequence[str], k: int, desired: Desired | Mapping[str, float] = "pool"
) -> float:
    """The SocialCounterfactuals code's "NDKL": at each prefix length i = 1..k, the absent-as-0
    skews weighted by the desired shares, Σ_a p_desired(a)·skew_i(a), discounted by
    1/log2(i+1) and normalised by Z. Not a KL divergence (see the module docstring)."""
    _check_k(k)
    want = _desired(groups, desired)
    k = min(k, len(groups))
    weights = _discounts(k)
    total = 0.0
    for i, w in enumerate(weights, start=1):
        skews = sc_skews_at_k(groups, i, want)
        total += w * sum(want[g] * s for g, s in skews.items())
    return total / sum(weights)


# --- over queries -------------------------------------------------------------------------------


def _check_pool_lengths(rankings: Sequence[QueryRanking], k: int, desired: Desired) -> None:
    if desired != "pool":
        return
    for r in rankings:
        if len(r.ranked) <= k:
            raise ValueError(
                f"query {r.query!r} lists {len(r.ranked)} items, no more than K = {k}: "
                "desired=pool compares the top K with the whole ranking; pass the whole ranking "
                "or use desired=uniform"
            )


def query_metrics(
    ranking: QueryRanking, k: int, desired: Desired, *, seed: int = 0
) -> QueryMetrics:
    """Every metric of one query at K (clamped to the list's length), with each figure's
    expectation under the null (within the sets its items name, which it must list whole)
    and under a random ranking of the same list."""
    _check_k(k)
    groups = ranking.groups
    if not groups:
        raise ValueError(f"query {ranking.query!r} retrieved nothing")
    _check_pool_lengths([ranking], k, desired)
    genders = ranking.genders
    used = min(k, len(groups))
    has_gender = any(g is not None for g in genders)
    random = random_ranking_expectation(
        groups, genders if has_gender else None, used, desired, seed=seed
    )
    null, null_name = random, RANDOM_RANKING
    if ranking.ranked[0].set_id is not None:
        null = ranking_within_sets(ranking, used, desired_distribution(groups, desired), seed)
        null_name = WITHIN_SETS
    skews, ndkl, sc_ndkl = _one_pass(groups, used, desired)
    sc_skews = [0.0 if v == -math.inf else v for v in skews.values()]
    return QueryMetrics(
        query=ranking.query,
        n_items=len(groups),
        k=used,
        skews=skews,
        max_skew=max(skews.values()),
        min_skew=min(skews.values()),
        ndkl=ndkl,
        bias=bias_at_k(genders, used) if has_gender else None,
        sc_max_skew=max(sc_skews),
        sc_min_skew=min(sc_skews),
        sc_ndkl=sc_ndkl,
        unit=ranking.unit,
        random=random.values,
        random_method=random.method,
        random_mc_se=random.mc_se,
        null=null.values,
        null_method=null.method,
        null_mc_se=null.mc_se,
        null_name=null_name,
    )


def _one_pass(
    groups: Sequence[str], k: int, desired: Desired
) -> tuple[dict[str, float], float, float]:
    """Skew@K of every group, NDKL@K and the SocialCounterfactuals NDKL in one pass over the
    prefixes: what :func:`skews_at_k`, :func:`ndkl_at_k` and :func:`sc_ndkl_at_k` define,
    without recounting each prefix (the tests hold the two ways equal)."""
    want = _desired(groups, desired)
    weights = _discounts(k)
    counts: Counter[str] = Counter()
    kl_total = sc_total = 0.0
    for i, (group, w) in enumerate(zip(groups[:k], weights, strict=True), start=1):
        counts[group] += 1
        kl = sc = 0.0
        for a, c in counts.items():
            q = want.get(a, 0.0)
            if q == 0:
                kl = math.inf
                continue
            s = math.log(c / i / q)
            kl += c / i * s
            sc += q * s
        kl_total += w * kl
        sc_total += w * sc
    skews = {
        a: math.log(counts[a] / k / p) if counts[a] else -math.inf for a, p in sorted(want.items())
    }
    z = sum(weights)
    return skews, kl_total / z, sc_total / z


def retrieval_metrics(
    rankings: Sequence[QueryRanking],
    k: int,
    desired: Desired = "pool",
    *,
    n_boot: int = 2000,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
    n_perm: int = DEFAULT_N_PERM,
) -> RetrievalResult:
    """Every metric per query; per figure its mean over queries, its expectation under the
    null (the attribute permuted within each counterfactual set when every item names its
    set — ``RankedItem.set_id``, each query listing whole sets — else a random ranking of the
    same lists), and the excess over it (the headline), with intervals over occupations when
    every ranking names one (``QueryRanking.unit``), else over queries, widened by the
    permutation when units share a pool, and a permutation p-value.

    The Bias@K figures are over the queries with gender information only (absent when none
    has). ``desired="pool"`` refuses a list no longer than K: its top K is the whole list.
    """
    if desired not in DESIRED_MODES:
        raise ValueError(f"desired must be one of {', '.join(DESIRED_MODES)}, got {desired!r}")
    if not rankings:
        raise ValueError("no queries to score")
    _check_k(k)
    if n_perm < 1:
        raise ValueError(f"n_perm must be at least 1, got {n_perm}")
    _check_pool_lengths(rankings, k, desired)
    named = [r.unit is not None for r in rankings]
    if any(named) and not all(named):
        missing = next(r.query for r in rankings if r.unit is None)
        raise ValueError(
            f"query {missing!r} has no occupation while others have; name one for every query "
            "or for none"
        )
    unit = "occupation" if all(named) else "query"
    design = permutation_design(rankings, k)
    per_query = [query_metrics(r, k, desired, seed=seed) for r in rankings]
    unit_of = [q.unit if q.unit is not None else q.query for q in per_query]
    replicates = permutation_means(
        design.pools, design.queries, design.n_groups, desired, n_perm, seed
    )
    shared = design.units_share_pools(unit_of)
    moved = (SET_UNIT, design.n_sets) if design.n_sets else ("pool", len(design.pools))
    ranges = [
        figure_ranges(list(desired_distribution(r.groups, desired).values()), q.k)
        for r, q in zip(rankings, per_query, strict=True)
    ]
    figures: dict[str, MeasureSummary] = {}
    for name in MEASURES:
        rows = [
            (float(v), q.null[name], q.random[name], u, span[name])
            for q, u, span in zip(per_query, unit_of, ranges, strict=True)
            if (v := q.figure(name)) is not None
        ]
        if not rows:
            continue
        expected = sum(row[1] for row in rows) / len(rows)
        # The excess with the units' interval, inside its range (mean's range less the null).
        over_units = excess_over_units(
            [row[0] for row in rows],
            [row[1] for row in rows],
            [row[4] for row in rows],
            {unit: [row[3] for row in rows]},
            confidence=confidence,
            n_boot=n_boot,
            seed=seed,
        )
        p_perm = None
        excess = over_units
        if name in replicates:
            p_perm = permutation_p(over_units, replicates[name], expected)
            if shared:
                excess = widened_by_permutation(
                    over_units, replicates[name], expected, p_perm, moved=moved
                )
        figures[name] = MeasureSummary(
            name=name,
            mean=shifted(excess, expected, mean_range([row[4] for row in rows])),
            expected=expected,
            expected_method=_method([q.null_method for q in per_query], design.n_sets > 0),
            expected_mc_se=_mc_se([q.null_mc_se for q in per_query], name),
            excess=excess,
            permutation_p=p_perm,
            n_perm=n_perm,
            null_name=WITHIN_SETS if design.n_sets else RANDOM_RANKING,
            random_ranking=sum(row[2] for row in rows) / len(rows),
            random_method=_method([q.random_method for q in per_query], False),
            random_mc_se=_mc_se([q.random_mc_se for q in per_query], name),
        )
    absent_units = {u for q, u in zip(per_query, unit_of, strict=True) if q.absent}
    return RetrievalResult(
        k=k,
        desired=desired,
        queries=per_query,
        figures=figures,
        unit=unit,
        n_units=len(set(unit_of)),
        absent_queries=sum(q.absent for q in per_query),
        absent_units=len(absent_units),
        clamped=[q.query for q in per_query if q.k < k],
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
        n_perm=n_perm,
        null=WITHIN_SETS if design.n_sets else RANDOM_RANKING,
        n_sets=design.n_sets,
        n_pools=len(design.pools),
        shared_pools=shared,
    )


def _method(methods: Sequence[str], within_sets: bool) -> str:
    """How the mean expectation was found: exact, or by Monte Carlo where a list needed it."""
    if all(m == "exact" for m in methods):
        return "exact"
    what = "within-set permutations" if within_sets else "random rankings"
    return f"Monte Carlo where needed ({MC_DRAWS} {what})"


def _mc_se(errors: Sequence[Mapping[str, float]], name: str) -> float | None:
    """A bound on the Monte Carlo error of the mean expectation: the largest of the lists'
    errors (lists of one pool share their draws, so the errors do not average out); None
    when every list's expectation is exact."""
    found = [e[name] for e in errors if name in e]
    return max(found) if found else None

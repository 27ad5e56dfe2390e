"""The null of counterfactual retrieval: the attribute permuted within each counterfactual set.

A counterfactual set is a handful of images made from one caption and one seed that differ only
in the social attributes (SocialCounterfactuals: one prompt and seed over every attribute
value; PAIRS: the four images of one scenario). To any encoder its images are near duplicates
(a tiny CLIP with random weights: cosine 0.996 within a set, 0.92 between), so a ranking moves
whole sets together, and a top K of one set is balanced whatever the encoder prefers. Treating
every image of a pool as exchangeable (a random ranking) therefore expects far more skew than
a ranking that is blind to the attributes but not to the scenes shows: it calls such an encoder
"less skewed than chance". The question SocialCounterfactuals asks is how an encoder orders the
variants of one scene, and its null keeps the ranking of the sets and shuffles the attribute
*within each set*: every set keeps its composition, and the images of a set take its attribute
values in a random order.

This module gives

* the **expectation of each per-query figure under that null**. The top i of a query takes
  m_s(i) places from set s; under the null those places carry a draw without replacement of
  m_s(i) of the set's labels (multivariate hypergeometric), independently across sets, so the
  top i's composition is the convolution of the sets' draws. Every figure is a function of the
  top-K composition or a discounted sum over prefixes of functions of the top-i composition
  (:mod:`diptych.core.metrics.retrieval.null`), so by linearity it needs only these
  convolutions, cached by what a prefix draws from which kind of set, so that the queries of
  a pool share them. When every set holds each group equally often and every group is desired
  equally (complete sets, the usual case) a composition is kept as its sorted counts: a top
  12 has at most 77 of them. Exact while at most :data:`EXACT_LIMIT` compositions arise, else
  a seeded Monte Carlo average over :data:`MC_DRAWS` within-set permutations with its
  standard error;
* the **interval and test when queries of several units rank one pool** (PAIRS: the answer
  options of a subset rank its scenarios' images together). Such units are not independent —
  160 queries of one PAIRS pool can hold 16 distinct top-4 lists between them — and a bootstrap
  over them misses what they share: which image of each set carries which attribute. The
  permutation distribution of the mean over queries (the attribute permuted within each set,
  every query of the pool seeing the same permutation) measures exactly that;
  :func:`~diptych.core.metrics.retrieval.intervals.widened_by_permutation` keeps the wider of
  the two intervals and the larger p-value.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from diptych.core.metrics.retrieval.null import (
    FEMALE,
    MALE,
    MC_DRAWS,
    OTHER,
    MonteCarloMeans,
    NullExpectation,
    PermutationPool,
    PermutationQuery,
    discounts,
    gender_measures,
    group_measures,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from diptych.core.metrics.retrieval.ranking import QueryRanking

#: Most compositions held at one prefix before the expectation is drawn instead.
EXACT_LIMIT = 20_000
#: The name of the unit the permutation moves, as the intervals report it.
SET_UNIT = "counterfactual set"
GENDER_CODES = {"male": MALE, "female": FEMALE}


@lru_cache(maxsize=4096)
def _draws(counts: tuple[int, ...], m: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Every composition of m labels drawn without replacement from a set whose label counts
    are ``counts``, with its hypergeometric probability Π C(c_g, x_g) / C(Σc, m)."""
    total = math.comb(sum(counts), m)
    out: list[tuple[tuple[int, ...], float]] = []

    def walk(g: int, left: int, acc: tuple[int, ...], ways: int) -> None:
        if g == len(counts):
            if left == 0:
                out.append((acc, ways / total))
            return
        room = sum(counts[g + 1 :])
        for x in range(max(0, left - room), min(counts[g], left) + 1):
            walk(g + 1, left - x, (*acc, x), ways * math.comb(counts[g], x))

    walk(0, m, (), 1)
    return tuple(out)


#: A prefix's draws: the sorted (set's label counts, places it has in the prefix) of every set
#: with a place there. Two prefixes with the same draws have the same composition's law.
Draws = tuple[tuple[tuple[int, ...], int], ...]
#: Most (state, draw) pairs one convolution step may form before the expectation is drawn.
_STEP_LIMIT = 2_000_000


@lru_cache(maxsize=4096)
def _draw_arrays(counts: tuple[int, ...], m: int) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    found = _draws(counts, m)
    vectors = np.asarray([x for x, _ in found], dtype=np.int64).reshape(len(found), len(counts))
    return vectors, np.fromiter((q for _, q in found), np.float64, len(found))


@lru_cache(maxsize=8192)
def _composition(
    draws: Draws, width: int, exchangeable: bool
) -> tuple[NDArray[np.int64], NDArray[np.float64]] | None:
    """The law of the summed composition of independent draws: its states and their
    probabilities, or None when they grow too many. ``exchangeable`` (every set holds each
    group equally often, every group desired equally) keeps each state as its counts sorted,
    largest first: the sum of exchangeable draws is exchangeable, so sorting loses nothing the
    figures need, and the states are partitions (77 at most for a top 12). Built on the law of
    all but the last draw, so prefixes that share draws share the work."""
    if not draws:
        return np.zeros((1, width), dtype=np.int64), np.ones(1)
    before = _composition(draws[:-1], width, exchangeable)
    if before is None:
        return None
    comps, prob = before
    vectors, q = _draw_arrays(*draws[-1])
    if comps.shape[0] * vectors.shape[0] > _STEP_LIMIT:
        return None
    summed = (comps[:, None, :] + vectors[None, :, :]).reshape(-1, width)
    weight = (prob[:, None] * q[None, :]).ravel()
    if exchangeable:
        summed = -np.sort(-summed, axis=1)
    states, which = np.unique(summed, axis=0, return_inverse=True)
    if states.shape[0] > EXACT_LIMIT:
        return None
    law = np.bincount(which.ravel(), weights=weight, minlength=states.shape[0])
    return states.astype(np.int64), law.astype(np.float64)


def _prefix_terms(
    comps: NDArray[np.int64], i: int, p: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """KL(top-i ‖ desired) and the SocialCounterfactuals term Σ_present p·ln(c/i/p) of each
    composition (0·ln 0 = 0; the sets' groups are all desired, so no term is infinite)."""
    present = comps > 0
    share = comps / i
    with np.errstate(divide="ignore", invalid="ignore"):
        log_ratio = np.where(present, np.log(np.where(present, share, 1.0) / p), 0.0)
    return (share * log_ratio).sum(axis=1), (np.where(present, p, 0.0) * log_ratio).sum(axis=1)


def _final_terms(
    comps: NDArray[np.int64], k: int, p: NDArray[np.float64]
) -> dict[str, NDArray[np.float64]]:
    """MaxSkew@K, MinSkew@K (an absent group's skew 0) and whether a desired group is absent."""
    desired = p > 0
    present = comps > 0
    with np.errstate(divide="ignore"):
        skew = np.where(present, np.log(np.maximum(comps, 1) / k / np.where(desired, p, 1.0)), 0.0)
    return {
        "max_skew": np.where(desired & present, skew, -np.inf).max(axis=1),
        "min_skew": np.where(desired, skew, np.inf).min(axis=1),
        "absent": (desired & ~present).any(axis=1).astype(np.float64),
    }


@lru_cache(maxsize=16384)
def _prefix_expectation(
    draws: Draws, shares: tuple[float, ...], final: bool
) -> tuple[float, float, dict[str, float]] | None:
    """E[KL(top-i ‖ desired)], E[SC term] of a prefix with these draws and, for the top K
    itself (``final``), E[MaxSkew], E[MinSkew] and P(a group absent); None when the
    compositions are too many."""
    i = sum(m for _, m in draws)
    exchangeable = len(set(shares)) == 1 and all(len(set(c)) == 1 for c, _ in draws)
    law = _composition(draws, len(shares), exchangeable)
    if law is None:
        return None
    comps, prob = law
    p = np.asarray(shares)
    kl, sc = _prefix_terms(comps, i, p)
    ends = {n: float(prob @ v) for n, v in _final_terms(comps, i, p).items()} if final else {}
    return float(prob @ kl), float(prob @ sc), ends


def _draws_of(places: Sequence[int], counts: Sequence[tuple[int, ...]], i: int) -> Draws:
    """The draws of the top i of a query whose j-th place is from set ``places[j]``."""
    taken = Counter(places[:i])
    return tuple(sorted((counts[s], m) for s, m in taken.items()))


@lru_cache(maxsize=4096)
def _exact(
    places: tuple[int, ...], counts: tuple[tuple[int, ...], ...], shares: tuple[float, ...]
) -> dict[str, float] | None:
    """Exact expectations of the group figures; None when the compositions are too many."""
    k = len(places)
    w = discounts(k)
    ndkl = sc_ndkl = 0.0
    out: dict[str, float] = {}
    for i in range(1, k + 1):
        found = _prefix_expectation(_draws_of(places, counts, i), shares, i == k)
        if found is None:
            return None
        kl, sc, ends = found
        ndkl += float(w[i - 1]) * kl
        sc_ndkl += float(w[i - 1]) * sc
        out.update(ends)
    out.update(ndkl=ndkl / float(w.sum()), sc_ndkl=sc_ndkl / float(w.sum()))
    return out


@lru_cache(maxsize=4096)
def _exact_genders(draws: Draws) -> tuple[float, float] | None:
    """E[Bias@K] and E[|Bias@K|] when each set's places in the top K draw its genders
    (male, female, other counts) without replacement."""
    law = _composition(draws, 3, False)
    if law is None:
        return None
    comps, prob = law
    male, female = comps[:, 0].astype(np.float64), comps[:, 1].astype(np.float64)
    both = male + female
    bias = np.where(both > 0, (male - female) / np.where(both > 0, both, 1.0), 0.0)
    return float(prob @ bias), float(prob @ np.abs(bias))


def clear_caches() -> None:
    """Forget every cached expectation (after changing :data:`EXACT_LIMIT`)."""
    for cached in (_composition, _prefix_expectation, _exact, _exact_genders, _monte_carlo):
        cached.cache_clear()


@lru_cache(maxsize=1024)
def _monte_carlo(
    places: tuple[int, ...],
    labels: tuple[tuple[int, ...], ...],
    genders: tuple[tuple[int, ...], ...] | None,
    shares: tuple[float, ...],
    seed: int,
) -> tuple[dict[str, float], dict[str, float]]:
    """Means and standard errors of every figure over :data:`MC_DRAWS` within-set
    permutations (a set's groups and genders move together)."""
    rng = np.random.default_rng(seed)
    k = len(places)
    rank_in_set = np.zeros(k, dtype=np.int64)
    seen: dict[int, int] = {}
    for j, s in enumerate(places):
        rank_in_set[j] = seen.get(s, 0)
        seen[s] = rank_in_set[j] + 1
    sets = np.asarray(places)
    draws = MonteCarloMeans()
    chunk = max(1, min(MC_DRAWS, 2**20 // max(1, sum(len(x) for x in labels))))
    p = np.asarray(shares)
    done = 0
    while done < MC_DRAWS:
        b = min(chunk, MC_DRAWS - done)
        top_g = np.empty((b, k), dtype=np.int64)
        top_s = np.empty((b, k), dtype=np.int64)
        for s in seen:
            order = rng.permuted(np.broadcast_to(np.arange(len(labels[s])), (b, len(labels[s]))),
                                 axis=1)  # fmt: skip
            cols = np.flatnonzero(sets == s)
            picked = order[:, rank_in_set[cols]]
            top_g[:, cols] = np.asarray(labels[s])[picked]
            if genders is not None:
                top_s[:, cols] = np.asarray(genders[s])[picked]
        values = group_measures(top_g, p)
        if genders is not None:
            values.update(gender_measures(top_s))
        draws.add(values)
        done += b
    return draws.means_and_se(MC_DRAWS)


def within_set_expectation(
    places: Sequence[int],
    set_groups: Sequence[Sequence[int]],
    set_genders: Sequence[Sequence[int]] | None,
    shares: Sequence[float],
    *,
    seed: int = 0,
) -> NullExpectation:
    """The expectation of every figure of one query when the attribute is permuted within
    each counterfactual set. ``places[j]`` is the set (an index into ``set_groups``) of the
    query's j-th item, best first, for its top K; ``set_groups[s]`` holds the group code
    (0..G−1) of every member of set s, ``set_genders[s]`` their gender codes (MALE, FEMALE,
    OTHER; None when the query has no gender), and ``shares`` the desired share of each
    group code, from the query's whole list (which the permutation leaves as it is)."""
    # Numbered by first appearance and holding only the sets the top K touches, the same
    # pattern of places gives one key, whichever sets they are. Groups no list item is of
    # (a desired share of 0) are left out: no set holds them.
    number: dict[int, int] = {}
    canon = tuple(number.setdefault(s, len(number)) for s in places)
    touched = sorted(number, key=number.__getitem__)
    g = len(shares)
    desired = [j for j in range(g) if shares[j] > 0]
    full = [np.bincount(np.asarray(set_groups[s], dtype=np.int64), minlength=g) for s in touched]
    if any(c[[j for j in range(g) if shares[j] <= 0]].any() for c in full):
        raise ValueError("a set holds an item of a group with no desired share")
    counts = tuple(tuple(int(x) for x in c[desired]) for c in full)
    values = _exact(canon, counts, tuple(float(shares[j]) for j in desired))
    gendered = set_genders is not None
    if values is not None and set_genders is not None:
        gender_counts = [
            (
                sum(x == MALE for x in set_genders[s]),
                sum(x == FEMALE for x in set_genders[s]),
                sum(x not in (MALE, FEMALE) for x in set_genders[s]),
            )
            for s in touched
        ]
        genders_law = _exact_genders(_draws_of(canon, gender_counts, len(canon)))
        values = None if genders_law is None else {**values, "bias": genders_law[0],
                                                   "abs_bias": genders_law[1]}  # fmt: skip
    if values is not None:
        return NullExpectation(dict(values), "exact")
    genders = (
        tuple(tuple(int(x) for x in set_genders[s]) for s in touched)
        if set_genders is not None
        else None
    )
    means, errors = _monte_carlo(
        canon,
        tuple(tuple(int(x) for x in set_groups[s]) for s in touched),
        genders,
        tuple(float(x) for x in shares),
        seed,
    )
    names = ["max_skew", "min_skew", "ndkl", "sc_ndkl", "absent"]
    names += ["bias", "abs_bias"] if gendered else []
    return NullExpectation(
        {n: means[n] for n in names},
        "permutation",
        MC_DRAWS,
        {n: errors[n] for n in names if n != "absent"},
    )


# --- the sets and pools of a batch of rankings --------------------------------------------------


def ranking_within_sets(
    ranking: QueryRanking, k: int, desired: Mapping[str, float], seed: int = 0
) -> NullExpectation:
    """:func:`within_set_expectation` of one ranking whose items name their sets
    (``RankedItem.set_id``), each set listed whole, at K with the ``desired`` shares."""
    codes = {g: i for i, g in enumerate(sorted(desired))}
    index: dict[str, int] = {}
    places = []
    for item in ranking.ranked:
        if item.set_id is None:
            raise ValueError(
                f"query {ranking.query!r}: item {item.item!r} names no set while others do; "
                "name the set of every item or of none"
            )
        places.append(index.setdefault(item.set_id, len(index)))
    set_groups: list[list[int]] = [[] for _ in index]
    set_genders: list[list[int]] = [[] for _ in index]
    for item, s in zip(ranking.ranked, places, strict=True):
        set_groups[s].append(codes[item.group])
        set_genders[s].append(GENDER_CODES.get(item.gender or "", OTHER))
    has_gender = any(item.gender is not None for item in ranking.ranked)
    return within_set_expectation(
        places[:k],
        set_groups,
        set_genders if has_gender else None,
        [desired[g] for g in sorted(desired)],
        seed=seed,
    )


@dataclass(frozen=True)
class PoolDesign:
    """The pools of a batch of rankings for the permutation test: queries that share an item
    rank one pool (the wordings of an occupation, or every answer option of a PAIRS subset,
    over its images), and the labels are permuted within its sets — or over the whole pool
    when the items are not in sets."""

    pools: list[PermutationPool]
    queries: list[PermutationQuery]
    n_groups: int
    n_sets: int

    def units_share_pools(self, unit_of: Sequence[str]) -> bool:
        """Whether queries of two units (``unit_of``, parallel to the rankings) rank one pool."""
        first: dict[int, str] = {}
        return any(first.setdefault(q.pool, u) != u for q, u in zip(self.queries, unit_of,
                                                                      strict=True))  # fmt: skip


def permutation_design(rankings: Sequence[QueryRanking], k: int) -> PoolDesign:
    """The pools and sets of ``rankings`` at K. Raises ValueError when an item has two groups,
    genders or sets, when some items name a set and others none, or when a query lists only
    part of a set (the null permutes the attribute among the set's images, so a query must
    rank them all)."""
    label_of: dict[str, tuple[str, str | None, str | None]] = {}
    first_query: dict[str, str] = {}
    pool_of_item: dict[str, int] = {}
    members: list[list[str]] = []
    for r in rankings:
        for item in r.ranked:
            known = label_of.setdefault(item.item, (item.group, item.gender, item.set_id))
            if known != (item.group, item.gender, item.set_id):
                raise ValueError(
                    f"item {item.item!r} is {known[0]} in query {first_query[item.item]!r} but "
                    f"{item.group} in query {r.query!r}; give each item one group, gender and "
                    "set"
                )
            first_query.setdefault(item.item, r.query)
        ids = [item.item for item in r.ranked]
        seen = [pool_of_item[x] for x in ids if x in pool_of_item]
        hit = set(seen)
        if len(seen) == len(ids) and len(hit) == 1 and len(members[seen[0]]) == len(ids):
            continue  # the same items as a query before: one pool
        # A new pool, or the union of every pool this query touches.
        into = min(hit) if hit else len(members)
        if not hit:
            members.append([])
        for other in sorted(hit - {into}):
            for x in members[other]:
                pool_of_item[x] = into
            members[into].extend(members[other])
            members[other] = []
        for x in ids:
            if pool_of_item.get(x) != into:
                pool_of_item[x] = into
                members[into].append(x)
    named = {s is not None for _, _, s in label_of.values()}
    if len(named) > 1:
        raise ValueError("some items name a counterfactual set and others none; name the set "
                         "of every item or of none")  # fmt: skip
    by_set = named == {True}
    set_size = Counter(s for _, _, s in label_of.values())
    group_code = {g: i for i, g in enumerate(sorted({g for g, _, _ in label_of.values()}))}
    kept = [m for m in members if m]
    pools, index_of = [], []
    n_sets = 0
    for m in kept:
        set_code: dict[str | None, int] = {}
        sets = [set_code.setdefault(label_of[x][2], len(set_code)) for x in m]
        n_sets += len(set_code) if by_set else 0
        pools.append(
            PermutationPool(
                np.asarray([group_code[label_of[x][0]] for x in m], dtype=np.int64),
                np.asarray([GENDER_CODES.get(label_of[x][1] or "", OTHER) for x in m], np.int64),
                np.asarray(sets, dtype=np.int64) if by_set else None,
            )
        )
        index_of.append({x: i for i, x in enumerate(m)})
    renumber = {old: new for new, old in enumerate(i for i, m in enumerate(members) if m)}
    queries = []
    for r in rankings:
        if by_set:
            listed = Counter(item.set_id for item in r.ranked)
            for name, n in listed.items():
                if n != set_size[name]:
                    raise ValueError(
                        f"query {r.query!r} lists {n} of the {set_size[name]} items of set "
                        f"{name!r}; rank every image of a set the query ranks (the null "
                        "permutes the attribute among them)"
                    )
        pool = renumber[pool_of_item[r.ranked[0].item]]
        index = index_of[pool]
        positions = np.fromiter((index[i.item] for i in r.ranked), np.int64, len(r.ranked))
        has_gender = any(i.gender is not None for i in r.ranked)
        queries.append(PermutationQuery(pool, positions, min(k, len(r.ranked)), has_gender))
    return PoolDesign(pools, queries, len(group_code), n_sets)

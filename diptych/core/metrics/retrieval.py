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

* **units** — the four wordings of an occupation ("a doctor", "a photo of a doctor" ...) rank
  the same pool and move together, so the intervals resample occupations with all their
  wordings (:mod:`diptych.core.metrics.resampling`); without occupations each query is its own
  unit, and the result says so;
* **a random-ranking baseline** — MaxSkew@K, NDKL@K and |Bias@K| are above 0 for a ranking that
  knows nothing (:mod:`diptych.core.metrics.retrieval_null`). Beside each mean: its
  expectation under a random ranking of the same lists, the **excess** over it (the headline)
  with its interval, and a permutation p-value;
* **MinSkew@K** — its mean is the SocialCounterfactuals convention (an absent group's skew 0),
  finite; the definition's −inf is reported as the number of queries with an absent group.
"""

from __future__ import annotations

import csv
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NamedTuple

from diptych.core.errors import InputFileError
from diptych.core.metrics.csv_input import checked_columns, failure
from diptych.core.metrics.resampling import Inference, mean_over_units
from diptych.core.metrics.retrieval_null import (
    FEMALE,
    MALE,
    MC_DRAWS,
    OTHER,
    PermutationPool,
    PermutationQuery,
    permutation_means,
    permutation_p_value,
    random_ranking_expectation,
)
from diptych.core.metrics.stats import DEFAULT_CONFIDENCE, json_safe

Desired = Literal["pool", "uniform"]
DESIRED_MODES: tuple[Desired, ...] = ("pool", "uniform")
GENDERS = ("male", "female", "neutral")


class RankedItem(NamedTuple):
    """One retrieved item: its id, social group, gender (male / female / neutral or None)
    and retrieval score (None when only the rank is known)."""

    item: str
    group: str
    gender: str | None = None
    score: float | None = None


@dataclass(frozen=True)
class QueryRanking:
    """A query and the items it retrieved, best first; ``unit`` names the occupation (or other
    unit) whose wordings it is one of, resampled together (None: the query is its own unit)."""

    query: str
    ranked: Sequence[RankedItem]
    unit: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "ranked",
            tuple(r if isinstance(r, RankedItem) else RankedItem(*r) for r in self.ranked),
        )

    @classmethod
    def from_scores(
        cls, query: str, items: Sequence[RankedItem], unit: str | None = None
    ) -> QueryRanking:
        """Rank by score, highest first; equal scores go by item id, so the order (and with it
        every metric) never depends on the order the items came in."""
        if any(item.score is None for item in items):
            raise ValueError(f"query {query!r}: every item needs a score to be ranked by score")
        return cls(query, sorted(items, key=lambda r: (-float(r.score or 0.0), r.item)), unit)

    @property
    def groups(self) -> list[str]:
        return [r.group for r in self.ranked]

    @property
    def genders(self) -> list[str | None]:
        return [r.gender for r in self.ranked]


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

#: The figures averaged over queries, in the order they are reported. ``min_skew`` is the
#: SocialCounterfactuals convention (an absent group's skew is 0): under the definition it is
#: −inf whenever a group is missing from the top K, which with 12 groups and K = 12 is almost
#: every query, so that case is reported as a count (``absent``) instead of a mean of −inf.
#: MaxSkew@K is the same under both conventions (some present group always has a positive skew
#: when another is absent), so the code's MaxSkew is not repeated.
MEASURES = ("max_skew", "min_skew", "ndkl", "bias", "abs_bias", "sc_ndkl")
LABELS = {
    "max_skew": "MaxSkew@K",
    "min_skew": "MinSkew@K",
    "ndkl": "NDKL@K",
    "bias": "Bias@K",
    "abs_bias": "|Bias@K|",
    "sc_ndkl": "SC NDKL@K",
}
DEFAULT_N_PERM = 1000


@dataclass(frozen=True)
class QueryMetrics:
    """Every metric of one query. ``k`` is the K used (clamped to the list's length);
    ``bias`` is None when no item of the query has a gender. ``min_skew`` follows the
    definition (−inf when a group is absent), ``sc_min_skew`` the SocialCounterfactuals code
    (absent as 0); ``random`` holds each figure's expectation under a random ranking of the
    same list (:mod:`diptych.core.metrics.retrieval_null`)."""

    query: str
    n_items: int
    k: int
    skews: dict[str, float]
    max_skew: float
    min_skew: float
    ndkl: float
    bias: float | None
    sc_max_skew: float
    sc_min_skew: float
    sc_ndkl: float
    unit: str | None = None
    random: dict[str, float] = field(default_factory=dict)
    random_method: str = "exact"
    random_mc_se: dict[str, float] = field(default_factory=dict)

    @property
    def abs_bias(self) -> float | None:
        return None if self.bias is None else abs(self.bias)

    @property
    def absent(self) -> bool:
        """A group of the desired distribution is missing from the top K."""
        return self.min_skew == -math.inf

    def figure(self, name: str) -> float | None:
        """The per-query value behind the mean ``name`` of :data:`MEASURES`."""
        if name == "min_skew":
            return self.sc_min_skew
        value: float | None = getattr(self, name)
        return value

    def to_dict(self) -> dict[str, Any]:
        return json_safe(
            {
                "query": self.query,
                "unit": self.unit,
                "n_items": self.n_items,
                "k": self.k,
                "skews": self.skews,
                "max_skew": self.max_skew,
                "min_skew": self.min_skew,
                "ndkl": self.ndkl,
                "bias": self.bias,
                "socialcounterfactuals": {
                    "max_skew": self.sc_max_skew,
                    "min_skew": self.sc_min_skew,
                    "ndkl": self.sc_ndkl,
                },
                "random_ranking": {**self.random, "method": self.random_method},
            }
        )


@dataclass(frozen=True)
class MeasureSummary:
    """One figure over queries: its mean, what a random ranking of the same lists scores on
    average, and the excess over that (the headline), each with the interval of the units.

    ``mean`` and ``excess`` test against the random-ranking expectation (``excess`` against 0):
    one t distribution over units gives each interval and its p-value. ``permutation_p`` tests
    the sharp null that the rankings ignore the groups (labels permuted over each pool's items,
    every query of a pool together): it speaks for these rankings, the interval for units like
    these."""

    name: str
    mean: Inference
    expected: float
    expected_method: str
    expected_mc_se: float | None
    excess: Inference
    permutation_p: float | None
    n_perm: int

    def to_dict(self) -> dict[str, Any]:
        return json_safe(
            {
                "label": LABELS[self.name],
                "excess": self.excess.to_dict(),
                "mean": self.mean.to_dict(),
                "random_ranking": {
                    "value": self.expected,
                    "method": self.expected_method,
                    "mc_se": self.expected_mc_se,
                    "interval": None,
                    "reason": "no interval: the expectation over every ranking of these lists is "
                    "computed, not estimated"
                    + (" (Monte Carlo: see mc_se)" if self.expected_mc_se is not None else ""),
                },
                "permutation_p": self.permutation_p,
                "n_perm": self.n_perm,
            }
        )


@dataclass(frozen=True)
class RetrievalResult:
    """Per-query metrics and, per figure, the mean over queries, its random-ranking baseline and
    the excess, with intervals over ``unit`` ("occupation": all wordings of one together, or
    "query": each query its own unit)."""

    k: int
    desired: Desired
    queries: list[QueryMetrics]
    figures: dict[str, MeasureSummary]
    unit: str
    n_units: int
    absent_queries: int
    absent_units: int
    clamped: list[str] = field(default_factory=list)
    n_boot: int = 2000
    seed: int = 0
    confidence: float = DEFAULT_CONFIDENCE
    n_perm: int = DEFAULT_N_PERM

    @property
    def means(self) -> dict[str, Inference]:
        return {name: f.mean for name, f in self.figures.items()}

    @property
    def unit_note(self) -> str:
        if self.unit == "query":
            return (
                "each query is its own unit (no occupation column): wordings of one occupation "
                "would be counted as independent queries"
            )
        return f"{self.n_units} {self.unit}s, all wordings of one resampled together"

    def to_dict(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "desired": self.desired,
            "n_queries": len(self.queries),
            "unit": {"name": self.unit, "n": self.n_units, "note": self.unit_note},
            "clamped": {
                "queries": list(self.clamped),
                "note": "lists shorter than K are scored on the whole list",
            },
            "figures": {name: f.to_dict() for name, f in self.figures.items()},
            "min_skew_definition": {
                "queries_with_absent_group": self.absent_queries,
                "units_with_absent_group": self.absent_units,
                "note": "MinSkew@K by the definition is -inf for these queries (a group is "
                "absent from the top K); the mean reported is the SocialCounterfactuals "
                "convention, an absent group's skew taken as 0",
            },
            "queries": [q.to_dict() for q in self.queries],
            "bootstrap": {
                "unit": self.unit,
                "n_boot": self.n_boot,
                "seed": self.seed,
                "confidence": self.confidence,
                "n_perm": self.n_perm,
            },
        }


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
    expectation under a random ranking of the same list."""
    _check_k(k)
    groups = ranking.groups
    if not groups:
        raise ValueError(f"query {ranking.query!r} retrieved nothing")
    _check_pool_lengths([ranking], k, desired)
    genders = ranking.genders
    used = min(k, len(groups))
    has_gender = any(g is not None for g in genders)
    null = random_ranking_expectation(
        groups, genders if has_gender else None, used, desired, seed=seed
    )
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
        random=null.values,
        random_method=null.method,
        random_mc_se=null.mc_se,
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


def _permutation_design(
    rankings: Sequence[QueryRanking], per_query: Sequence[QueryMetrics]
) -> tuple[list[PermutationPool], list[PermutationQuery], int]:
    """Pools of items for the permutation test: queries that share an item rank one pool (the
    wordings of an occupation over its images), and the labels are permuted within it."""
    import numpy as np

    label_of: dict[str, tuple[str, str | None]] = {}
    first_query: dict[str, str] = {}
    pool_of_item: dict[str, int] = {}
    members: list[list[str]] = []
    for r in rankings:
        for item in r.ranked:
            known = label_of.setdefault(item.item, (item.group, item.gender))
            if known != (item.group, item.gender):
                raise ValueError(
                    f"item {item.item!r} is {known[0]} in query {first_query[item.item]!r} but "
                    f"{item.group} in query {r.query!r}; give each item one group and gender"
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
    group_code = {g: i for i, g in enumerate(sorted({g for g, _ in label_of.values()}))}
    gender_code = {"male": MALE, "female": FEMALE}
    renumber = {old: new for new, old in enumerate(i for i, m in enumerate(members) if m)}
    pools = [
        PermutationPool(
            np.asarray([group_code[label_of[x][0]] for x in m], dtype=np.int64),
            np.asarray([gender_code.get(label_of[x][1] or "", OTHER) for x in m], np.int64),
        )
        for m in members
        if m
    ]
    index_of = [{x: i for i, x in enumerate(m)} for m in members if m]
    queries = []
    for r, q in zip(rankings, per_query, strict=True):
        pool = renumber[pool_of_item[r.ranked[0].item]]
        index = index_of[pool]
        positions = np.fromiter((index[i.item] for i in r.ranked), np.int64, len(r.ranked))
        queries.append(PermutationQuery(pool, positions, q.k, q.bias is not None))
    return pools, queries, len(group_code)


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
    """Every metric per query; per figure its mean over queries, its expectation under a
    random ranking of the same lists, and the excess over it (the headline), with intervals
    over occupations when every ranking names one (``QueryRanking.unit``), else over queries,
    and a permutation p-value.

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
    per_query = [query_metrics(r, k, desired, seed=seed) for r in rankings]
    unit_of = [q.unit if q.unit is not None else q.query for q in per_query]
    pools, perm_queries, n_groups = _permutation_design(rankings, per_query)
    replicates = permutation_means(pools, perm_queries, n_groups, desired, n_perm, seed)
    figures: dict[str, MeasureSummary] = {}
    for name in MEASURES:
        rows = [
            (float(v), q.random[name], u)
            for q, u in zip(per_query, unit_of, strict=True)
            if (v := q.figure(name)) is not None
        ]
        if not rows:
            continue
        values = [v for v, _, _ in rows]
        expected_each = [e for _, e, _ in rows]
        units = {unit: [u for _, _, u in rows]}
        expected = sum(expected_each) / len(expected_each)
        mean = mean_over_units(
            values, units, null=expected, confidence=confidence, n_boot=n_boot, seed=seed
        )
        excess = mean_over_units(
            [v - e for v, e, _ in rows], units, confidence=confidence, n_boot=n_boot, seed=seed
        )
        mc = [q.random_method != "exact" for q in per_query]
        figures[name] = MeasureSummary(
            name=name,
            mean=mean,
            expected=expected,
            expected_method="exact" if not any(mc) else f"permutation ({MC_DRAWS} draws)",
            expected_mc_se=_mc_se(per_query, name) if any(mc) else None,
            excess=excess,
            permutation_p=permutation_p_value(mean.value, replicates[name], expected)
            if name in replicates
            else None,
            n_perm=n_perm,
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
    )


def _mc_se(per_query: Sequence[QueryMetrics], name: str) -> float:
    """A bound on the Monte Carlo error of the mean expectation: the largest of the lists'
    errors (lists of one pool share their draws, so the errors do not average out)."""
    return max(q.random_mc_se.get(name, 0.0) for q in per_query)


# --- the ranking file -----------------------------------------------------------------------------

REQUIRED_COLUMNS = ("query", "rank", "group")
UNIT_COLUMNS = ("occupation", "unit")
OPTIONAL_COLUMNS = ("gender", "item", "score", *UNIT_COLUMNS)


def read_ranking_csv(path: str | Path) -> list[QueryRanking]:
    """Read a ranking CSV: columns ``query, rank (1-based), group`` and optional ``gender``
    (male / female / neutral, or empty), ``item``, ``score`` and ``occupation`` (or ``unit``:
    the occupation whose wordings the query is one of, resampled together); one row per
    retrieved item.

    Queries keep the order of their first row; each query's ranks must run 1, 2, ... without a
    gap or a repeat, and all its rows name one occupation. Any problem raises
    :class:`InputFileError` with one line naming the file, the line and what to fix.
    """
    path = Path(path)

    fail = failure(path)

    by_query: dict[str, dict[int, tuple[int, RankedItem]]] = {}
    unit_of: dict[str, tuple[int, str]] = {}
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            columns = checked_columns(reader, fail, REQUIRED_COLUMNS, OPTIONAL_COLUMNS)
            reader.fieldnames = columns
            units = [c for c in UNIT_COLUMNS if c in columns]
            if len(units) > 1:
                raise fail(None, "both occupation and unit columns; keep one")
            for raw in reader:
                line = reader.line_num
                if None in raw:
                    raise fail(line, f"more fields than the header's {len(columns)}; quote "
                                     "values that contain commas")  # fmt: skip
                query, rank, item = _parse_row(raw, line, fail)
                if units:
                    unit = (raw.get(units[0]) or "").strip()
                    if not unit:
                        raise fail(line, f"empty {units[0]}; name the {units[0]} of every row")
                    first = unit_of.setdefault(query, (line, unit))
                    if first[1] != unit:
                        raise fail(
                            line,
                            f"query {query!r} has {units[0]} {unit!r} here but {first[1]!r} on "
                            f"line {first[0]}; give each query one {units[0]}",
                        )
                ranks = by_query.setdefault(query, {})
                if rank in ranks:
                    raise fail(
                        line,
                        f"query {query!r} has rank {rank} already (line {ranks[rank][0]}); "
                        "give each retrieved item its own rank",
                    )
                ranks[rank] = (line, item)
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such file; check the --ranking path") from None
    except IsADirectoryError:
        raise InputFileError(f"{path}: is a directory; give the ranking CSV file") from None
    except UnicodeDecodeError:
        raise InputFileError(f"{path}: not UTF-8 text; save the ranking as UTF-8 CSV") from None
    except csv.Error as error:
        raise InputFileError(f"{path}: not a readable CSV ({error}); check its quoting") from None
    if not by_query:
        raise fail(None, "no rows below the header; add one row per retrieved item")
    rankings = []
    for query, ranks in by_query.items():
        for expected, rank in enumerate(sorted(ranks), start=1):
            if rank != expected:
                raise fail(
                    ranks[rank][0],
                    f"query {query!r} has rank {rank} but no rank {expected}; ranks must run "
                    "1, 2, 3 ... without gaps",
                )
        unit = unit_of[query][1] if query in unit_of else None
        rankings.append(QueryRanking(query, [ranks[r][1] for r in sorted(ranks)], unit))
    return rankings


def _parse_row(raw: dict[str, Any], line: int, fail: Any) -> tuple[str, int, RankedItem]:
    def cell(name: str) -> str:
        return (raw.get(name) or "").strip()

    query, group = cell("query"), cell("group")
    if not query:
        raise fail(line, "empty query; name the query (caption) that retrieved this item")
    if not group:
        raise fail(line, "empty group; name the social group of the retrieved item")
    try:
        rank = int(cell("rank"))
    except ValueError:
        raise fail(line, f"rank {cell('rank')!r} is not a whole number; ranks start at 1") from None
    if rank < 1:
        raise fail(line, f"rank {rank} is below 1; ranks start at 1 (the best match)")
    gender: str | None = cell("gender").lower() or None
    if gender is not None and gender not in GENDERS:
        raise fail(line, f"gender {cell('gender')!r} is not one of {', '.join(GENDERS)} (or empty)")
    score: float | None = None
    if cell("score"):
        try:
            score = float(cell("score"))
        except ValueError:
            raise fail(line, f"score {cell('score')!r} is not a number") from None
    return query, rank, RankedItem(cell("item") or f"{query}#{rank}", group, gender, score)

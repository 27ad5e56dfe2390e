"""What the retrieval metrics report over queries: each query's figures with their null
expectations (:class:`QueryMetrics`), each figure's mean, null and excess with their
inference (:class:`MeasureSummary`) and the whole result (:class:`RetrievalResult`). The
figures themselves are defined in :mod:`diptych.core.metrics.retrieval.metrics`."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from diptych.core.metrics.uncertainty.bootstrap import DEFAULT_CONFIDENCE, json_safe
from diptych.core.metrics.uncertainty.resampling import Inference

Desired = Literal["pool", "uniform"]
DESIRED_MODES: tuple[Desired, ...] = ("pool", "uniform")

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
#: The two nulls, as a reader sees them named.
WITHIN_SETS = "attribute permuted within counterfactual sets"
RANDOM_RANKING = "random ranking (exchangeable images)"


@dataclass(frozen=True)
class QueryMetrics:
    """Every metric of one query. ``k`` is the K used (clamped to the list's length);
    ``bias`` is None when no item of the query has a gender. ``min_skew`` follows the
    definition (−inf when a group is absent), ``sc_min_skew`` the SocialCounterfactuals code
    (absent as 0). ``null`` holds each figure's expectation under the headline's null — the
    attribute permuted within each counterfactual set when the items name their sets, else a
    random ranking of the list — and ``random`` under a random ranking of the same list, kept
    as context (:mod:`diptych.core.metrics.retrieval.sets`, :mod:`~.retrieval_null`)."""

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
    null: dict[str, float] = field(default_factory=dict)
    null_method: str = "exact"
    null_mc_se: dict[str, float] = field(default_factory=dict)
    null_name: str = RANDOM_RANKING

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
                "null": {**self.null, "name": self.null_name, "method": self.null_method},
                "random_ranking": {**self.random, "method": self.random_method},
            }
        )


@dataclass(frozen=True)
class MeasureSummary:
    """One figure over queries: its mean, its expectation under the null (``expected``: the
    attribute permuted within each counterfactual set, or a random ranking when the items are
    not in sets), and the excess over that (the headline), each with its interval; and, for
    context, what a random ranking of the same lists scores (``random_ranking``).

    ``mean`` and ``excess`` test against the null's expectation (``excess`` against 0) with
    the units' interval — widened to the permutation's, and tested by both, when units share
    a pool (:func:`~diptych.core.metrics.retrieval.intervals.widened_by_permutation`).
    ``permutation_p`` tests the sharp null alone (labels permuted within each set, or over
    each pool's items, every query of a pool together)."""

    name: str
    mean: Inference
    expected: float
    expected_method: str
    expected_mc_se: float | None
    excess: Inference
    permutation_p: float | None
    n_perm: int
    null_name: str = RANDOM_RANKING
    random_ranking: float | None = None
    random_method: str = "exact"
    random_mc_se: float | None = None

    def to_dict(self) -> dict[str, Any]:
        computed = "no interval: the expectation over every permutation is computed, not estimated"
        return json_safe(
            {
                "label": LABELS[self.name],
                "excess": self.excess.to_dict(),
                "mean": self.mean.to_dict(),
                "null": {
                    "name": self.null_name,
                    "value": self.expected,
                    "method": self.expected_method,
                    "mc_se": self.expected_mc_se,
                    "interval": None,
                    "reason": computed
                    + (" (Monte Carlo: see mc_se)" if self.expected_mc_se is not None else ""),
                },
                "random_ranking": {
                    "value": self.random_ranking,
                    "method": self.random_method,
                    "mc_se": self.random_mc_se,
                    "interval": None,
                    "note": "context: every image of a pool exchangeable"
                    + ("" if self.null_name == RANDOM_RANKING else "; not the headline's null"),
                },
                "permutation_p": self.permutation_p,
                "n_perm": self.n_perm,
            }
        )


@dataclass(frozen=True)
class RetrievalResult:
    """Per-query metrics and, per figure, the mean over queries, its null and the excess, with
    intervals over ``unit`` ("occupation": all wordings of one together, or "query": each query
    its own unit); ``shared_pools`` when queries of several units rank one pool, whose
    intervals the within-set permutation widens."""

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
    null: str = RANDOM_RANKING
    n_sets: int = 0
    n_pools: int = 0
    shared_pools: bool = False

    @property
    def means(self) -> dict[str, Inference]:
        return {name: f.mean for name, f in self.figures.items()}

    @property
    def unit_note(self) -> str:
        if self.unit == "query":
            note = (
                "each query is its own unit (no occupation column): wordings of one occupation "
                "would be counted as independent queries"
            )
        else:
            note = f"{self.n_units} {self.unit}s, all wordings of one resampled together"
        if self.shared_pools:
            moved = f"{self.n_sets} counterfactual sets" if self.n_sets else f"{self.n_pools} pools"
            note += (
                f"; units share pools, so each interval is at least as wide as the {self.n_perm} "
                f"permutations of the labels within the {moved} make it, and its test rejects "
                "only when both do"
            )
        return note

    def to_dict(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "desired": self.desired,
            "n_queries": len(self.queries),
            "unit": {"name": self.unit, "n": self.n_units, "note": self.unit_note},
            "null": {
                "name": self.null,
                "n_sets": self.n_sets,
                "n_pools": self.n_pools,
                "units_share_pools": self.shared_pools,
            },
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

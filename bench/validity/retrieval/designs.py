"""Validity of the retrieval figures: occupations with correlated wordings, a known truth.

Each simulation draws :data:`N_OCCUPATIONS` occupations (158, SocialCounterfactuals' count). An
occupation's pool holds :data:`PER_GROUP` images of each of four groups (race × gender, as
PAIRS), and its :data:`WORDINGS` query wordings rank that same pool by

    score(wording, image) = preference(occupation, group) + look(image)
                            + drift(wording, group) + noise(wording, image),

where ``look`` is shared by every wording (an image that looks like a doctor does so for "a
doctor" and for "a photo of a doctor" alike), so an occupation's wordings rank nearly alike:
they are one unit, not four. Each figure's headline is its excess over a random ranking of the
same pool, at K = 6.

* **coverage** (``validity.coverage.retrieval_<figure>``) — the group preferences vary by
  occupation around a population mean that favours one group; the truth is the population's
  expected excess, computed once from :data:`N_TRUTH` simulated occupations (its Monte Carlo
  error, about 0.002, is a small fraction of the intervals' half-widths);
* **type I** (``validity.type1.retrieval_<figure>``) — the scores ignore the groups (no
  preference, no drift; the shared looks still tie the wordings together): the excess is 0 in
  truth, and the share of simulations whose t-test rejects at 5% is reported, and the same for
  the permutation test (``..._permutation``).

The simulations score with the kernels
:func:`diptych.core.metrics.retrieval.metrics.retrieval_metrics` is made of — :func:`group_measures`
and :func:`gender_measures` for every query's figures, the random-ranking expectation,
:func:`mean_over_units` over occupations for the interval and the t-test, :func:`permutation_means`
and :func:`permutation_p_value` for the permutation test — on every query of a simulation at once;
:func:`check_kernel` first checks, on one simulated data set, that they give what
``retrieval_metrics`` gives, to 1e-9.

A rejection rate is a share of simulations, so its own Monte Carlo error is
sqrt(0.05 · 0.95 / n): 0.0097 at 500 simulations — as large as the gap between the nominal 0.05
and the limit 0.06, so a test of exact size would print over its limit for 1 in 7 figures.
The type-I figures therefore take :data:`TYPE1_SIMS` simulations (error 0.0034) and the
permutation figures :data:`PERMUTATION_SIMS` with :data:`N_PERM` permutations each: the
smallest count at which a p-value can fall below 0.05, where a test of exact size rejects
1/21 = 0.048 of the time. Coverage's band (0.93–0.97) is wide beside its error at
:data:`COVERAGE_SIMS`.

For contrast, ``validity.type1.retrieval_max_skew_queries_as_units`` is the rejection rate when
each wording is taken as its own unit, as the metric did before occupations were its unit.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from diptych.core.metrics.retrieval.metrics import QueryRanking

N_OCCUPATIONS = 158
WORDINGS = 4
PER_GROUP = 4
GROUPS = ("Black_female", "Black_male", "White_female", "White_male")
#: Above the number of groups, so that MinSkew@K varies (at K = 4 every present group of four
#: holds at least its 1/4 share, and the absent-as-0 MinSkew is always 0).
K = 6
COVERAGE_SIMS = 2000
TYPE1_SIMS = 4000
PERMUTATION_SIMS = 2000
N_PERM = 20
N_TRUTH = 40_000
#: Population preference of each group (the alternative), its SD across occupations, the SD of
#: a wording's drift per group, of an image's look and of the per-wording noise.
PREFERENCE = (-0.2, 0.3, -0.3, 0.2)
PREFERENCE_SD = 0.4
DRIFT_SD = 0.15
LOOK_SD = 1.0
NOISE_SD = 0.4

FIGURE_NAMES = ("max_skew", "min_skew", "ndkl", "bias", "abs_bias", "sc_ndkl")
COVERAGE = "in 0.93..0.97"
TYPE1 = "<= 0.06"
FIGURES: dict[str, str | None] = {
    **{f"validity.coverage.retrieval_{f}": COVERAGE for f in FIGURE_NAMES},
    **{f"validity.type1.retrieval_{f}": TYPE1 for f in FIGURE_NAMES},
    **{f"validity.type1.retrieval_{f}_permutation": TYPE1 for f in FIGURE_NAMES},
    "validity.type1.retrieval_max_skew_queries_as_units": None,
}
#: Simulations behind each figure.
SIMS: dict[str, int] = {
    **{f"validity.coverage.retrieval_{f}": COVERAGE_SIMS for f in FIGURE_NAMES},
    **{f"validity.type1.retrieval_{f}": TYPE1_SIMS for f in FIGURE_NAMES},
    **{f"validity.type1.retrieval_{f}_permutation": PERMUTATION_SIMS for f in FIGURE_NAMES},
    "validity.type1.retrieval_max_skew_queries_as_units": TYPE1_SIMS,
}


def _labels() -> tuple[NDArray[np.int64], NDArray[np.int64], list[str | None]]:
    """Each pool item's group code, gender code and gender name."""
    import numpy as np

    from diptych.core.metrics.retrieval.null import FEMALE, MALE

    groups = np.repeat(np.arange(len(GROUPS)), PER_GROUP)
    genders: list[str | None] = [GROUPS[g].split("_")[1] for g in groups]
    codes = np.asarray([MALE if g == "male" else FEMALE for g in genders], dtype=np.int64)
    return groups, codes, genders


def _scores(rng: np.random.Generator, n_occ: int, effect: bool) -> NDArray[np.float64]:
    """Scores (occupation, wording, image) of ``n_occ`` occupations."""
    import numpy as np

    groups, _, _ = _labels()
    n_items = groups.size
    look = rng.normal(0, LOOK_SD, (n_occ, 1, n_items))
    noise = rng.normal(0, NOISE_SD, (n_occ, WORDINGS, n_items))
    scores = look + noise
    if effect:
        pref = np.asarray(PREFERENCE) + rng.normal(0, PREFERENCE_SD, (n_occ, 1, len(GROUPS)))
        drift = rng.normal(0, DRIFT_SD, (n_occ, WORDINGS, len(GROUPS)))
        scores = scores + (pref + drift)[:, :, groups]
    out: NDArray[np.float64] = scores
    return out


def _orders(scores: NDArray[np.float64]) -> NDArray[np.int64]:
    """Each query's ranked pool items (occupation, wording, item), best first."""
    import numpy as np

    out: NDArray[np.int64] = np.argsort(-scores, axis=-1, kind="stable")
    return out


def _figures(orders: NDArray[np.int64]) -> dict[str, NDArray[np.float64]]:
    """Every figure of every query (flattened, occupation-major) from its ranked items."""
    import numpy as np

    from diptych.core.metrics.retrieval.null import gender_measures, group_measures

    groups, codes, _ = _labels()
    top = orders.reshape(-1, orders.shape[-1])[:, :K]
    share = np.full(len(GROUPS), 1 / len(GROUPS))
    values = group_measures(groups[top], share)
    values.update(gender_measures(codes[top]))
    return {f: values[f] for f in FIGURE_NAMES}


@lru_cache(maxsize=1)
def _null() -> dict[str, float]:
    """Each figure's expectation under a random ranking of the pool."""
    from diptych.core.metrics.retrieval.null import random_ranking_expectation

    groups, _, genders = _labels()
    null = random_ranking_expectation([GROUPS[g] for g in groups], genders, K, "pool")
    return {f: null.values[f] for f in FIGURE_NAMES}


@lru_cache(maxsize=4)
def truth(seed: int = 12345) -> dict[str, float]:
    """The population's expected excess of each figure under the alternative."""
    import numpy as np

    values = _figures(_orders(_scores(np.random.default_rng(seed), N_TRUTH, effect=True)))
    null = _null()
    return {f: float(values[f].mean()) - null[f] for f in FIGURE_NAMES}


def rankings(scores: NDArray[np.float64], sim: int = 0) -> list[QueryRanking]:
    """The simulated queries as ``retrieval_metrics`` takes them."""
    from diptych.core.metrics.retrieval.metrics import QueryRanking, RankedItem

    groups, _, genders = _labels()
    out = []
    orders = _orders(scores)
    for o in range(scores.shape[0]):
        items = [
            RankedItem(f"s{sim}o{o}i{i}", GROUPS[groups[i]], genders[i]) for i in range(groups.size)
        ]
        for w in range(WORDINGS):
            out.append(QueryRanking(f"o{o} wording {w}", [items[i] for i in orders[o, w]], f"o{o}"))
    return out


def _occupation_units(n_occ: int) -> dict[str, NDArray[np.int64]]:
    import numpy as np

    return {"occupation": np.repeat(np.arange(n_occ), WORDINGS)}


def excess(
    values: NDArray[np.float64], name: str, units: dict[str, NDArray[np.int64]], seed: int
) -> Any:
    """The shipped inference of a figure's excess over the random-ranking null: the units'
    interval inside the excess's range
    (:func:`~diptych.core.metrics.retrieval.intervals.excess_over_units`)."""
    import numpy as np

    from diptych.core.metrics.retrieval.intervals import excess_over_units, figure_ranges

    span = figure_ranges([1 / len(GROUPS)] * len(GROUPS), K)[name]
    nulls = np.full(values.size, _null()[name])
    return excess_over_units(values, nulls, [span] * values.size, units, seed=seed)


def check_kernel(seed: int = 0, n_occ: int = 12) -> None:
    """Raise unless the kernels give, on one simulated data set, each figure's mean, excess,
    interval and p-value exactly as :func:`retrieval_metrics` does."""
    import numpy as np

    from diptych.core.metrics.retrieval.intervals import permutation_p
    from diptych.core.metrics.retrieval.metrics import retrieval_metrics
    from diptych.core.metrics.retrieval.null import (
        PermutationPool,
        PermutationQuery,
        permutation_means,
    )

    scores = _scores(np.random.default_rng(seed), n_occ, effect=True)
    n_perm = 40
    reference = retrieval_metrics(rankings(scores), K, "pool", n_perm=n_perm, seed=seed)
    orders = _orders(scores)
    values = _figures(orders)
    null = _null()
    units = _occupation_units(n_occ)
    groups, codes, _ = _labels()
    # Laid out as the metric lays its pools out (items in the first wording's order), so
    # that the same seed draws the same permutations.
    first = orders[:, 0, :]
    where = np.argsort(first, axis=1)
    pools = [PermutationPool(groups[first[o]], codes[first[o]]) for o in range(n_occ)]
    queries = [
        PermutationQuery(o, where[o][orders[o, w]], K, True)
        for o in range(n_occ)
        for w in range(WORDINGS)
    ]
    replicates = permutation_means(pools, queries, len(GROUPS), "pool", n_perm, seed)
    for name in FIGURE_NAMES:
        mine = excess(values[name], name, units, seed)
        theirs = reference.figures[name].excess
        p_perm = permutation_p(mine, replicates[name], null[name])
        got = (mine.value, mine.ci_low, mine.ci_high, mine.p_value, null[name], p_perm)
        expected = reference.figures[name].expected
        want = (theirs.value, theirs.ci_low, theirs.ci_high, theirs.p_value, expected,
                reference.figures[name].permutation_p or 0.0)  # fmt: skip
        if not np.allclose(got, want, rtol=0, atol=1e-9):
            raise AssertionError(f"{name}: kernels give {got}, retrieval_metrics {want}")


def _queries(orders: NDArray[np.int64], n_occ: int) -> list[Any]:
    """Every wording's ranking as the permutation test takes it (occupation-major)."""
    from diptych.core.metrics.retrieval.null import PermutationQuery

    return [
        PermutationQuery(o, orders[o, w], K, True) for o in range(n_occ) for w in range(WORDINGS)
    ]


def _permutation_rejections(
    rng: np.random.Generator, n_sims: int, n_occ: int = N_OCCUPATIONS
) -> dict[str, int]:
    """How many of ``n_sims`` null simulations the permutation test rejects at 5%, per figure."""
    from diptych.core.metrics.retrieval.intervals import permutation_p
    from diptych.core.metrics.retrieval.null import PermutationPool, permutation_means

    groups, codes, _ = _labels()
    pools = [PermutationPool(groups, codes)] * n_occ
    null = _null()
    units = _occupation_units(n_occ)
    rejected = dict.fromkeys(FIGURE_NAMES, 0)
    for sim in range(n_sims):
        orders = _orders(_scores(rng, n_occ, effect=False))
        values = _figures(orders)
        queries = _queries(orders, n_occ)
        replicates = permutation_means(pools, queries, len(GROUPS), "pool", N_PERM, sim)
        for name in FIGURE_NAMES:
            shipped = excess(values[name], name, units, sim)
            p = permutation_p(shipped, replicates[name], null[name])
            rejected[name] += p < 0.05
    return rejected


def simulate(n_sims: int, seed: int) -> dict[str, float]:
    """Coverage of each figure's excess interval and the type-I rate of its t-test and of its
    permutation test. ``n_sims`` (at least 500) scales the counts of :data:`SIMS`."""
    import numpy as np

    check_kernel(seed)
    scale = max(n_sims, 1) / 500
    coverage_sims = round(COVERAGE_SIMS * scale)
    type1_sims = round(TYPE1_SIMS * scale)
    permutation_sims = round(PERMUTATION_SIMS * scale)
    rng = np.random.default_rng(seed)
    target = truth()
    units = _occupation_units(N_OCCUPATIONS)
    queries = {"query": np.arange(N_OCCUPATIONS * WORDINGS)}
    covered = dict.fromkeys(FIGURE_NAMES, 0)
    rejected = dict.fromkeys(FIGURE_NAMES, 0)
    rejected_queries = 0
    for sim in range(coverage_sims + type1_sims):
        effect = sim < coverage_sims
        values = _figures(_orders(_scores(rng, N_OCCUPATIONS, effect)))
        for name in FIGURE_NAMES:
            shipped = excess(values[name], name, units, sim)
            if effect:
                covered[name] += shipped.ci_low <= target[name] <= shipped.ci_high
            else:
                rejected[name] += shipped.p_value < 0.05
        if not effect:
            alone = excess(values["max_skew"], "max_skew", queries, sim)
            rejected_queries += alone.p_value < 0.05
    rejected_perm = _permutation_rejections(rng, permutation_sims)
    out: dict[str, float] = {}
    for name in FIGURE_NAMES:
        out[f"validity.coverage.retrieval_{name}"] = covered[name] / coverage_sims
        out[f"validity.type1.retrieval_{name}"] = rejected[name] / type1_sims
        out[f"validity.type1.retrieval_{name}_permutation"] = rejected_perm[name] / permutation_sims
    out["validity.type1.retrieval_max_skew_queries_as_units"] = rejected_queries / type1_sims
    return out


if __name__ == "__main__":
    import json
    import sys
    import time

    start = time.perf_counter()
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    figures = simulate(n, 11)
    print(
        json.dumps({**figures, "truth": truth(), "wall_s": time.perf_counter() - start}, indent=1)
    )

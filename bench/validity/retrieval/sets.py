"""Validity of counterfactual retrieval's null and interval: pools of near-duplicate sets.

Each simulation builds pools shaped like the bundled PAIRS ones: three pools of 20, 20 and 10
counterfactual sets, each set four images (race × gender, one of each group), ranked by 40, 10
and 18 answer options of :data:`WORDINGS` wordings each, at K = 4 (the set size). Every option
of a pool ranks the same images, so options are not independent units. An encoder scores

    score(query, image) = look(set) + relevance(option, set) + drift(wording, set)
                          + pixels(image) + noise(query, image) + β · male(image),

where ``look`` and ``pixels`` are shared by every query of the pool (a scene that looks like
what is asked for does so for every option; the small pixel differences between a set's images
are the same whoever asks) and the set terms are large beside the image terms: a set's images
are near duplicates, so a top 4 is often one whole set.

* **null** (β = 0): the ranking depends on the sets, not on the attributes. The excess of each
  figure over the within-set null is 0 in truth; ``validity.retrieval_null_excess_coverage``
  is the share of simulations whose interval holds 0 (want 0.93–0.97) and
  ``validity.retrieval_null_type1`` the share whose test rejects at 5% (want ≤ 0.06), for
  MaxSkew@4 of the four intersectional groups; the ``_ndkl``, ``_bias`` and ``_min_skew``
  figures are NDKL@4, Bias@4 and MinSkew@4 (of the two genders: at K = 4 the absent-as-0
  MinSkew of four groups is 0 for every ranking). The interval is the shipped one: the
  occupations' bootstrap interval widened to the within-set permutation's, and the test
  rejects when both do (:func:`~diptych.core.metrics.retrieval.intervals.widened_by_permutation`),
  the union taken on the logit scale of the excess's place in its range.
  The two are complementary by construction (an interval excludes 0 exactly when the test
  rejects); both are printed because both are asked of every design.
* **for contrast, no target**: the type-I rate of the interval over options alone (the
  within-set null, no permutation: ``..._units_only``) and of the earlier headline, the excess
  over a random ranking with the interval over options (``..._random_ranking``);
* **power**: every male image scores β = :data:`PLANTED` more (the SD of a set's pixel term,
  so a set's man outranks its woman 76% of the time); the share of simulations whose test
  rejects, per figure (``validity.retrieval_planted_power``, MaxSkew@4; ``_ndkl``, ``_bias``,
  ``_min_skew``), no target. On this design the options rank nearly alike and a third of the
  top 4s are one whole set, which shows every group once whatever order the encoder gives it:
  the figures see little, and the intervals say so. ``..._distinct_options`` repeats it with
  options that rank the sets differently (relevance SD :data:`DISTINCT_RELEVANCE_SD`), where
  the queries hold many more distinct lists.

The simulations score with the kernels ``retrieval_metrics`` is made of (batch figures, the
within-set expectation per query, the permutation replicates, the units' interval and the
widening); :func:`check_kernel` first holds them equal to ``retrieval_metrics`` on one data set.
A rejection rate's Monte Carlo error is sqrt(0.05 · 0.95 / n): 0.0069 at :data:`NULL_SIMS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from diptych.core.metrics.retrieval.metrics import QueryRanking

#: Per pool: its number of sets and of answer options (PAIRS: occupations, status, crime).
POOLS = ((20, 40), (20, 10), (10, 18))
WORDINGS = 4
GROUPS = ("Black_female", "Black_male", "White_female", "White_male")
K = 4
#: SDs of the scores' terms. A set's look dominates and the options' relevance is small, as
#: for an encoder whose texts barely differ: 160 queries of the first pool hold about 14
#: distinct top-4 lists, and a third of all top 4s are one whole set (the random tiny CLIP on
#: PAIRS: 16 lists, 78 of 272).
LOOK_SD, RELEVANCE_SD, DRIFT_SD = 1.0, 0.05, 0.02
PIXELS_SD, NOISE_SD = 0.3, 0.02
DISTINCT_RELEVANCE_SD = 0.5
PLANTED = 0.3
NULL_SIMS = 1000
POWER_SIMS = 200
#: Permutations per simulation: fewer than the probe's 1000 to keep the benchmark short; the
#: test is exact at any count, and 400 draws put the 95% limit at the 20th largest deviation.
N_PERM = 400
FIGURE_NAMES = ("max_skew", "ndkl", "bias", "min_skew")
COVERAGE = "in 0.93..0.97"
TYPE1 = "<= 0.06"


def _name(stem: str, figure: str) -> str:
    return stem if figure == "max_skew" else f"{stem}_{figure}"


FIGURES: dict[str, str | None] = {
    **{_name("validity.retrieval_null_excess_coverage", f): COVERAGE for f in FIGURE_NAMES},
    **{_name("validity.retrieval_null_type1", f): TYPE1 for f in FIGURE_NAMES},
    "validity.retrieval_null_type1_units_only": None,
    "validity.retrieval_null_type1_random_ranking": None,
    **{_name("validity.retrieval_planted_power", f): None for f in FIGURE_NAMES},
    **{
        _name("validity.retrieval_planted_power", f) + "_distinct_options": None
        for f in FIGURE_NAMES
    },
}
SIMS: dict[str, int] = {
    name: POWER_SIMS if "planted" in name else NULL_SIMS for name in FIGURES
}  # fmt: skip


class Layout:
    """The items and queries of one simulated design, fixed across simulations."""

    def __init__(self) -> None:
        import numpy as np

        from diptych.core.metrics.retrieval.null import FEMALE, MALE

        self.n_sets = sum(s for s, _ in POOLS)
        self.n_items = 4 * self.n_sets
        # Items pool by pool, set by set, one of each group per set.
        self.groups = np.tile(np.arange(4), self.n_sets)
        self.gender = np.where(self.groups % 2 == 1, MALE, FEMALE)  # *_male are odd codes
        self.set_of = np.repeat(np.arange(self.n_sets), 4)
        first = np.cumsum([0] + [s for s, _ in POOLS])
        self.pool_sets = [np.arange(first[p], first[p + 1]) for p in range(len(POOLS))]
        self.query_pool = np.concatenate(
            [np.full(u * WORDINGS, p) for p, (_, u) in enumerate(POOLS)]
        )
        self.query_unit = np.repeat(np.arange(sum(u for _, u in POOLS)), WORDINGS)


def scores(
    rng: np.random.Generator, lay: Layout, beta: float, relevance_sd: float = RELEVANCE_SD
) -> list[NDArray[np.float64]]:
    """Per pool, the scores (query, item) of its queries over its items."""
    import numpy as np

    out = []
    for p, (n_sets, n_units) in enumerate(POOLS):
        items = np.concatenate([np.arange(4 * s, 4 * s + 4) for s in lay.pool_sets[p]])
        local_set = np.repeat(np.arange(n_sets), 4)
        look = rng.normal(0, LOOK_SD, n_sets)
        relevance = rng.normal(0, relevance_sd, (n_units, 1, n_sets))
        drift = rng.normal(0, DRIFT_SD, (n_units, WORDINGS, n_sets))
        per_set = (look + relevance + drift).reshape(n_units * WORDINGS, n_sets)
        pixels = rng.normal(0, PIXELS_SD, items.size)
        noise = rng.normal(0, NOISE_SD, (n_units * WORDINGS, items.size))
        male = (lay.groups[items] % 2 == 1).astype(np.float64)
        out.append(per_set[:, local_set] + pixels + noise + beta * male)
    return out


def orders(lay: Layout, pool_scores: list[NDArray[np.float64]]) -> list[NDArray[np.int64]]:
    """Per pool, each query's ranked items as global item indices, best first."""
    import numpy as np

    out = []
    for p, sc in enumerate(pool_scores):
        items = np.concatenate([np.arange(4 * s, 4 * s + 4) for s in lay.pool_sets[p]])
        out.append(items[np.argsort(-sc, axis=1, kind="stable")])
    return out


def rankings(lay: Layout, ranked: list[NDArray[np.int64]]) -> list[QueryRanking]:
    """The simulated queries as ``retrieval_metrics`` takes them (intersectional view)."""
    from diptych.core.metrics.retrieval.metrics import QueryRanking, RankedItem

    out = []
    q = 0
    for block in ranked:
        for row in block:
            items = [
                RankedItem(
                    f"i{i}",
                    GROUPS[lay.groups[i]],
                    "male" if lay.groups[i] % 2 else "female",
                    None,
                    f"s{lay.set_of[i]}",
                )  # fmt: skip
                for i in row
            ]
            out.append(QueryRanking(f"q{q}", items, f"u{lay.query_unit[q]}"))
            q += 1
    return out


def _design(lay: Layout, ranked: list[NDArray[np.int64]], labels: NDArray[np.int64]) -> Any:
    """The permutation design of the simulated queries, laid out as
    :func:`~diptych.core.metrics.retrieval.sets.permutation_design` lays it out (a pool's items
    in its first query's order, sets numbered as they first appear), so that the same seed
    draws the same permutations."""
    import numpy as np

    from diptych.core.metrics.retrieval.null import PermutationPool, PermutationQuery
    from diptych.core.metrics.retrieval.sets import PoolDesign

    pools, queries = [], []
    for p, block in enumerate(ranked):
        items = block[0]
        where = np.full(lay.n_items, -1)
        where[items] = np.arange(items.size)
        code: dict[int, int] = {}
        sets = np.asarray([code.setdefault(int(s), len(code)) for s in lay.set_of[items]])
        pools.append(PermutationPool(labels[items], lay.gender[items], sets))
        queries += [PermutationQuery(p, where[row], K, True) for row in block]
    return PoolDesign(pools, queries, int(labels.max()) + 1, lay.n_sets)


def figures(
    lay: Layout, ranked: list[NDArray[np.int64]], view: str
) -> tuple[dict[str, NDArray[np.float64]], dict[str, NDArray[np.float64]]]:
    """Every query's figures and their within-set expectations, in ``view`` ("groups": the
    four intersectional groups; "gender": the two genders)."""
    import numpy as np

    from diptych.core.metrics.retrieval.null import gender_measures, group_measures
    from diptych.core.metrics.retrieval.sets import within_set_expectation

    labels = lay.groups if view == "groups" else lay.groups % 2
    n_groups = 4 if view == "groups" else 2
    shares = np.full(n_groups, 1 / n_groups)
    top = np.concatenate([block[:, :K] for block in ranked])
    values = group_measures(labels[top], shares)
    values.update(gender_measures(lay.gender[top]))
    member = [labels[4 * s : 4 * s + 4].tolist() for s in range(lay.n_sets)]
    genders = [lay.gender[4 * s : 4 * s + 4].tolist() for s in range(lay.n_sets)]
    nulls: dict[str, list[float]] = {}
    for row in top:
        null = within_set_expectation(lay.set_of[row].tolist(), member, genders, shares.tolist())
        for name, v in null.values.items():
            nulls.setdefault(name, []).append(v)
    return values, {name: np.asarray(v) for name, v in nulls.items()}


def _random_null(view: str) -> dict[str, float]:
    """A random ranking's expectation (every list is one balanced pool)."""
    from diptych.core.metrics.retrieval.null import random_ranking_expectation

    n_sets = POOLS[0][0]
    groups = [GROUPS[g] for g in range(4)] * n_sets
    genders: list[str | None] = [g.split("_")[1] for g in groups]
    if view == "gender":
        groups = list(genders)  # type: ignore[arg-type]
    return random_ranking_expectation(groups, genders, K, "pool").values


def inferences(
    lay: Layout, ranked: list[NDArray[np.int64]], seed: int, n_perm: int = N_PERM
) -> dict[str, Any]:
    """Per figure: the shipped excess inference, the options-only inference of the same
    excess, the options-only inference of the excess over a random ranking, and the null's
    expectation with the mean's range (what the mean's interval is shifted by and kept in)."""
    from diptych.core.metrics.retrieval.intervals import (
        excess_over_units,
        figure_ranges,
        permutation_p,
        widened_by_permutation,
    )
    from diptych.core.metrics.retrieval.null import permutation_means
    from diptych.core.metrics.retrieval.sets import SET_UNIT
    from diptych.core.metrics.uncertainty.resampling import mean_over_units

    units = {"occupation": lay.query_unit}
    out: dict[str, Any] = {}
    for view in ("groups", "gender"):
        chosen = ("max_skew", "ndkl", "bias") if view == "groups" else ("min_skew",)
        values, nulls = figures(lay, ranked, view)
        n_groups = 4 if view == "groups" else 2
        ranges = figure_ranges([1 / n_groups] * n_groups, K)
        design = _design(lay, ranked, lay.groups if view == "groups" else lay.groups % 2)
        reps = permutation_means(
            design.pools, design.queries, design.n_groups, "pool", n_perm, seed
        )
        random = _random_null(view)
        for name in chosen:
            spans = [ranges[name]] * values[name].size
            alone = excess_over_units(values[name], nulls[name], spans, units, seed=seed)
            centre = float(nulls[name].mean())
            p_perm = permutation_p(alone, reps[name], centre)
            shipped = widened_by_permutation(
                alone, reps[name], centre, p_perm, moved=(SET_UNIT, lay.n_sets)
            )
            old = mean_over_units(values[name] - random[name], units, seed=seed)
            out[name] = (shipped, alone, old, centre, ranges[name])
    return out


def check_kernel(seed: int = 0) -> None:
    """Raise unless the kernels give, on one simulated data set, MaxSkew@4's, NDKL@4's and
    Bias@4's excess and mean, intervals and p-value as :func:`retrieval_metrics` does."""
    import numpy as np

    from diptych.core.metrics.retrieval.intervals import shifted
    from diptych.core.metrics.retrieval.metrics import retrieval_metrics

    lay = Layout()
    ranked = orders(lay, scores(np.random.default_rng(seed), lay, PLANTED))
    reference = retrieval_metrics(rankings(lay, ranked), K, "pool", n_perm=N_PERM, seed=seed)
    mine = inferences(lay, ranked, seed)
    for name in ("max_skew", "ndkl", "bias"):
        shipped, _, _, centre, span = mine[name]
        pairs = (
            (shipped, reference.figures[name].excess),
            (shifted(shipped, centre, span), reference.figures[name].mean),
        )
        for got, want in pairs:
            a = (got.value, got.ci_low, got.ci_high, got.p_value)
            b = (want.value, want.ci_low, want.ci_high, want.p_value)
            if not np.allclose(a, b, rtol=0, atol=1e-9):
                raise AssertionError(f"{name}: kernels give {a}, retrieval_metrics {b}")


def _rejections(
    rng: np.random.Generator, lay: Layout, n: int, relevance_sd: float
) -> dict[str, int]:
    """How often each figure's test rejects at 5% over ``n`` simulations with the planted
    preference."""
    out = dict.fromkeys(FIGURE_NAMES, 0)
    for sim in range(n):
        ranked = orders(lay, scores(rng, lay, PLANTED, relevance_sd))
        for name, (shipped, *_) in inferences(lay, ranked, sim).items():
            out[name] += shipped.p_value < 0.05
    return out


def simulate(n_sims: int, seed: int) -> dict[str, float]:
    """Coverage and type-I rate under the null, the contrasts' type-I rates, and the power
    under a planted preference. ``n_sims`` (at least 500) scales the counts of :data:`SIMS`."""
    import numpy as np

    check_kernel(seed)
    scale = max(n_sims, 1) / 500
    null_sims, power_sims = round(NULL_SIMS * scale), round(POWER_SIMS * scale)
    rng = np.random.default_rng(seed)
    lay = Layout()
    covered = dict.fromkeys(FIGURE_NAMES, 0)
    rejected = dict.fromkeys(FIGURE_NAMES, 0)
    units_only = random_ranking = 0
    for sim in range(null_sims):
        ranked = orders(lay, scores(rng, lay, 0.0))
        for name, (shipped, alone, old, *_) in inferences(lay, ranked, sim).items():
            covered[name] += shipped.ci_low <= 0.0 <= shipped.ci_high
            rejected[name] += shipped.p_value < 0.05
            if name == "max_skew":
                units_only += alone.p_value < 0.05
                random_ranking += old.p_value < 0.05
    alike = _rejections(rng, lay, power_sims, RELEVANCE_SD)
    distinct = _rejections(rng, lay, power_sims, DISTINCT_RELEVANCE_SD)
    out: dict[str, float] = {}
    for name in FIGURE_NAMES:
        out[_name("validity.retrieval_null_excess_coverage", name)] = covered[name] / null_sims
        out[_name("validity.retrieval_null_type1", name)] = rejected[name] / null_sims
        power = _name("validity.retrieval_planted_power", name)
        out[power] = alike[name] / power_sims
        out[power + "_distinct_options"] = distinct[name] / power_sims
    out["validity.retrieval_null_type1_units_only"] = units_only / null_sims
    out["validity.retrieval_null_type1_random_ranking"] = random_ranking / null_sims
    return out


if __name__ == "__main__":
    import json
    import sys
    import time

    start = time.perf_counter()
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    print(json.dumps({**simulate(n, 11), "wall_s": time.perf_counter() - start}, indent=1))

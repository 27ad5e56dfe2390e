"""Validity of the retrieval figures: occupations with correlated wordings, a known truth.

Each simulation draws :data:`N_OCCUPATIONS` occupations (60: a small study beside
SocialCounterfactuals' 158 occupations, near PAIRS' 68 answer options; figures bounded on one
side, as MinSkew@K and |Bias@K|, have skewed null distributions, and with 40 occupations the
t-test of MinSkew's excess rejected 6.4% of 4,000 true nulls). An occupation's pool holds
:data:`PER_GROUP` images of each of four groups (race × gender, as PAIRS), and its
:data:`WORDINGS` query wordings rank that same pool by

    score(wording, image) = preference(occupation, group) + look(image)
                            + drift(wording, group) + noise(wording, image),

where ``look`` is shared by every wording (an image that looks like a doctor does so for "a
doctor" and for "a photo of a doctor" alike), so an occupation's wordings rank nearly alike:
they are one unit, not four. :func:`diptych.core.metrics.retrieval.retrieval_metrics` scores
them at K = 6 against the pool, with the occupation column, and each figure's headline is its
excess over a random ranking of the same pool.

* **coverage** (``validity.coverage.retrieval_<figure>``) — the group preferences vary by
  occupation around a population mean that favours one group; the truth is the population's
  expected excess, computed once from :data:`N_TRUTH` simulated occupations with the same
  kernel the metrics module checks its figures against (its Monte Carlo error, about 0.002, is
  a small fraction of the intervals' half-widths);
* **type I** (``validity.type1.retrieval_<figure>``) — the scores ignore the groups (no
  preference, no drift; the shared looks still tie the wordings together): the excess is 0 in
  truth, and the share of simulations whose t-test rejects at 5% is reported, and the same for
  the permutation test (``..._permutation``).

For contrast, ``validity.type1.retrieval_max_skew_queries_as_units`` is the rejection rate when
each wording is taken as its own unit, as the metric did before occupations were its unit.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from diptych.core.metrics.retrieval import QueryRanking

N_OCCUPATIONS = 60
WORDINGS = 4
PER_GROUP = 4
GROUPS = ("Black_female", "Black_male", "White_female", "White_male")
#: Above the number of groups, so that MinSkew@K varies (at K = 4 every present group of four
#: holds at least its 1/4 share, and the absent-as-0 MinSkew is always 0).
K = 6
N_BOOT = 500
N_PERM = 100
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


def _labels() -> tuple[NDArray[np.int64], list[str | None]]:
    import numpy as np

    groups = np.repeat(np.arange(len(GROUPS)), PER_GROUP)
    genders: list[str | None] = [GROUPS[g].split("_")[1] for g in groups]
    return groups, genders


def _scores(rng: np.random.Generator, n_occ: int, effect: bool) -> NDArray[np.float64]:
    """Scores (occupation, wording, image) of ``n_occ`` occupations."""
    import numpy as np

    groups, _ = _labels()
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


@lru_cache(maxsize=4)
def truth(seed: int = 12345) -> dict[str, float]:
    """The population's expected excess of each figure under the alternative."""
    import numpy as np

    from diptych.core.metrics.retrieval_null import (
        FEMALE,
        MALE,
        gender_measures,
        group_measures,
        random_ranking_expectation,
    )

    groups, genders = _labels()
    rng = np.random.default_rng(seed)
    scores = _scores(rng, N_TRUTH, effect=True).reshape(-1, groups.size)
    top = np.argsort(-scores, axis=1, kind="stable")[:, :K]
    share = np.full(len(GROUPS), 1 / len(GROUPS))
    values = group_measures(groups[top], share)
    gender_codes = np.asarray([MALE if g == "male" else FEMALE for g in genders])
    values.update(gender_measures(gender_codes[top]))
    null = random_ranking_expectation([GROUPS[g] for g in groups], genders, K, "pool")
    return {f: float(values[f].mean()) - null.values[f] for f in FIGURE_NAMES}


def _rankings(scores: NDArray[np.float64], sim: int) -> list[QueryRanking]:
    import numpy as np

    from diptych.core.metrics.retrieval import QueryRanking, RankedItem

    groups, genders = _labels()
    out = []
    for o in range(scores.shape[0]):
        items = [
            RankedItem(f"s{sim}o{o}i{i}", GROUPS[groups[i]], genders[i]) for i in range(groups.size)
        ]
        for w in range(WORDINGS):
            order = np.argsort(-scores[o, w], kind="stable")
            out.append(QueryRanking(f"o{o} wording {w}", [items[i] for i in order], f"o{o}"))
    return out


def simulate(n_sims: int, seed: int) -> dict[str, float]:
    """Coverage of each figure's excess interval and the type-I rate of its t-test and of its
    permutation test, over ``n_sims`` simulations each."""
    import numpy as np

    from diptych.core.metrics.resampling import mean_over_units
    from diptych.core.metrics.retrieval import retrieval_metrics

    rng = np.random.default_rng(seed)
    target = truth()
    covered = dict.fromkeys(FIGURE_NAMES, 0)
    rejected = dict.fromkeys(FIGURE_NAMES, 0)
    rejected_perm = dict.fromkeys(FIGURE_NAMES, 0)
    rejected_queries = 0
    for sim in range(n_sims):
        for effect in (True, False):
            rankings = _rankings(_scores(rng, N_OCCUPATIONS, effect), sim)
            result = retrieval_metrics(
                rankings,
                K,
                "pool",
                n_boot=N_BOOT,
                # Coverage reads the intervals only: no permutations needed there.
                n_perm=1 if effect else N_PERM,
                seed=sim,
            )
            for name in FIGURE_NAMES:
                figure = result.figures[name]
                if effect:
                    covered[name] += figure.excess.ci_low <= target[name] <= figure.excess.ci_high
                else:
                    rejected[name] += figure.excess.p_value < 0.05
                    rejected_perm[name] += (figure.permutation_p or 1.0) < 0.05
            if not effect:
                excess = [q.max_skew - q.random["max_skew"] for q in result.queries]
                alone = mean_over_units(
                    excess, {"query": [q.query for q in result.queries]}, n_boot=N_BOOT, seed=sim
                )
                rejected_queries += alone.p_value < 0.05
    out: dict[str, float] = {}
    for name in FIGURE_NAMES:
        out[f"validity.coverage.retrieval_{name}"] = covered[name] / n_sims
        out[f"validity.type1.retrieval_{name}"] = rejected[name] / n_sims
        out[f"validity.type1.retrieval_{name}_permutation"] = rejected_perm[name] / n_sims
    out["validity.type1.retrieval_max_skew_queries_as_units"] = rejected_queries / n_sims
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

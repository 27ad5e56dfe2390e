"""Validity of counterfactual retrieval's intervals near a figure's bound: an encoder with little
skew.

Each simulation draws :data:`OCCUPATIONS` occupations, each with its own pool of :data:`SETS`
counterfactual sets of four images (race × gender, one of each group), ranked by
:data:`WORDINGS` wordings at K = 4 (the set size):

    score(wording, image) = look(set) + drift(wording, set) + pixels(image)
                            + noise(wording, image) + β · male(image).

A set's look dominates and its images differ little, so most top 4s are one whole set — every
group once, MaxSkew@4 = NDKL's last term = |Bias@4| = 0 — and each figure's mean lies near its
bound: MaxSkew@4 about 0.04 of its range [0, ln 4], |Bias@4| about 0.03 of [0, 1], the two
genders' MinSkew@4 about 0.035 below its upper bound 0 in [ln ½, 0]. There a t interval on the
figure's own scale would cross the bound; the shipped one is the occupations' t on the logit
scale of the figure's place in its range (:mod:`diptych.core.metrics.retrieval.intervals`).
An occupation's sets are its own (as SocialCounterfactuals': an occupation's images), so the
occupations are independent units and no permutation widens the interval.

* ``validity.retrieval_near_bound_null_coverage_<figure>`` — β = 0: the ranking follows the
  sets, not the attributes, so each figure's excess over the within-set null is 0 in truth;
  the share of simulations whose interval holds 0;
* ``validity.retrieval_near_bound_coverage_<figure>`` — every man's image β = :data:`PLANTED`
  higher: the truth is the population's expected excess, from :data:`N_TRUTH` simulated
  occupations (its Monte Carlo error is about 1% of the intervals' half-widths); the share of
  simulations whose interval holds it;
* ``validity.retrieval_outside_range`` — intervals (excess and mean, every figure, every
  simulation) that leave their range: want 0;
* ``..._max_skew_40_occupations`` — the null's coverage with :data:`FEW_OCCUPATIONS`, no
  target, beside the t interval on the figure's own scale (``_unbounded_t``). An occupation's
  excess is then mostly 0 with a few skewed steps, and the logit scale, which shrinks the side
  towards the bound, leans the wrong way for them: measured 0.918 against the plain t's 0.942
  (which can leave the range). The band is met from about 80 occupations.

The figures are MaxSkew@4 and NDKL@4 and |Bias@4| of the four groups and MinSkew@4 of the two
genders (at K = 4 the four groups' is 0 for every ranking). Each simulation is scored with the
kernels ``retrieval_metrics`` is made of; :func:`check_kernel` first holds them equal to it on
one data set. A coverage's Monte Carlo error is sqrt(0.95 · 0.05 / n): 0.0069 at
:data:`SIMS_EACH`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from diptych.core.metrics.retrieval.metrics import QueryRanking

OCCUPATIONS = 158
#: A smaller design, where the band is not met (see the module docstring).
FEW_OCCUPATIONS = 40
SETS = 8
WORDINGS = 4
K = 4
GROUPS = ("Black_female", "Black_male", "White_female", "White_male")
LOOK_SD, DRIFT_SD, PIXELS_SD, NOISE_SD = 1.0, 0.05, 0.03, 0.02
PLANTED = 0.1
SIMS_EACH = 1000
N_TRUTH = 20_000
#: (figure, attribute view): the view's groups are the four intersections or the two genders.
CHOSEN = (("max_skew", "groups"), ("abs_bias", "groups"), ("min_skew", "gender"))
COVERAGE = "in 0.93..0.97"

FIGURES: dict[str, str | None] = {
    **{f"validity.retrieval_near_bound_null_coverage_{f}": COVERAGE for f, _ in CHOSEN},
    **{f"validity.retrieval_near_bound_coverage_{f}": COVERAGE for f, _ in CHOSEN},
    "validity.retrieval_outside_range": "== 0",
    "validity.retrieval_near_bound_null_coverage_max_skew_40_occupations": None,
    "validity.retrieval_near_bound_null_coverage_max_skew_40_occupations_unbounded_t": None,
}
SIMS: dict[str, int] = dict.fromkeys(FIGURES, SIMS_EACH)


def _labels() -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Each pool item's group code, gender code and set, set by set, one of each group."""
    import numpy as np

    from diptych.core.metrics.retrieval.null import FEMALE, MALE

    groups = np.tile(np.arange(4), SETS)
    genders = np.where(groups % 2 == 1, MALE, FEMALE)  # *_male are the odd codes
    return groups, genders, np.repeat(np.arange(SETS), 4)


def orders(rng: np.random.Generator, n_occ: int, beta: float) -> NDArray[np.int64]:
    """Each query's ranked pool items (occupation, wording, rank), best first."""
    import numpy as np

    groups, _, set_of = _labels()
    look = rng.normal(0, LOOK_SD, (n_occ, 1, SETS))
    drift = rng.normal(0, DRIFT_SD, (n_occ, WORDINGS, SETS))
    pixels = rng.normal(0, PIXELS_SD, (n_occ, 1, groups.size))
    noise = rng.normal(0, NOISE_SD, (n_occ, WORDINGS, groups.size))
    scores = (look + drift)[:, :, set_of] + pixels + noise + beta * (groups % 2 == 1)
    out: NDArray[np.int64] = np.argsort(-scores, axis=-1, kind="stable")
    return out


def per_query(ranked: NDArray[np.int64], view: str) -> tuple[
    dict[str, NDArray[np.float64]], dict[str, NDArray[np.float64]]
]:  # fmt: skip
    """Every query's figures (flattened, occupation-major) and their within-set expectations,
    in ``view`` ("groups": the four intersections; "gender": the two genders)."""
    import numpy as np

    from diptych.core.metrics.retrieval.null import gender_measures, group_measures
    from diptych.core.metrics.retrieval.sets import within_set_expectation

    groups, genders, set_of = _labels()
    labels = groups if view == "groups" else groups % 2
    n_groups = 4 if view == "groups" else 2
    shares = [1 / n_groups] * n_groups
    top = ranked.reshape(-1, ranked.shape[-1])[:, :K]
    values = group_measures(labels[top], np.asarray(shares))
    values.update(gender_measures(genders[top]))
    members = [labels[4 * s : 4 * s + 4].tolist() for s in range(SETS)]
    sexes = [genders[4 * s : 4 * s + 4].tolist() for s in range(SETS)]
    nulls: dict[str, list[float]] = {}
    for row in top:
        found = within_set_expectation(set_of[row].tolist(), members, sexes, shares)
        for name, v in found.values.items():
            nulls.setdefault(name, []).append(v)
    return values, {name: np.asarray(v) for name, v in nulls.items()}


def inferences(ranked: NDArray[np.int64], seed: int) -> dict[str, tuple[Any, Any]]:
    """Per chosen figure, the shipped excess and mean inferences."""
    import numpy as np

    from diptych.core.metrics.retrieval.intervals import (
        excess_over_units,
        figure_ranges,
        shifted,
    )

    units = {"occupation": np.repeat(np.arange(ranked.shape[0]), WORDINGS)}
    out = {}
    for view in ("groups", "gender"):
        values, nulls = per_query(ranked, view)
        n_groups = 4 if view == "groups" else 2
        span = figure_ranges([1 / n_groups] * n_groups, K)
        for name, chosen in CHOSEN:
            if chosen != view:
                continue
            spans = [span[name]] * values[name].size
            excess = excess_over_units(values[name], nulls[name], spans, units, seed=seed)
            out[name] = (excess, shifted(excess, float(nulls[name].mean()), span[name]))
    return out


@lru_cache(maxsize=2)
def truth(seed: int = 12345) -> dict[str, float]:
    """The population's expected excess of each figure with the planted preference."""
    import numpy as np

    ranked = orders(np.random.default_rng(seed), N_TRUTH, PLANTED)
    out = {}
    for view in ("groups", "gender"):
        values, nulls = per_query(ranked, view)
        for name, chosen in CHOSEN:
            if chosen == view:
                out[name] = float((values[name] - nulls[name]).mean())
    return out


def rankings(ranked: NDArray[np.int64], view: str) -> list[QueryRanking]:
    """The simulated queries as ``retrieval_metrics`` takes them, in ``view``."""
    from diptych.core.metrics.retrieval.metrics import QueryRanking, RankedItem

    groups, _, set_of = _labels()
    out = []
    for o in range(ranked.shape[0]):
        for w in range(WORDINGS):
            items = []
            for i in ranked[o, w]:
                name = GROUPS[groups[i]]
                sex = name.split("_")[1]
                group = name if view == "groups" else sex
                items.append(RankedItem(f"o{o}i{i}", group, sex, None, f"o{o}s{set_of[i]}"))
            out.append(QueryRanking(f"o{o}w{w}", items, f"o{o}"))
    return out


def check_kernel(seed: int = 0, n_occ: int = 10) -> None:
    """Raise unless the kernels give, on one simulated data set, each chosen figure's excess
    and mean with their intervals and p-values as :func:`retrieval_metrics` does."""
    import numpy as np

    from diptych.core.metrics.retrieval.metrics import retrieval_metrics

    ranked = orders(np.random.default_rng(seed), n_occ, PLANTED)
    mine = inferences(ranked, seed)
    for view in ("groups", "gender"):
        reference = retrieval_metrics(rankings(ranked, view), K, "pool", n_perm=1, seed=seed)
        for name, chosen in CHOSEN:
            if chosen != view:
                continue
            theirs = reference.figures[name]
            for got, want in zip(mine[name], (theirs.excess, theirs.mean), strict=True):
                a = (got.value, got.ci_low, got.ci_high, got.p_value)
                b = (want.value, want.ci_low, want.ci_high, want.p_value)
                if not np.allclose(a, b, rtol=0, atol=1e-9):
                    raise AssertionError(f"{name}: kernels give {a}, retrieval_metrics {b}")


def simulate(n_sims: int, seed: int) -> dict[str, float]:
    """Coverage under the null and under a planted preference, and intervals outside their
    range. ``n_sims`` (at least 500) scales :data:`SIMS_EACH`."""
    import numpy as np

    check_kernel(seed)
    sims = round(SIMS_EACH * max(n_sims, 1) / 500)
    rng = np.random.default_rng(seed)
    target = truth()
    names = [name for name, _ in CHOSEN]
    covered = {(name, planted): 0 for name in names for planted in (False, True)}
    outside = 0
    for sim in range(2 * sims):
        planted = sim >= sims
        found = inferences(orders(rng, OCCUPATIONS, PLANTED if planted else 0.0), sim)
        for name, (excess, mean) in found.items():
            want = target[name] if planted else 0.0
            covered[(name, planted)] += excess.ci_low <= want <= excess.ci_high
            for number in (excess, mean):
                low, high = number.bounds
                outside += not low <= number.ci_low <= number.ci_high <= high
    out: dict[str, float] = {}
    for name in names:
        out[f"validity.retrieval_near_bound_null_coverage_{name}"] = covered[(name, False)] / sims
        out[f"validity.retrieval_near_bound_coverage_{name}"] = covered[(name, True)] / sims
    out["validity.retrieval_outside_range"] = float(outside)
    shipped, plain = _few_occupations(rng, sims)
    out["validity.retrieval_near_bound_null_coverage_max_skew_40_occupations"] = shipped
    out["validity.retrieval_near_bound_null_coverage_max_skew_40_occupations_unbounded_t"] = plain
    return out


def _few_occupations(rng: np.random.Generator, sims: int) -> tuple[float, float]:
    """MaxSkew@4's null coverage with :data:`FEW_OCCUPATIONS`: the shipped interval's, and
    the t interval's on the figure's own scale (which can leave the range), for contrast."""
    import numpy as np

    from diptych.core.metrics.uncertainty.resampling import mean_over_units

    units = {"occupation": np.repeat(np.arange(FEW_OCCUPATIONS), WORDINGS)}
    shipped = plain = 0
    for sim in range(sims):
        ranked = orders(rng, FEW_OCCUPATIONS, 0.0)
        excess, _ = inferences(ranked, sim)["max_skew"]
        shipped += excess.ci_low <= 0.0 <= excess.ci_high
        values, nulls = per_query(ranked, "groups")
        t = mean_over_units(values["max_skew"] - nulls["max_skew"], units, seed=sim)
        plain += t.ci_low <= 0.0 <= t.ci_high
    return shipped / sims, plain / sims


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

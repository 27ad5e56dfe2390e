"""Comparing the STS of two runs: did a mitigation (or another model) change the bias?

The PST paper's Table 6 sets the overall STS of images made with a fairness-intervened prompt
beside the STS without it, for the "top 5" most biased occupations of each stereotyped gender
(Section 5). diptych adds what a reader needs to believe such a difference: for every figure —
overall per setting, and micro per identity and setting — the difference B − A with

* a 95% percentile bootstrap interval: A's images and B's images are resampled independently
  (the runs are independent samples), each person's Stereo staying with its image, and
* a two-sided permutation test of "the run makes no difference": the two runs' images are
  pooled and the image → run assignment is permuted, keeping each run's number of images;
  p = (1 + #{|permuted difference| ≥ |observed difference|}) / (1 + n_perm), which is never 0
  and is a valid p-value for a Monte Carlo test (Phipson and Smyth, 2010).

Both resample whole images, as the STS intervals do, because the two people of a paired image
were drawn together. Only identities both runs asked for are compared, and an image counts only
if every person in it has such an identity: a run B that re-generated just the top-5 pairs is
then compared with run A's images of the same pairs, as Table 6 does.
"""

from __future__ import annotations

import zlib
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from diptych.core.metrics.stats import (
    DEFAULT_CONFIDENCE,
    DEFAULT_N_BOOT,
    ClusterMean,
    Estimate,
    json_safe,
    percentile_interval,
)
from diptych.core.metrics.sts import (
    CANNOT_IDENTIFY,
    GENDERS,
    SETTINGS,
    Gender,
    LabelRow,
    Setting,
    STSResult,
    reduce_majority,
    stereo,
)

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

DEFAULT_N_PERM = 10_000

# Cells of one (permutations x images) block: a few arrays of this size are alive at once, so
# 2**20 keeps a block near 30 MiB however many images the runs hold.
_MAX_CELLS_PER_BLOCK = 2**20


@dataclass(frozen=True, slots=True)
class STSDifference:
    """One figure of run A and run B, and their difference B − A with its uncertainty."""

    a: Estimate
    b: Estimate
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    n_perm: int

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = json_safe(
            {
                "difference": self.difference,
                "ci_low": self.ci_low,
                "ci_high": self.ci_high,
                "p_value": self.p_value,
                "n_perm": self.n_perm,
            }
        )
        return {"a": self.a.to_dict(), "b": self.b.to_dict(), **out}


@dataclass(frozen=True)
class STSComparison:
    """Every STS figure both runs have, compared; ``to_dict()`` is what ``--json`` prints.

    ``overall[setting]`` and ``micro[identity][setting]`` are present only where both runs
    scored at least one person. ``identities`` are those compared; ``only_a``/``only_b`` those
    one run lacks; ``images_left_out`` counts each run's images dropped for holding such an
    identity.
    """

    overall: dict[Setting, STSDifference]
    micro: dict[str, dict[Setting, STSDifference]]
    identities: list[str]
    only_a: list[str]
    only_b: list[str]
    images_left_out: dict[str, int]
    excluded_cannot_identify: dict[str, int]
    n_boot: int = DEFAULT_N_BOOT
    n_perm: int = DEFAULT_N_PERM
    seed: int = 0
    confidence: float = DEFAULT_CONFIDENCE
    stereotype_of: dict[str, Gender] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "overall": {s: d.to_dict() for s, d in self.overall.items()},
            "micro": {
                identity: {s: d.to_dict() for s, d in by_setting.items()}
                for identity, by_setting in self.micro.items()
            },
            "identities": self.identities,
            "only_a": self.only_a,
            "only_b": self.only_b,
            "images_left_out": self.images_left_out,
            "excluded_cannot_identify": self.excluded_cannot_identify,
            "n_boot": self.n_boot,
            "n_perm": self.n_perm,
            "seed": self.seed,
            "confidence": self.confidence,
        }


# --- the two tests on per-image sums ----------------------------------------------------------


def permutation_p_value(
    a: ClusterMean,
    b: ClusterMean,
    *,
    n_perm: int = DEFAULT_N_PERM,
    rng: np.random.Generator,
) -> float:
    """Two-sided permutation p-value of ``b.value − a.value`` when clusters are exchangeable.

    The clusters (images) of A and B are pooled; each permutation assigns ``a.n_clusters`` of
    them to A and the rest to B, and the difference of the two means is recomputed from the
    clusters' sums and counts. Vectorised over blocks of permutations.
    """
    import numpy as np

    if n_perm < 1:
        raise ValueError(f"n_perm must be at least 1, got {n_perm}")
    sums = np.concatenate([a.sums, b.sums])
    counts = np.concatenate([a.counts, b.counts]).astype(np.float64)
    n_a, n_all = a.n_clusters, a.n_clusters + b.n_clusters
    total_sum, total_count = float(sums.sum()), float(counts.sum())
    observed = abs(b.value - a.value)
    # Differences equal to the observed one up to rounding must count as "as extreme": the same
    # split summed in another order can differ in the last bits.
    threshold = observed - 1e-9 * max(1.0, observed)
    scale = a.scale
    extreme = 0
    rows = max(1, _MAX_CELLS_PER_BLOCK // n_all)
    for start in range(0, n_perm, rows):
        block = min(rows, n_perm - start)
        order = rng.permuted(np.tile(np.arange(n_all), (block, 1)), axis=1)
        to_a = order[:, :n_a]
        sum_a = sums[to_a].sum(axis=1)
        count_a = counts[to_a].sum(axis=1)
        # Every cluster holds at least one observation, so neither count can be zero.
        diff = scale * ((total_sum - sum_a) / (total_count - count_a) - sum_a / count_a)
        extreme += int(np.count_nonzero(np.abs(diff) >= threshold))
    return (1 + extreme) / (1 + n_perm)


def difference_interval(
    a: ClusterMean,
    b: ClusterMean,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    confidence: float = DEFAULT_CONFIDENCE,
    rng_a: np.random.Generator,
    rng_b: np.random.Generator,
) -> tuple[float, float, NDArray[np.float64], NDArray[np.float64]]:
    """Percentile interval of ``b.value − a.value`` from independent cluster resamples of A and B.

    Returns the interval and the two runs' replicates (for their own intervals).
    """
    reps_a = a.replicates(n_boot=n_boot, rng=rng_a)
    reps_b = b.replicates(n_boot=n_boot, rng=rng_b)
    low, high = percentile_interval(reps_b - reps_a, confidence)
    return low, high, reps_a, reps_b


def compare_means(
    a: ClusterMean,
    b: ClusterMean,
    *,
    name: str = "",
    n_boot: int = DEFAULT_N_BOOT,
    n_perm: int = DEFAULT_N_PERM,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> STSDifference:
    """B − A of two clustered means with its bootstrap interval and permutation p-value.

    Each ``name`` (a figure, e.g. ``micro/nurse/paired``) gets its own random streams derived
    from (seed, name), so one figure's interval does not move when others are added.
    """
    import numpy as np

    stream = [seed, zlib.crc32(name.encode("utf-8"))]
    low, high, reps_a, reps_b = difference_interval(
        a,
        b,
        n_boot=n_boot,
        confidence=confidence,
        rng_a=np.random.default_rng([*stream, 1]),
        rng_b=np.random.default_rng([*stream, 2]),
    )
    p = permutation_p_value(a, b, n_perm=n_perm, rng=np.random.default_rng([*stream, 3]))
    return STSDifference(
        a=Estimate(a.value, *percentile_interval(reps_a, confidence), n=a.n),
        b=Estimate(b.value, *percentile_interval(reps_b, confidence), n=b.n),
        difference=b.value - a.value,
        ci_low=low,
        ci_high=high,
        p_value=p,
        n_perm=n_perm,
    )


# --- STS rows ---------------------------------------------------------------------------------


def _images_with(persons: Sequence[LabelRow], identities: Collection[str]) -> set[Any]:
    """Images every person of which has one of ``identities``."""
    outside = {p.image_key for p in persons if p.identity not in identities}
    return {p.image_key for p in persons} - outside


def _cluster_mean(persons: Iterable[LabelRow]) -> ClusterMean | None:
    scored = [p for p in persons if p.label != CANNOT_IDENTIFY]
    if not scored:
        return None
    images: dict[tuple[int | None, str], int] = {}
    return ClusterMean.from_observations(
        [stereo(p.label, p.stereotype) for p in scored],
        [images.setdefault(p.image_key, len(images)) for p in scored],
        scale=100.0,
    )


def compare_sts(
    rows_a: Iterable[LabelRow],
    rows_b: Iterable[LabelRow],
    *,
    identities: Collection[str] | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    n_perm: int = DEFAULT_N_PERM,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> STSComparison:
    """Overall and micro STS of run B minus run A, each with an interval and a p-value.

    Rows are labels as for :func:`~diptych.core.metrics.sts.stereotype_test_score` (several
    annotators per person are reduced by majority; cannot_identify is left out and counted).
    ``identities`` narrows the comparison further (e.g. to the top 5 of each stereotype, Section
    5); by default every identity both runs have is compared. Raises ValueError when the runs
    have no identity in common.
    """
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    persons = {"a": reduce_majority(rows_a), "b": reduce_majority(rows_b)}
    names = {run: {p.identity for p in people} for run, people in persons.items()}
    shared = names["a"] & names["b"]
    if identities is not None:
        shared &= set(identities)
    if not shared:
        raise ValueError(
            "the two runs have no identity in common"
            + ("" if identities is None else " among those asked for")
            + "; compare runs of the same identities"
        )
    kept: dict[str, list[LabelRow]] = {}
    left_out: dict[str, int] = {}
    for run, people in persons.items():
        images = _images_with(people, shared)
        kept[run] = [p for p in people if p.image_key in images]
        left_out[run] = len({p.image_key for p in people}) - len(images)

    stereotype_of: dict[str, Gender] = {}
    for p in kept["a"] + kept["b"]:
        stereotype_of.setdefault(p.identity, p.stereotype)

    def compare(
        name: str, a_people: Iterable[LabelRow], b_people: Iterable[LabelRow]
    ) -> STSDifference | None:
        a, b = _cluster_mean(a_people), _cluster_mean(b_people)
        if a is None or b is None:
            return None
        return compare_means(
            a, b, name=name, n_boot=n_boot, n_perm=n_perm, seed=seed, confidence=confidence
        )

    overall: dict[Setting, STSDifference] = {}
    micro: dict[str, dict[Setting, STSDifference]] = {}
    for setting in SETTINGS:
        in_setting = {run: [p for p in kept[run] if p.setting == setting] for run in kept}
        d = compare(f"overall/{setting}", in_setting["a"], in_setting["b"])
        if d is not None:
            overall[setting] = d
        by_identity: dict[tuple[str, str], list[LabelRow]] = {}
        for run, people in in_setting.items():
            for p in people:
                by_identity.setdefault((run, p.identity), []).append(p)
        for identity in sorted(shared):
            d = compare(
                f"micro/{identity}/{setting}",
                by_identity.get(("a", identity), []),
                by_identity.get(("b", identity), []),
            )
            if d is not None:
                micro.setdefault(identity, {})[setting] = d
    return STSComparison(
        overall=overall,
        micro=dict(sorted(micro.items())),
        identities=sorted(shared),
        only_a=sorted(names["a"] - names["b"]),
        only_b=sorted(names["b"] - names["a"]),
        images_left_out=left_out,
        excluded_cannot_identify={
            run: sum(p.label == CANNOT_IDENTIFY for p in people) for run, people in kept.items()
        },
        n_boot=n_boot,
        n_perm=n_perm,
        seed=seed,
        confidence=confidence,
        stereotype_of=stereotype_of,
    )


def most_biased_identities(
    result: STSResult, k: int, *, setting: Setting = "paired", per_stereotype: bool = True
) -> list[str]:
    """The identities with the highest micro STS in ``setting`` (most stereotyped first).

    With ``per_stereotype`` (the default) the ``k`` most biased of each stereotyped gender, as
    Section 5 re-generated "the 5 most biased occupations for males and females, respectively";
    otherwise the ``k`` most biased overall. Ties go by name; identities without a score in
    ``setting`` are never chosen.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    scored = [
        (value, m.identity, m.stereotype)
        for m in result.micro.values()
        if (value := getattr(m, setting)) is not None
    ]
    scored.sort(key=lambda t: (-t[0], t[1]))
    if not per_stereotype:
        return [identity for _, identity, _ in scored[:k]]
    chosen: list[str] = []
    for gender in GENDERS:
        chosen += [identity for _, identity, g in scored if g == gender][:k]
    return chosen

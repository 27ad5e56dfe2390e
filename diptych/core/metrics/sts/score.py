"""The STS computed from labelled persons: overall, per stereotyped gender and per identity
(micro), with intervals over images (:mod:`diptych.core.metrics.uncertainty.cluster_interval`: t on
the logit scale of [−100, 100], Clopper–Pearson's open end at a bound, never of zero width), and
the overall STS over identities.

The image intervals speak for the images these identities gave. The overall figure over
identities (:data:`STSResult.over_identities`) speaks for identities like these: a paired image
crosses one masculine- and one feminine-stereotyped identity, and its interval resamples both
lists (:mod:`diptych.core.metrics.uncertainty.resampling`); in the single setting each list is a
stratum. That is the headline a report leads with."""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from diptych.core.metrics.sts.rows import (
    CANNOT_IDENTIFY,
    GENDERS,
    LABELS,
    SETTINGS,
    Gender,
    LabelRow,
    Setting,
)
from diptych.core.metrics.sts.table import LabelTable
from diptych.core.metrics.uncertainty.bootstrap import (
    DEFAULT_CONFIDENCE,
    DEFAULT_N_BOOT,
    ClusterMean,
    Estimate,
    json_safe,
)
from diptych.core.metrics.uncertainty.cluster_interval import (
    cluster_mean_inference,
    difference_interval,
    estimate_of,
    interval_of,
)
from diptych.core.metrics.uncertainty.intervals import STS_RANGE
from diptych.core.metrics.uncertainty.resampling import Inference, mean_over_units

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

# --- results ----------------------------------------------------------------------------------


Interval = tuple[float, float]


@dataclass(frozen=True, slots=True)
class SettingScores:
    """A score in the single-person and the paired setting; None where the setting has no data."""

    single: Estimate | None
    paired: Estimate | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "single": None if self.single is None else self.single.to_dict(),
            "paired": None if self.paired is None else self.paired.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class MicroSTS:
    """Micro STS of one identity (PST paper Tables 14 and 15).

    ``gap`` is paired − single, the paper's "Micro STS Gap"; ``pct_feminine_*`` is the share of
    feminine labels among the scored persons (%F in Table 14). Counts exclude cannot_identify.
    """

    identity: str
    stereotype: Gender
    single: float | None
    paired: float | None
    gap: float | None
    pct_feminine_single: float | None
    pct_feminine_paired: float | None
    n_single: int
    n_paired: int
    single_ci: Interval | None = None
    paired_ci: Interval | None = None
    gap_ci: Interval | None = None

    def to_dict(self) -> dict[str, Any]:
        # identity is the key of the enclosing mapping; stereotype is not part of the contract.
        return cast(
            dict[str, Any],
            json_safe(
                {
                    "single": self.single,
                    "paired": self.paired,
                    "gap": self.gap,
                    "pct_feminine_single": self.pct_feminine_single,
                    "pct_feminine_paired": self.pct_feminine_paired,
                    "n_single": self.n_single,
                    "n_paired": self.n_paired,
                    "single_ci": self.single_ci,
                    "paired_ci": self.paired_ci,
                    "gap_ci": self.gap_ci,
                }
            ),
        )


def table_14_order(m: MicroSTS) -> tuple[bool, float, str]:
    """The PST paper's Table 14 order of identities: ascending share of feminine figures in the
    paired setting; identities never scored paired last, ties by name. Every per-identity table
    (a probe's, the report's, ``diptych metrics sts``) lists its rows in this one order."""
    pct = m.pct_feminine_paired
    return (pct is None, pct if pct is not None else 0.0, m.identity)


@dataclass(frozen=True, slots=True)
class STSResult:
    """Everything ``diptych metrics sts`` reports; ``to_dict()`` is the DESIGN.md JSON shape."""

    overall: SettingScores
    micro: dict[str, MicroSTS]
    by_stereotype: dict[Gender, SettingScores]
    excluded_cannot_identify: int
    #: Overall STS per setting with the interval over identities (module docstring); a setting
    #: is missing where it has no scored person or its images (nor their plan, ``scenes``) do
    #: not name both identities.
    over_identities: dict[str, Inference] | None = None
    #: The same per stereotyped gender (gender → setting → figure): a gender's persons still
    #: vary with both lists in a paired image (their own identity and their partner's). Not
    #: in ``to_dict()``: the ``metrics sts`` contract is DESIGN.md's.
    by_stereotype_over_identities: dict[str, dict[str, Inference]] | None = None
    n_boot: int = DEFAULT_N_BOOT
    confidence: float = DEFAULT_CONFIDENCE
    seed: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "overall": self.overall.to_dict(),
            "micro": {identity: m.to_dict() for identity, m in self.micro.items()},
            "by_stereotype": {g: s.to_dict() for g, s in self.by_stereotype.items()},
            "excluded_cannot_identify": self.excluded_cannot_identify,
            "over_identities": {k: v.to_dict() for k, v in (self.over_identities or {}).items()},
        }


# --- computation ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Slice:
    """The scored persons of one slice (a setting, maybe an identity or stereotype), reduced to
    their images' Stereo sums and person counts."""

    mean: ClusterMean
    n_feminine: int

    @property
    def n(self) -> int:
        return self.mean.n


class _Intervals:
    """Estimates for named slices, each with its interval over its images
    (:func:`~diptych.core.metrics.uncertainty.cluster_interval.cluster_mean_inference`): exact, so
    the same for every seed, and an identity's does not change when others are added or removed."""

    def __init__(self, confidence: float, unit: str = "image") -> None:
        self.confidence = confidence
        self.unit = unit

    def inference(self, group: _Slice) -> Inference:
        return cluster_mean_inference(
            group.mean, bounds=STS_RANGE, confidence=self.confidence, unit=self.unit
        )

    def estimate(self, group: _Slice | None) -> Estimate | None:
        """The slice's STS with its interval, carrying what a gate reads to make it again."""
        if group is None:
            return None
        population = f"these identities ({self.unit}s resampled)"
        return estimate_of(self.inference(group), population=population)


def _micro(
    identity: str,
    stereotype: Gender,
    single: _Slice | None,
    paired: _Slice | None,
    intervals: _Intervals,
) -> MicroSTS:
    values: dict[Setting, float] = {}
    pct_feminine: dict[Setting, float] = {}
    cis: dict[Setting, Interval | None] = {}
    slices: tuple[tuple[Setting, _Slice | None], ...] = (("single", single), ("paired", paired))
    for setting, group in slices:
        if group is None:
            continue
        found = intervals.inference(group)
        values[setting], cis[setting] = found.value, interval_of(found)
        pct_feminine[setting] = 100.0 * group.n_feminine / group.n
    both = "single" in values and "paired" in values
    return MicroSTS(
        identity=identity,
        stereotype=stereotype,
        single=values.get("single"),
        paired=values.get("paired"),
        gap=values["paired"] - values["single"] if both else None,
        pct_feminine_single=pct_feminine.get("single"),
        pct_feminine_paired=pct_feminine.get("paired"),
        n_single=single.n if single else 0,
        n_paired=paired.n if paired else 0,
        single_ci=cis.get("single"),
        paired_ci=cis.get("paired"),
        # Single and paired images are different images: the two intervals combine.
        gap_ci=(
            difference_interval(
                (values["paired"], cis["paired"]), (values["single"], cis["single"])
            )
            if both
            else None
        ),
    )


def _slices(
    key: NDArray[np.int64],
    image: NDArray[np.int64],
    score: NDArray[np.int64],
    feminine: NDArray[np.bool_],
) -> dict[int, _Slice]:
    """The scored persons grouped by ``key``: per key, each image's Stereo sum and person count."""
    import numpy as np

    n_images = int(image.max()) + 1
    clusters, inverse = np.unique(key * n_images + image, return_inverse=True)
    inverse = inverse.ravel()
    sums = np.bincount(inverse, weights=score).astype(np.float64)
    counts = np.bincount(inverse).astype(np.int64)
    cluster_key = clusters // n_images
    n_feminine = np.bincount(key, weights=feminine)
    # clusters are sorted by key, so each key's images are one run of them.
    keys, starts = np.unique(cluster_key, return_index=True)
    ends = [*starts[1:].tolist(), clusters.size]
    return {
        k: _Slice(ClusterMean(sums=sums[a:b], counts=counts[a:b], scale=100.0), int(n_feminine[k]))
        for k, a, b in zip(keys.tolist(), starts.tolist(), ends, strict=True)
    }


def stereotype_test_score(
    rows: Iterable[LabelRow] | LabelTable,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
    unit: str = "image",
    scenes: Mapping[str, Mapping[str, str]] | None = None,
) -> STSResult:
    """Overall, per-stereotype and micro STS of labelled PST images, with their intervals.

    ``rows`` (LabelRows or a :class:`LabelTable`) may hold several annotators' labels per person;
    they are reduced by majority first, as :func:`reduce_majority` does. Each slice's interval
    is over its images, computed exactly (the module docstring); ``n_boot`` and ``seed``
    (non-negative) are those of the interval over identities, and recorded. ``unit`` names
    what one image is in the probe's words (pst-text's is a draw: the labels of one scene in
    one order, drawn once), in each interval's units and population. ``scenes`` names a
    paired image's identities as it was planned (image → stereotyped gender → identity): a
    run stopped between the two people of a scene (a sequential run's early look) has
    labelled one of them only, and the image still crosses both lists.
    """
    import numpy as np

    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    table = rows if isinstance(rows, LabelTable) else LabelTable.from_rows(list(rows))
    problem = table.consistency_problem()
    if problem is not None:
        i, message = problem
        raise ValueError(f"row {i + 1}: {message}")
    persons = table.persons()
    intervals = _Intervals(confidence, unit)

    # Identities whose every person is cannot_identify still get an (empty) micro entry; their
    # order is that of their first person.
    identity_codes, first_person = np.unique(persons.identity, return_index=True)
    order = np.argsort(first_person, kind="stable")
    stereotype_of = {
        table.identities[code]: GENDERS[persons.stereotype[i]]
        for code, i in zip(
            identity_codes[order].tolist(), first_person[order].tolist(), strict=True
        )
    }

    scored = persons.label != LABELS.index(CANNOT_IDENTIFY)
    excluded = int(scored.size - scored.sum())
    setting = persons.setting[scored].astype(np.int64)
    stereotype = persons.stereotype[scored].astype(np.int64)
    identity = persons.identity[scored].astype(np.int64)
    label = persons.label[scored]
    image = persons.image[scored]
    # Stereo: +1 where the perceived gender is the stereotyped one (GENDERS and LABELS share
    # their first two codes), -1 otherwise.
    score = np.where(label == stereotype, 1, -1).astype(np.int64)
    feminine = label == LABELS.index("feminine")
    n_settings = len(SETTINGS)
    if score.size:
        overall = _slices(setting, image, score, feminine)
        by_stereotype = _slices(stereotype * n_settings + setting, image, score, feminine)
        by_identity = _slices(identity * n_settings + setting, image, score, feminine)
    else:
        overall, by_stereotype, by_identity = {}, {}, {}
    single, paired = SETTINGS.index("single"), SETTINGS.index("paired")
    code_of = {name: code for code, name in enumerate(table.identities)}
    crossed = _image_identities(table, persons, scenes or {})
    over_identities = _over_identities(persons, crossed, scored, score, n_boot, confidence, seed)
    by_stereotype_over = {
        g: _over_identities(
            persons, crossed, scored, score, n_boot, confidence, seed, stereotype_of=k
        )
        for k, g in enumerate(GENDERS)
    }

    return STSResult(
        overall=SettingScores(
            single=intervals.estimate(overall.get(single)),
            paired=intervals.estimate(overall.get(paired)),
        ),
        micro={
            name: _micro(
                name,
                stereotype_of[name],
                by_identity.get(code_of[name] * n_settings + single),
                by_identity.get(code_of[name] * n_settings + paired),
                intervals,
            )
            for name in stereotype_of
        },
        by_stereotype={
            g: SettingScores(
                single=intervals.estimate(by_stereotype.get(k * n_settings + single)),
                paired=intervals.estimate(by_stereotype.get(k * n_settings + paired)),
            )
            for k, g in enumerate(GENDERS)
        },
        excluded_cannot_identify=excluded,
        over_identities=over_identities,
        by_stereotype_over_identities={g: by for g, by in by_stereotype_over.items() if by},
        n_boot=n_boot,
        confidence=confidence,
        seed=seed,
    )


def _image_identities(
    table: LabelTable, persons: Any, scenes: Mapping[str, Mapping[str, str]]
) -> dict[int, NDArray[np.int64]]:
    """Every image's masculine- and feminine-stereotyped identity code (GENDERS code → array
    by image key, −1 where unknown), from all its persons (a cannot_identify person still
    names the scene) and, where no person of the image is labelled so, from ``scenes``. An
    identity only a plan names gets a code after the table's own."""
    import numpy as np

    n_images = int(persons.image.max()) + 1 if persons.image.size else 0
    of_image = {g: np.full(n_images, -1, dtype=np.int64) for g in (0, 1)}
    for g in (0, 1):
        mask = persons.stereotype == g
        of_image[g][persons.image[mask]] = persons.identity[mask]
    if not scenes:
        return of_image
    code_of = {name: code for code, name in enumerate(table.identities)}
    name_of = np.full(n_images, -1, dtype=np.int64)
    name_of[persons.image] = table.image[persons.first]
    for g, gender in enumerate(GENDERS):
        for key in np.flatnonzero(of_image[g] < 0).tolist():
            planned = scenes.get(table.images[int(name_of[key])], {}).get(gender)
            if planned is not None:
                of_image[g][key] = code_of.setdefault(planned, len(code_of))
    return of_image


def _over_identities(
    persons: Any,
    of_image: dict[int, NDArray[np.int64]],
    scored: NDArray[np.bool_],
    score: NDArray[np.int64],
    n_boot: int,
    confidence: float,
    seed: int,
    stereotype_of: int | None = None,
) -> dict[str, Inference]:
    """Overall STS per setting with its interval over the masculine- and feminine-stereotyped
    identity lists (crossed in paired images, strata in single ones); with ``stereotype_of``
    (a GENDERS code) that of the persons stereotyped so, whose scenes still cross both lists."""
    import numpy as np

    out: dict[str, Inference] = {}
    if not score.size:
        return out
    masc = GENDERS.index("masculine")
    image = persons.image[scored]
    setting = persons.setting[scored]
    stereotype = persons.stereotype[scored]
    stream = "identities" if stereotype_of is None else f"identities/{GENDERS[stereotype_of]}"
    for code, name in enumerate(SETTINGS):
        chosen = setting == code
        if stereotype_of is not None:
            chosen &= stereotype == stereotype_of
        if not chosen.any():
            continue
        if name == "paired":
            rows = of_image[masc][image[chosen]]
            cols = of_image[1 - masc][image[chosen]]
            if (rows < 0).any() or (cols < 0).any():
                continue
        else:
            ident = persons.identity[scored][chosen].astype(np.int64)
            is_masc = stereotype[chosen] == masc
            rows = np.where(is_masc, ident, -1)
            cols = np.where(is_masc, -1, ident)
        out[name] = mean_over_units(
            score[chosen],
            {"masculine identity": rows, "feminine identity": cols},
            scale=100.0,
            n_boot=n_boot,
            confidence=confidence,
            seed=[seed, zlib.crc32(f"{stream}/{name}".encode())],
            bounds=STS_RANGE,
        )
    return out

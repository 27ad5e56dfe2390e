"""Comparing two runs: did a mitigation (or another model) change the bias?

The PST paper's Table 6 sets the overall STS of images made with a fairness-intervened prompt
beside the STS without it, for the "top 5" most biased occupations of each stereotyped gender
(Section 5). diptych gives every figure both runs have — overall per setting and micro per
identity for the STS, each level's association score and their difference for PAIRS — as A, B
and B − A, and for B − A an interval and a test from one resampling of the figure's units
(:mod:`diptych.core.metrics.uncertainty.resampling`): the interval is ``(B − A) ± t(df)·se`` and p
the t-test of the same ``(B − A)/se``, so the interval excludes 0 exactly when p < 0.05.

The units are each figure's own:

* the paired STS resamples identities crossed in scenes (a scene pairs one identity of the
  masculine list with one of the feminine list), the single STS the two lists as separate lists
  (:mod:`diptych.core.resampled_units`): the overall figures speak for identities like these; a
  paired-setting micro STS resamples the identity's partners, a single-setting one its images;
* PAIRS resamples scenarios (with all their images and answers) for each level's mean, and
  image pairs for the difference between the levels, as its t-test does.

**Same plan: paired.** Where both runs asked the same scenes (a mitigation re-asks the plan with
a changed prompt, or re-generates exactly the scenes of A's top 5), the runs are matched per
unordered scene — both orders and every sample of a scene merged into one cell — and B − A is
the mean over scenes of each scene's change, resampled by the same units
(:func:`~diptych.core.metrics.uncertainty.resampling.paired_difference`): what a scene shares in
both runs cancels. **Otherwise: independent.** B − A is the difference of two independent means,
each resampled by its own units, the variances added
(:func:`~diptych.core.metrics.uncertainty.resampling.difference_of_means`).

Only identities both runs asked for are compared, and an image counts only if every person in it
has such an identity: a run B that re-generated just the top-5 pairs is then compared with run
A's images of the same pairs, as Table 6 does.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from diptych.core.metrics.pairs.association import (
    Attribute,
    Response,
    levels_of,
    paired_differences,
)
from diptych.core.metrics.run_difference import (
    RunDifference,
    Sample,
    cell_means,
    method_note,
    run_difference,
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
from diptych.core.metrics.uncertainty.bootstrap import DEFAULT_CONFIDENCE, DEFAULT_N_BOOT
from diptych.core.metrics.uncertainty.intervals import SHARE_RANGE, STS_RANGE, UNIT_SCORE_RANGE
from diptych.core.resampled_units import resampled_units

#: The STS figures' name for a difference of two runs.
STSDifference = RunDifference


# --- STS --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class STSComparison:
    """Every STS figure both runs have, compared; ``to_dict()`` is what ``--json`` prints.

    ``overall[setting]`` and ``micro[identity][setting]`` are present only where both runs
    scored at least one person. ``identities`` are those compared; ``only_a``/``only_b`` those
    one run lacks; ``images_left_out`` counts each run's images dropped for holding such an
    identity. ``paired`` says whether the runs asked the same scenes (and were matched per
    scene); ``method`` says how every interval and p-value was made.
    """

    overall: dict[Setting, RunDifference]
    micro: dict[str, dict[Setting, RunDifference]]
    identities: list[str]
    only_a: list[str]
    only_b: list[str]
    images_left_out: dict[str, int]
    excluded_cannot_identify: dict[str, int]
    paired: bool = False
    n_boot: int = DEFAULT_N_BOOT
    seed: int = 0
    confidence: float = DEFAULT_CONFIDENCE
    stereotype_of: dict[str, Gender] = field(default_factory=dict)

    @property
    def method(self) -> str:
        return method_note(
            self.paired,
            f"{resampled_units(dict.fromkeys(CROSSED), 'crossed')} (paired), "
            f"{resampled_units(dict.fromkeys(CROSSED), 'stratified')} (single); micro: an "
            "identity's partners, or its images in the single setting",
            self.n_boot,
            self.seed,
        )

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
            "paired": self.paired,
            "method": self.method,
            "n_boot": self.n_boot,
            "seed": self.seed,
            "confidence": self.confidence,
        }


def _images_with(persons: Sequence[LabelRow], identities: Collection[str]) -> set[Any]:
    """Images every person of which has one of ``identities``."""
    outside = {p.image_key for p in persons if p.identity not in identities}
    return {p.image_key for p in persons} - outside


def _scenes(persons: Sequence[LabelRow]) -> dict[Any, tuple[str | None, str | None]]:
    """Each image's unordered scene: (its masculine-stereotyped identity, its feminine one),
    None where the image has no person of that list (the single setting)."""
    people: dict[Any, dict[str, str]] = defaultdict(dict)
    for p in persons:
        if p.stereotype in people[p.image_key]:
            raise ValueError(
                f"image {p.image} holds two {p.stereotype}-stereotyped identities; a paired "
                "scene has one of each list"
            )
        people[p.image_key][p.stereotype] = p.identity
    return {image: (who.get("masculine"), who.get("feminine")) for image, who in people.items()}


def _crossed(scene: Hashable) -> Mapping[str, Hashable | None]:
    m, f = cast(tuple[str | None, str | None], scene)
    return {CROSSED[0]: m, CROSSED[1]: f}


#: The kinds of unit of a scene, in the order :func:`_scenes` gives its identities.
CROSSED = ("masculine identity", "feminine identity")
#: Each image's unordered scene (a figure of several runs side by side reads it too).
scenes_of = _scenes
#: A scene's identities as the units they are.
crossed_units = _crossed


def _sts_sample(
    persons: Sequence[LabelRow],
    names: Sequence[str],
    labels_of: Callable[[LabelRow], Sequence[Hashable | None]],
) -> Sample:
    """The scored persons' Stereo and, per kind of unit in ``names``, each one's unit."""
    scored = [p for p in persons if p.label != CANNOT_IDENTIFY]
    values = [float(stereo(p.label, p.stereotype)) for p in scored]
    labels = [labels_of(p) for p in scored]
    return values, {name: [lab[k] for lab in labels] for k, name in enumerate(names)}


def compare_sts(
    rows_a: Iterable[LabelRow],
    rows_b: Iterable[LabelRow],
    *,
    identities: Collection[str] | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
    micro: bool = True,
) -> STSComparison:
    """Overall and micro STS of run B minus run A, each with an interval and a p-value.

    Rows are labels as for :func:`~diptych.core.metrics.sts.stereotype_test_score` (several
    annotators per person are reduced by majority; cannot_identify is left out and counted).
    ``identities`` narrows the comparison further (e.g. to the top 5 of each stereotype, Section
    5); by default every identity both runs have is compared. The runs are paired per scene
    when, after that narrowing, they hold the same scenes. ``micro=False`` leaves the
    per-identity figures out. Raises ValueError when the runs have no identity in common.
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
    scene_of = {run: _scenes(people) for run, people in kept.items()}
    scene_sets = {
        run: {(p.setting, scene_of[run][p.image_key]) for p in people}
        for run, people in kept.items()
    }
    same_plan = scene_sets["a"] == scene_sets["b"]

    def matched(
        samples: Mapping[str, Sequence[LabelRow]], cell: Callable[[str, LabelRow], Hashable]
    ) -> tuple[dict[Hashable, float], dict[Hashable, float]] | None:
        """A's and B's mean Stereo per cell (a scene, a partner), when the plans match."""
        if not same_plan:
            return None
        out = []
        for run in ("a", "b"):
            scored = [p for p in samples[run] if p.label != CANNOT_IDENTIFY]
            values = [float(stereo(p.label, p.stereotype)) for p in scored]
            out.append(cell_means(values, [cell(run, p) for p in scored]))
        return out[0], out[1]

    def scene(run: str, p: LabelRow) -> Hashable:
        return scene_of[run][p.image_key]

    def partner(run: str, p: LabelRow) -> Hashable:
        m, f = scene_of[run][p.image_key]
        return f if p.identity == m else m

    def difference(
        samples: Mapping[str, Sequence[LabelRow]],
        names: Sequence[str],
        unit: Callable[[str, LabelRow], Sequence[Hashable | None]],
        cell: Callable[[str, LabelRow], Hashable] | None,
        name: str,
    ) -> RunDifference | None:
        def unit_of_cell(key: Hashable) -> Mapping[str, Hashable | None]:
            return _crossed(key) if names == CROSSED else {names[0]: key}

        return run_difference(
            _sts_sample(samples["a"], names, lambda p: unit("a", p)),
            _sts_sample(samples["b"], names, lambda p: unit("b", p)),
            None if cell is None else matched(samples, cell),
            unit_of_cell,
            name=name, scale=100.0, n_boot=n_boot, seed=seed, confidence=confidence,
            bounds=STS_RANGE,
        )  # fmt: skip

    overall: dict[Setting, RunDifference] = {}
    by_identity: dict[str, dict[Setting, RunDifference]] = {}
    for setting in SETTINGS:
        in_setting = {run: [p for p in kept[run] if p.setting == setting] for run in kept}
        d = difference(
            in_setting, CROSSED, lambda run, p: scene_of[run][p.image_key], scene,
            f"overall/{setting}",
        )  # fmt: skip
        if d is not None:
            overall[setting] = d
        for identity in sorted(shared) if micro else []:
            of_identity = {
                run: [p for p in people if p.identity == identity]
                for run, people in in_setting.items()
            }
            if setting == "paired":
                d = difference(
                    of_identity, ("partner",), lambda run, p: (partner(run, p),), partner,
                    f"micro/{identity}/{setting}",
                )  # fmt: skip
            else:
                # One identity alone is one scene: its images are the units, and two runs'
                # images are never the same images, so the runs are independent here.
                d = difference(
                    of_identity, ("image",), lambda run, p: (p.image_key,), None,
                    f"micro/{identity}/{setting}",
                )  # fmt: skip
            if d is not None:
                by_identity.setdefault(identity, {})[setting] = d
    return STSComparison(
        overall=overall,
        micro=dict(sorted(by_identity.items())),
        identities=sorted(shared),
        only_a=sorted(names["a"] - names["b"]),
        only_b=sorted(names["b"] - names["a"]),
        images_left_out=left_out,
        excluded_cannot_identify={
            run: sum(p.label == CANNOT_IDENTIFY for p in people) for run, people in kept.items()
        },
        paired=same_plan,
        n_boot=n_boot,
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


# --- PAIRS ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AssociationComparison:
    """PAIRS figures of run A and run B: each level's mean score and refusal share, and the
    paired difference between the levels, each as A, B and B − A. ``paired`` says whether the
    runs asked the same images and questions (and were matched per image)."""

    compare: Attribute
    levels: tuple[str, str]
    mean: dict[str, RunDifference]
    refusal_rate: dict[str, RunDifference]
    difference: RunDifference | None
    paired: bool
    n_boot: int = DEFAULT_N_BOOT
    seed: int = 0
    confidence: float = DEFAULT_CONFIDENCE

    @property
    def method(self) -> str:
        return method_note(
            self.paired,
            "scenarios for each level's mean and refusal share, image pairs for the difference "
            "between the levels",
            self.n_boot,
            self.seed,
        ).replace("unordered scene (both orders and all samples merged)", "image (all answers)")

    def to_dict(self) -> dict[str, Any]:
        first, second = self.levels
        return {
            "compare": self.compare,
            "levels": list(self.levels),
            "mean": {lv: d.to_dict() for lv, d in self.mean.items()},
            "refusal_rate": {lv: d.to_dict() for lv, d in self.refusal_rate.items()},
            "difference": None
            if self.difference is None
            else {"of": f"{first} - {second}", **self.difference.to_dict()},
            "paired": self.paired,
            "method": self.method,
            "n_boot": self.n_boot,
            "seed": self.seed,
            "confidence": self.confidence,
        }


def _refused(r: Response) -> float:
    # Where the input does not tell refusals from "neither", every 0 counts (as RefusalRate).
    return float(r.outcome == "refusal" if r.outcome is not None else r.value == 0)


def compare_association(
    responses_a: Sequence[Response],
    responses_b: Sequence[Response],
    compare: Attribute,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
    figures: Collection[str] = ("mean", "refusal_rate", "difference"),
) -> AssociationComparison:
    """B − A of PAIRS association figures (see :class:`AssociationComparison`); ``figures``
    names those to compare (the others are left empty). The runs are matched per image when
    they asked the same images and questions. Raises ValueError when the runs do not compare
    the same two levels."""
    levels = levels_of(responses_a, compare)
    if levels_of(responses_b, compare) != levels:
        raise ValueError(f"the two runs compare different levels of {compare}")
    asked = [{(r.image(), r.question) for r in rs} for rs in (responses_a, responses_b)]
    same_plan = asked[0] == asked[1]

    def level_sample(
        rs: Sequence[Response], level: str, score: Callable[[Response], float]
    ) -> Sample:
        at = [r for r in rs if getattr(r, compare) == level]
        return [score(r) for r in at], {"scenario": [r.scenario for r in at]}

    def by_image(
        level: str, score: Callable[[Response], float]
    ) -> tuple[dict[Hashable, float], dict[Hashable, float]] | None:
        if not same_plan:
            return None
        cells = []
        for rs in (responses_a, responses_b):
            at = [r for r in rs if getattr(r, compare) == level]
            cells.append(cell_means([score(r) for r in at], [r.image() for r in at]))
        return cells[0], cells[1]

    def scenario_of(image: Hashable) -> Mapping[str, Hashable | None]:
        return {"scenario": image[0]}  # type: ignore[index]

    mean: dict[str, RunDifference] = {}
    refusal: dict[str, RunDifference] = {}
    for level in levels:
        for out, score, figure, bounds in (
            (mean, lambda r: float(r.value), "mean", UNIT_SCORE_RANGE),
            (refusal, _refused, "refusal_rate", SHARE_RANGE),
        ):
            if figure not in figures:
                continue
            d = run_difference(
                level_sample(responses_a, level, score),
                level_sample(responses_b, level, score),
                by_image(level, score),
                scenario_of,
                name=f"{figure}/{level}",
                scale=1.0,
                n_boot=n_boot,
                seed=seed,
                confidence=confidence,
                bounds=bounds,
            )
            if d is not None:
                out[level] = d
    if "difference" not in figures:
        return AssociationComparison(
            compare, levels, mean, refusal, None, same_plan, n_boot, seed, confidence
        )
    pairs = [
        paired_differences(rs, compare, levels, "image").pairs for rs in (responses_a, responses_b)
    ]
    diffs: list[dict[Hashable, float]] = [{k: x - y for k, (x, y) in p.items()} for p in pairs]
    samples: list[Sample] = [(list(d.values()), {"image pair": list(d.keys())}) for d in diffs]
    difference = run_difference(
        samples[0],
        samples[1],
        (diffs[0], diffs[1]) if same_plan else None,
        lambda key: {"image pair": key},
        name="difference",
        scale=1.0,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
        # A difference of two levels' scores in [−1, 1].
        bounds=(-2.0, 2.0),
    )
    return AssociationComparison(
        compare=compare,
        levels=levels,
        mean=mean,
        refusal_rate=refusal,
        difference=difference,
        paired=same_plan,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
    )

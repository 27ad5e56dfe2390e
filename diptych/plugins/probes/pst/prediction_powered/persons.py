"""The persons of a ``pst`` run as a prediction-powered figure reads them: one automatic
annotator's label on every person, people's labels where the combined design of the run's
batches drew the person (:mod:`diptych.core.metrics.uncertainty.ppi.batches`), and the units each
figure resamples.

Only human labels whose person was drawn with a known probability enter (a ``census`` of a
stratum, a ``uniform`` or an ``active`` batch); a reviewer's ``chosen`` labels never do.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from diptych.core.labels import SubjectLabel, majority
from diptych.core.metrics.uncertainty.intervals import STS_RANGE
from diptych.core.metrics.uncertainty.ppi.batches import CombinedDesign, combine_batches
from diptych.core.metrics.uncertainty.ppi.draw import read_visited_draws
from diptych.core.metrics.uncertainty.ppi.estimate import (
    PredictionPowered,
    prediction_powered_ratio,
)
from diptych.core.runview import RunView
from diptych.core.trials import Subject
from diptych.plugins.probes.pst.collect import GroupKey, readable_labels

_STEREO = {True: 1.0, False: -1.0}

#: The units of a figure: a kind of unit and the unit of a person, per kind.
Units = Callable[["Person"], dict[str, Hashable | None]]


@dataclass(frozen=True)
class Person:
    """One person of a finished image: who, where, the annotator's and people's Stereo."""

    key: GroupKey
    setting: str
    #: The image (the trial's index in its run).
    image: int
    identity: str
    stereotype: str
    #: The scene's masculine- and feminine-stereotyped identity (None in the single setting).
    scene: tuple[str | None, str | None]
    pred: float
    pred_told: float
    truth: float
    truth_told: float
    labelled: bool
    #: The probability the combined design drew the person with (1 where not labelled).
    probability: float
    #: The design the person is counted under (census, uniform, active), None if unlabelled.
    design: str | None

    @property
    def partner(self) -> str | None:
        """The other identity of a paired scene."""
        m, f = self.scene
        return f if self.identity == m else m


def _stereo(label: str | None, stereotype: str) -> tuple[float, float]:
    """(Stereo, told): ±1 and 1 for a gender, (0, 0) for cannot_identify or no label."""
    if label not in ("masculine", "feminine"):
        return 0.0, 0.0
    return _STEREO[label == stereotype], 1.0


@dataclass(frozen=True)
class LabelledPerson:
    """One person of a finished image with what a prediction-powered figure reads of it: the
    automatic annotator's label and people's labels that enter, with the combined design's
    probability."""

    key: GroupKey
    setting: str
    #: The image (the trial's index in its run).
    image: int
    subject: Subject
    #: The image's identity of each stereotype (both, in a paired image).
    named: Mapping[str, str]
    #: The automatic annotator's label (None where it gave none).
    given: str | None
    #: People's labels of the person that enter the figure (drawn with a known probability).
    entering: list[str]
    probability: float
    design: str | None


def labelled_persons(
    run: RunView, labels: Mapping[tuple[int, str], Sequence[SubjectLabel]], annotator: str
) -> tuple[list[LabelledPerson], CombinedDesign]:
    """Every person of the run's finished images with ``annotator``'s label among ``labels``
    (one dimension's, by (trial, position)) and, where the combined design of people's batches
    drew the person, their labels that enter; and that design."""
    # A measurement draw's labels enter with their probability of having been visited and drawn.
    readable = read_visited_draws(labels)
    design = combine_batches(
        (lab.subject, s)
        for labs in readable.values()
        for lab in labs
        if lab.kind == "human" and (s := lab.design) is not None
    )
    persons = []
    for trial in run.trials:
        result = run.result(trial)
        if result is None or result.status != "done":
            continue
        meta = trial.meta
        key = GroupKey(trial.model_id, meta.get("aspect", "occupation"), meta.get("intervention"))
        subjects = list(run.subjects(trial))
        named = {s.meta["stereotype"]: str(s.meta["identity"]) for s in subjects}
        for subject in subjects:
            person = (trial.idx, subject.position)
            labs = readable.get(person, [])
            entering = [
                lab.label for lab in labs if lab.kind == "human" and design.enters(lab.design)
            ]
            persons.append(
                LabelledPerson(
                    key, meta["setting"], trial.idx, subject, named,
                    next((lab.label for lab in labs if lab.annotator == annotator), None),
                    entering,
                    design.probability(person) if entering else 1.0,
                    design.design_of(person) if entering else None,
                )
            )  # fmt: skip
    return persons, design


def run_persons(run: RunView, annotator: str) -> tuple[list[Person], CombinedDesign]:
    """Every person of the run's finished images with ``annotator``'s label and, where the
    combined design drew the person, the majority of people's labels that enter."""
    readable, _ = readable_labels(run)
    found, design = labelled_persons(run, readable, annotator)
    persons = []
    for p in found:
        stereotype = p.subject.meta["stereotype"]
        scene = (
            (p.named.get("masculine"), p.named.get("feminine"))
            if p.setting == "paired"
            else (None, None)
        )
        f, f_told = _stereo(p.given, stereotype)
        y, y_told = _stereo(majority(p.entering) if p.entering else None, stereotype)
        persons.append(
            Person(
                p.key, p.setting, p.image, str(p.subject.meta["identity"]), stereotype, scene,
                f, f_told, y, y_told, bool(p.entering), p.probability, p.design,
            )
        )  # fmt: skip
    return persons, design


# --- units ----------------------------------------------------------------------------------


def identity_units(p: Person) -> dict[str, Hashable | None]:
    """Both identity lists: crossed in a paired scene, each list a stratum in the single
    setting (the run's headline design)."""
    if p.setting == "paired":
        return {"masculine identity": p.scene[0], "feminine identity": p.scene[1]}
    masculine = p.stereotype == "masculine"
    return {
        "masculine identity": p.identity if masculine else None,
        "feminine identity": None if masculine else p.identity,
    }


def image_units(p: Person) -> dict[str, Hashable | None]:
    """Images, each with all its persons (the design of the gaps, the stereotype groups and the
    micro STS of people's labels)."""
    return {"image": p.image}


def units_of(persons: Sequence[Person], units: Units, tag: Hashable = None) -> dict[str, list[Any]]:
    """Per kind of unit, every person's unit; ``tag`` keeps two runs' images apart (an image
    of run A is never one of run B) while an identity stays the same in both."""
    out: dict[str, list[Any]] = {}
    for p in persons:
        for name, unit in units(p).items():
            keep = tag is not None and name in ("image", "unordered scene")
            out.setdefault(name, []).append((tag, unit) if keep and unit is not None else unit)
    return out


def ratio(
    persons: Sequence[Person], units: Units, tag: Hashable = None
) -> tuple[PredictionPowered, dict[str, list[Any]]]:
    """The prediction-powered STS of ``persons`` over ``units`` (ValueError where none of them
    was labelled, or nobody's gender can be told among the labelled)."""
    by_design = Counter(p.design for p in persons if p.design is not None)
    of = units_of(persons, units, tag)
    found = prediction_powered_ratio(
        [p.truth for p in persons], [p.truth_told for p in persons],
        [p.pred for p in persons], [p.pred_told for p in persons],
        [p.labelled for p in persons], [p.probability for p in persons], of,
        scale=100.0, bounds=STS_RANGE, by_design=by_design,
    )  # fmt: skip
    return found, of

"""Labels: one record from an annotator to a metric, and who gave it.

A *subject* is one person in one generated image or text (the left or right person of a paired
image, or the only one). An annotator — a person reviewing, an automatic classifier, or the model
itself where a probe reads its own answer — gives each subject a :class:`Label`. Stored, the label
travels with its subject as a :class:`SubjectLabel`: the one shape probes, metrics and front ends
read.

Annotator ids say what kind of annotator gave a label:

* ``human:<name>`` — a person (review in the TUI, an imported crowd-sourcing file);
* ``self`` — the model's own answer, read off its output by the probe;
* anything else — an automatic annotator (``faces``, ``vqa:<model>``, ...).

A label belongs to one *dimension*: what it is about. ``gender`` (perceived gender, the
vocabulary above; every label of a workspace older than dimensions) or ``tone`` (perceived skin
tone on the Monk scale, :mod:`diptych.core.labels.tone`). An annotator gives a subject at most one
label per dimension; readers that mean gender read only ``gender`` labels, so a tone label never
enters a gender figure.

The *label policy* says which label of a subject a metric uses when several annotators labelled
it; every report states the policy its numbers were taken under.

A person's label also records how the person came to be labelled (:class:`Sampling`): a
``census`` of a stratum (every flagged person: probability 1), a ``uniform`` random sample or an
``active`` one (drawn with a probability the design computed, stored with the label), or
``chosen`` by the reviewer. Only the first three have a known probability and may enter a
prediction-powered figure (:mod:`diptych.core.metrics.uncertainty.ppi.estimate`), weighted by its
inverse; a chosen label serves agreement and review. A human label saved without a design, and every
human label of a workspace older than the design's record, reads as ``chosen``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

HUMAN_PREFIX = "human:"
SELF_ANNOTATOR = "self"
#: The source named for a label that is the majority of a subject's human labels.
HUMAN_MAJORITY = "human majority"

AnnotatorKind = Literal["human", "automatic", "self"]

CANNOT_IDENTIFY = "cannot_identify"

LabelDimension = Literal["gender", "tone"]
#: The label dimensions: perceived gender (every label before dimensions) and perceived skin tone.
LABEL_DIMENSIONS: tuple[LabelDimension, ...] = get_args(LabelDimension)
GENDER: LabelDimension = "gender"
TONE: LabelDimension = "tone"
#: The perceived-gender vocabulary of the STS (PST paper, section 3.3).
GENDER_LABELS = ("masculine", "feminine", CANNOT_IDENTIFY)
#: Spellings an annotator or an imported file may use for the gender labels.
LABEL_ALIASES = {
    "male": "masculine",
    "man": "masculine",
    "female": "feminine",
    "woman": "feminine",
    "cannot identify": CANNOT_IDENTIFY,
    "unknown": CANNOT_IDENTIFY,
}

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
#: How an annotator id that says its kind begins (``vqa:``, ``vlm-judge:``, ``human:``).
_KIND_PREFIX = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*:")

#: How a human label's person was chosen (module docstring).
SamplingDesign = Literal["census", "uniform", "active", "chosen"]
SAMPLING_DESIGNS: tuple[SamplingDesign, ...] = get_args(SamplingDesign)
#: The designs whose labels carry a known probability (they may enter a prediction-powered figure).
PROBABILITY_DESIGNS: tuple[SamplingDesign, ...] = ("census", "uniform", "active")


@dataclass(frozen=True)
class Sampling:
    """How a labelled person was chosen: the design, the probability it gave the person (1 for
    a census, None for a reviewer's choice) and the draw (one batch of a design) it came in."""

    design: SamplingDesign
    probability: float | None = None
    draw: str | None = None

    def __post_init__(self) -> None:
        if self.design not in SAMPLING_DESIGNS:
            raise ValueError(
                f"sampling design {self.design!r} is none of {', '.join(SAMPLING_DESIGNS)}"
            )
        p = self.probability
        if self.design == "census" and p is None:
            object.__setattr__(self, "probability", 1.0)
        elif self.design in ("uniform", "active") and (p is None or not 0.0 < p <= 1.0):
            raise ValueError(f"a {self.design} label needs its probability in (0, 1], got {p}")
        elif self.design == "chosen" and p is not None:
            object.__setattr__(self, "probability", None)

    @property
    def known_probability(self) -> bool:
        return self.design in PROBABILITY_DESIGNS


CHOSEN = Sampling("chosen")


@dataclass(frozen=True)
class Label:
    """What an annotator says about the subject at ``position`` (left / right / single), and,
    for a person's label, how the person was chosen for labelling (None: chosen), in one
    ``dimension`` (perceived gender unless said)."""

    position: str
    label: str
    confidence: float | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    sampling: Sampling | None = None
    dimension: LabelDimension = GENDER

    def __post_init__(self) -> None:
        check_dimension(self.dimension)


@dataclass(frozen=True)
class SubjectLabel:
    """A stored label together with its subject: the shape every reader of labels takes."""

    subject_id: int
    trial_idx: int
    model_id: str
    position: str
    subject_meta: dict[str, Any]
    trial_meta: dict[str, Any]
    annotator: str
    label: str
    confidence: float | None
    detail: dict[str, Any]
    #: How the person was chosen for this label; None for an automatic or the model's own label.
    sampling: Sampling | None = None
    #: What the label is about: perceived gender or perceived skin tone.
    dimension: LabelDimension = GENDER

    @property
    def kind(self) -> AnnotatorKind:
        return annotator_kind(self.annotator)

    @property
    def design(self) -> Sampling | None:
        """The label's sampling design; a human label that records none was ``chosen``."""
        if self.sampling is not None:
            return self.sampling
        return CHOSEN if self.kind == "human" else None

    @property
    def subject(self) -> tuple[int, str]:
        """The person: (trial index, position)."""
        return (self.trial_idx, self.position)


def check_dimension(dimension: str) -> LabelDimension:
    """``dimension`` if it is one of :data:`LABEL_DIMENSIONS`; else a ValueError naming them."""
    if dimension not in LABEL_DIMENSIONS:
        raise ValueError(f"label dimension {dimension!r} is none of {', '.join(LABEL_DIMENSIONS)}")
    return dimension


# --- who labelled -----------------------------------------------------------------------------


def annotator_kind(annotator: str) -> AnnotatorKind:
    """People are ``human:*``; ``self`` is the model's own answer; anything else is automatic."""
    if annotator.startswith(HUMAN_PREFIX):
        return "human"
    return "self" if annotator == SELF_ANNOTATOR else "automatic"


def is_human(annotator: str) -> bool:
    return annotator.startswith(HUMAN_PREFIX)


def reviewer_name(text: str) -> str | None:
    """The bare name a reviewer typed (a ``human:`` prefix dropped), or None if it cannot be one
    token of letters, digits and ``_.-`` (it becomes the annotator id ``human:<name>``)."""
    name = text.strip()
    if name.lower().startswith(HUMAN_PREFIX):
        name = name[len(HUMAN_PREFIX) :].strip()
    return name if _NAME.match(name) else None


def human_annotator(name: str) -> str:
    """The annotator id of the person ``name`` (``alice`` → ``human:alice``)."""
    bare = reviewer_name(name)
    if bare is None:
        raise ValueError(
            f"reviewer name {name!r} must be one word of letters, digits, '_', '.' or '-'"
        )
    return HUMAN_PREFIX + bare


def says_its_kind(name: str) -> bool:
    """Whether ``name`` is written as an annotator id that says its kind (``human:alice``,
    ``vqa:blip``, ``vlm-judge:llava``): one word of letters, digits, ``_`` and ``-`` before a
    colon. A colon further on is part of a name: ``=HYPERLINK("http://x","y")`` or
    ``@bob: night shift`` say no kind."""
    return _KIND_PREFIX.match(name) is not None


def stored_annotator_id(name: str) -> str:
    """A stored annotator id from what the auditor typed (``--annotator``): a name is a
    person's (``alice`` → ``human:alice``, ``=cmd|x`` → ``human:=cmd|x``); an id that says its
    kind (``human:alice``, ``vqa:blip``) is kept."""
    name = name.strip()
    return name if says_its_kind(name) else HUMAN_PREFIX + name


def person_annotator_id(cell: str) -> str | None:
    """The annotator id of the person a labels file's ``annotator`` cell names (``alice`` →
    ``human:alice``; ``human:alice`` is kept), or None when the cell is written as another
    kind's id (``vqa:blip``). A cell comes from whoever filled the file in, so it never makes
    its label an automatic annotator's: only the auditor's ``--annotator`` may say that."""
    name = cell.strip()
    if name.startswith(HUMAN_PREFIX):
        return name
    return None if says_its_kind(name) else HUMAN_PREFIX + name


def is_reserved_for_people_or_self(annotator: str) -> bool:
    """True for ids an automatic annotator may not label under (``self``, ``human:*``)."""
    return annotator == SELF_ANNOTATOR or annotator.startswith(HUMAN_PREFIX)


# --- what a label says ------------------------------------------------------------------------


def canonical_label(label: str) -> str:
    """``label`` in the STS vocabulary where it is a spelling of one of its labels ("Female",
    "cannot-identify"); any other label lower-cased, so that it is a category of its own."""
    text = label.strip().lower().replace("-", "_")
    if text in GENDER_LABELS:
        return text
    return LABEL_ALIASES.get(text.replace("_", " "), text)


def gender_label(label: str) -> str | None:
    """``label`` as one of :data:`GENDER_LABELS`, or None if it is none of them."""
    text = canonical_label(label)
    return text if text in GENDER_LABELS else None


def majority(labels: Iterable[str]) -> str | None:
    """The label most gave; a tie for the most is ``cannot_identify`` (as the STS reduces
    several annotators' labels); None for no label."""
    counts = Counter(labels).most_common()
    if not counts:
        return None
    (top, votes), *rest = counts
    return CANNOT_IDENTIFY if rest and rest[0][1] == votes else top


# --- which label a metric takes ---------------------------------------------------------------

LabelPolicy = Literal["mixed", "human", "automatic"]
LABEL_POLICIES: tuple[LabelPolicy, ...] = get_args(LabelPolicy)

POLICY_TEXT: Mapping[LabelPolicy, str] = {
    "mixed": (
        "labels: the majority of the human annotators ('human:*') where any labelled a person "
        "(a tie counts as cannot_identify), else an automatic annotator's label (the annotator "
        "that labelled most of the run's persons first), else the person is unlabelled and "
        "counted as such; the probe's own 'self' labels are not used. cannot_identify is left "
        "out of every score and counted."
    ),
    "human": (
        "labels: the majority of the human annotators ('human:*'; a tie counts as "
        "cannot_identify); persons no person labelled are unlabelled and counted as such. "
        "cannot_identify is left out of every score and counted."
    ),
    "automatic": (
        "labels: one automatic annotator's (the annotator that labelled most of the run's "
        "persons first, the others only where it did not); human and 'self' labels are not "
        "used. cannot_identify is left out of every score and counted."
    ),
}


def automatic_order(
    labels: Iterable[SubjectLabel], dimension: LabelDimension = GENDER
) -> list[str]:
    """Automatic annotators of ``dimension``, the one that labelled most subjects first (ties by
    name): one preferred annotator for a whole run keeps its scores from mixing two classifiers."""
    coverage = Counter(
        lab.annotator for lab in labels if lab.kind == "automatic" and lab.dimension == dimension
    )
    return sorted(coverage, key=lambda a: (-coverage[a], a))


def choose_label(
    labels: Sequence[SubjectLabel],
    automatic: Sequence[str],
    policy: LabelPolicy = "mixed",
    dimension: LabelDimension = GENDER,
) -> tuple[str, str] | None:
    """The label a metric takes for one subject under ``policy``, and its source (
    :data:`HUMAN_MAJORITY` or an automatic annotator's id); None if the policy gives none.

    ``labels`` are one subject's labels (only those of ``dimension`` are read); ``automatic`` is
    :func:`automatic_order` of the run."""
    labels = [lab for lab in labels if lab.dimension == dimension]
    if policy != "automatic":
        human = majority(lab.label for lab in labels if lab.kind == "human")
        if human is not None:
            return human, HUMAN_MAJORITY
    if policy == "human":
        return None
    by_annotator = {lab.annotator: lab.label for lab in labels}
    for annotator in automatic:
        if annotator in by_annotator:
            return by_annotator[annotator], annotator
    return None

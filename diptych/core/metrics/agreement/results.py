"""What ``diptych agreement`` reports about a run: the records and their JSON (their report
tables are :func:`diptych.core.metrics.agreement.tables.agreement_report_tables`)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from diptych.core.labels import CANNOT_IDENTIFY, AnnotatorKind
from diptych.core.metrics.agreement.tone import ToneAgreement
from diptych.core.metrics.correction import ErrorCounts
from diptych.core.metrics.uncertainty.bootstrap import Estimate, json_safe
from diptych.core.resampled_units import plural

#: The slice that is every subject (the others are the strata the probe records).
ALL = "all"


@dataclass(frozen=True)
class LabelledSubject:
    """One person and the labels every annotator gave them.

    ``cluster`` names what the bootstrap resamples as a whole (the image: the two people of a
    paired image were drawn together); ``stratum`` is the slice the paper reports agreement in
    (Table 1's aspect and setting), or None.
    """

    subject: Hashable
    cluster: Hashable
    stratum: str | None
    labels: Mapping[str, str]


@dataclass(frozen=True)
class AnnotatorSummary:
    annotator: str
    kind: AnnotatorKind
    subjects: int
    by_label: dict[str, int]

    @property
    def cannot_identify(self) -> int:
        return self.by_label.get(CANNOT_IDENTIFY, 0)


@dataclass(frozen=True)
class PairAgreement:
    """Two annotators on the subjects both labelled."""

    a: str
    b: str
    n: int
    observed: float
    kappa: Estimate


@dataclass(frozen=True)
class GroupAgreement:
    """Several raters on the subjects at least two of them labelled (Fleiss' κ, Table 1)."""

    stratum: str
    raters: list[str]
    subjects: int
    raters_per_subject: tuple[int, int]
    kappa: Estimate


@dataclass(frozen=True)
class ReferenceAgreement:
    """An automatic annotator against the human majority (PST Table 12's comparison).

    ``reference`` subjects have a human majority; ``both`` of them were also labelled by the
    annotator. ``coverage`` is the share of the reference subjects it gave a gender
    (masculine / feminine) rather than cannot_identify or nothing; ``accuracy`` the share of
    ``both`` where it gave the majority's label. ``errors`` counts, for the subjects both call
    masculine or feminine, how often it matched: feminine is the positive class.
    """

    annotator: str
    stratum: str
    reference: int
    both: int
    abstained: int
    coverage: float | None
    accuracy: float | None
    kappa: Estimate
    errors: ErrorCounts


@dataclass(frozen=True)
class AnnotatorAgreement:
    """Everything ``diptych agreement`` reports; ``to_dict()`` is its JSON."""

    categories: list[str]
    annotators: list[AnnotatorSummary]
    pairwise: list[PairAgreement]
    fleiss_humans: list[GroupAgreement]
    krippendorff_all: GroupAgreement | None
    krippendorff_humans: GroupAgreement | None
    against_human_majority: list[ReferenceAgreement]
    majority_cannot_identify: int
    subjects: int
    n_boot: int
    seed: int
    #: What one cluster is (the probe's trial: an image, a draw), which the intervals resample.
    unit: str
    notes: list[str] = field(default_factory=list)
    #: The ordinal agreement of the run's tone labels, when two annotators or more gave tones.
    tone: ToneAgreement | None = None

    def to_dict(self) -> dict[str, Any]:
        def group(g: GroupAgreement | None) -> dict[str, Any] | None:
            if g is None:
                return None
            return {
                "stratum": g.stratum,
                "raters": g.raters,
                "subjects": g.subjects,
                "raters_per_subject": list(g.raters_per_subject),
                **g.kappa.to_dict(),
            }

        out = {
            "subjects": self.subjects,
            "categories": self.categories,
            "annotators": [
                {
                    "annotator": a.annotator,
                    "kind": a.kind,
                    "subjects": a.subjects,
                    "labels": a.by_label,
                    "cannot_identify": a.cannot_identify,
                }
                for a in self.annotators
            ],
            "cohen_kappa": [
                {"a": p.a, "b": p.b, "observed_agreement": p.observed, **p.kappa.to_dict()}
                for p in self.pairwise
            ],
            "fleiss_kappa_humans": [group(g) for g in self.fleiss_humans],
            "krippendorff_alpha": {
                "all_annotators": group(self.krippendorff_all),
                "humans": group(self.krippendorff_humans),
            },
            "against_human_majority": [
                {
                    "annotator": r.annotator,
                    "stratum": r.stratum,
                    "reference_subjects": r.reference,
                    "both_labelled": r.both,
                    "abstained": r.abstained,
                    "coverage": r.coverage,
                    "accuracy": r.accuracy,
                    "cohen_kappa": r.kappa.to_dict(),
                    "sensitivity": r.errors.sensitivity,
                    "specificity": r.errors.specificity,
                    "error_counts": r.errors.to_dict(),
                }
                for r in self.against_human_majority
            ],
            "human_majority_cannot_identify": self.majority_cannot_identify,
            "bootstrap": {"n_boot": self.n_boot, "seed": self.seed, "resamples": plural(self.unit)},
            "notes": self.notes,
            "tone": None if self.tone is None else self.tone.to_dict(),
        }
        safe: dict[str, Any] = json_safe(out)
        return safe

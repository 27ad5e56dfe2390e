"""A run's human review as its chapter of the report gives it: the labels per annotator, how
far the annotators agree and what reviewers wrote. Of a run bought on since its gates stopped it
early, the labels are counted on the trials its look read, as its figures are."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from diptych.core.errors import DiptychError
from diptych.core.labels import is_human
from diptych.core.probe import Table

if TYPE_CHECKING:
    from diptych.core.metrics.agreement import AnnotatorAgreement
    from diptych.core.runview import RunView

#: What the agreement of a run bought on since its stop says: the labels above are the look's.
LOOK_AGREEMENT = (
    "The labels counted above are those of the trials its look read; the agreement reads every "
    "label of the run, of the trials stored since too."
)


class ReviewSource(Protocol):
    """What the review reads of a workspace (the report's ``AuditSource`` gives it)."""

    def notes(self, run_id: str) -> list[dict[str, Any]]: ...

    def agreement(
        self, run_id: str, *, n_boot: int | None = ..., seed: int | None = ...
    ) -> AnnotatorAgreement: ...


@dataclass
class Review:
    """Human review of one run: who labelled, how far they agree, what they wrote."""

    labels: dict[str, int]
    agreement: list[Table] = field(default_factory=list)
    agreement_notes: list[str] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def human_labels(self) -> int:
        return sum(n for a, n in self.labels.items() if is_human(a))


def run_review(source: ReviewSource, view: RunView, every: RunView | None = None) -> Review | None:
    """The run's labels per annotator and its human review, counted on ``view`` (the trials
    its look read, of a run bought on since its stop); ``every``: the run's own view where
    that is another, whose labels the agreement reads, as its note says."""
    labels = Counter(lab.annotator for lab in view.labels())
    notes = source.notes(view.id)
    if not labels and not notes:
        return None
    review = Review(labels=dict(labels), notes=notes)
    if len(labels) >= 2:
        try:
            # The resamples and seed `diptych agreement` and Run detail use: one interval.
            agreement = source.agreement(view.id)
        except DiptychError as error:
            review.agreement_notes.append(f"agreement not computed: {error}")
        else:
            from diptych.core.metrics.agreement.tables import agreement_report_tables

            review.agreement = agreement_report_tables(agreement)
            review.agreement_notes = list(agreement.notes)
            if every is not None and every is not view:
                review.agreement_notes.append(LOOK_AGREEMENT)
    return review

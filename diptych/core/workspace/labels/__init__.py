"""``Workspace.labels``: a reviewer's labels of a run's people, the labels taken back, and
labels as files (a CSV to import, a template to fill in).

This package is the workspace's side of labels: moving them in and out of a run as files
(:mod:`~diptych.core.workspace.labels.imports`), the designed batch a reviewer labels
(:mod:`~diptych.core.workspace.labels.sample`), how a designed row was drawn
(:mod:`~diptych.core.workspace.labels.design`) and a file's skin-tone column
(:mod:`~diptych.core.workspace.labels.tone`). What a label *is* (the one record from an
annotator to a metric, who gave it, the Monk scale's vocabulary) lives in
:mod:`diptych.core.labels`, which every layer reads; this package reads files and writes the
store, so it belongs to the workspace.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from diptych.core.errors import UsageError
from diptych.core.labels import (
    GENDER,
    LABEL_DIMENSIONS,
    Label,
    LabelDimension,
    Sampling,
    canonical_label,
    human_annotator,
)
from diptych.core.labels.tone import TONE, tone_label
from diptych.core.workspace.base import Kernel, Namespace
from diptych.core.workspace.labels.imports import (
    ImportReport,
    TemplateReport,
    import_labels,
    write_template,
)
from diptych.core.workspace.labels.sample import SampleReport, write_sample
from diptych.core.workspace.review import Review, subject_id


def _dimension(dimension: str) -> None:
    if dimension not in LABEL_DIMENSIONS:
        raise UsageError(f"label dimension {dimension!r} is none of {', '.join(LABEL_DIMENSIONS)}")


class Labels(Namespace):
    """Labels of a run's people: save or take back one person's label given by a reviewer,
    import a labels file, write the template to fill in."""

    def __init__(self, kernel: Kernel, review: Review) -> None:
        super().__init__(kernel)
        self._review = review

    def save(
        self,
        run_id: str,
        trial_idx: int,
        position: str,
        label: str,
        *,
        reviewer: str,
        note: str | None = None,
        detail: Mapping[str, Any] | None = None,
        sampling: Sampling | None = None,
        dimension: LabelDimension = GENDER,
    ) -> int:
        """Store one person's label given by the reviewer ``reviewer`` (annotator
        ``human:<reviewer>``), replacing that reviewer's earlier label of the person; return
        the person's subject id.

        ``detail`` is merged into what the earlier label recorded, never put in its place
        (its reasons, ``via``, blind mode's seed stay unless given again). ``note`` is kept
        with the label and as the reviewer's note on the person
        (:meth:`Review.save_note <diptych.core.workspace.review.Review.save_note>`).
        ``sampling`` says how the person was drawn (a measurement queue's draw); without it the
        earlier label's design stays, else the person was chosen. ``dimension`` says what the
        label is about: perceived gender (``masculine`` ...) or perceived skin tone (``monk-1``
        ... ``monk-10``, ``cannot_identify``); a reviewer keeps one label per dimension."""
        self._kernel.writing("store labels")
        _dimension(dimension)
        annotator = human_annotator(reviewer)
        stored = canonical_label(label)
        if dimension == TONE:
            tone = tone_label(label)
            if tone is None:
                raise UsageError(
                    f"tone label {label!r} is none of monk-1 ... monk-10, cannot_identify"
                )
            stored = tone
        _, subject = subject_id(self._kernel, run_id, trial_idx, position)
        earlier = self._store.label_of(subject, annotator, dimension)
        kept = {**(earlier.detail if earlier is not None else {}), **dict(detail or {})}
        if note is not None:
            self._store.save_note(subject, annotator, note)
            if note:
                kept["note"] = note
            else:
                kept.pop("note", None)
        if sampling is None and earlier is not None:
            sampling = earlier.sampling
        self._store.save_annotations(
            [(subject, annotator, Label(position, stored, None, kept, sampling, dimension))]
        )
        return subject

    def remove(
        self,
        run_id: str,
        trial_idx: int,
        position: str,
        *,
        reviewer: str,
        dimension: LabelDimension = GENDER,
    ) -> bool:
        """Take back the reviewer's label of one person in ``dimension``: no metric counts it
        any more, and the removal is kept (:meth:`removals`). The note stays. False when the
        reviewer had not labelled the person in that dimension."""
        self._kernel.writing("remove labels")
        _dimension(dimension)
        _, subject = subject_id(self._kernel, run_id, trial_idx, position)
        return self._store.remove_annotation(subject, human_annotator(reviewer), dimension)

    def removals(self, run_id: str) -> list[dict[str, Any]]:
        """Every label taken back in the run, with what it was and when it was removed."""
        return self._store.label_removals(self._kernel.get_run(run_id).id)

    def import_csv(
        self, run_id: str, path: str | os.PathLike[str], *, annotator: str | None = None
    ) -> ImportReport:
        """Store the labels of a CSV file in the STS contract's format (``image, setting,
        position, identity, stereotype, label`` and optional ``annotator, run``) for the run's
        people, matched by image and position; refresh the run's review flags.

        Rows without an annotator are ``annotator``'s (a bare name is a person's; default
        ``human:<file stem>``). A ``tone`` column's Monk steps (1 to 10, blank: not judged)
        are stored as the same annotator's tone labels, with the row's design
        (:mod:`~diptych.core.workspace.labels.tone`). Rows that match no person are reported,
        not stored; a malformed file raises :class:`InputFileError` and stores nothing."""
        self._kernel.writing("store labels")
        run = self._kernel.get_run(run_id)
        report = import_labels(self._store, run, Path(path), annotator)
        self._review.refresh_flags(run.id)
        return report

    def template(
        self,
        run_id: str,
        path: str | os.PathLike[str],
        *,
        images: str | os.PathLike[str] | None = None,
    ) -> TemplateReport:
        """Write the run's labels template (one row per person in a generated image, label
        empty) to ``path`` and, with ``images``, each image as ``images/<image>.png``."""
        return write_template(
            self._store,
            self._kernel.get_run(run_id),
            Path(path),
            Path(images) if images is not None else None,
        )

    def sample(
        self,
        run_id: str,
        path: str | os.PathLike[str],
        *,
        n: int | None,
        design: str,
        seed: int | None = None,
        images: str | os.PathLike[str] | None = None,
    ) -> SampleReport:
        """Draw a sample of the run's people by ``design`` (``uniform``, ``active`` or
        ``census`` of the flagged ones) and write its labels template, each row with its design,
        probability and draw, so that the imported labels may enter a prediction-powered
        figure (:mod:`diptych.core.workspace.labels.sample`)."""
        return write_sample(
            self._store,
            self._kernel.get_run(run_id),
            Path(path),
            n=n,
            design=design,
            seed=seed,
            images=Path(images) if images is not None else None,
        )

"""``Workspace.review``: a reviewer's notes on a run's people and the run's review flags."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from diptych.core.engine import bind_probe, refresh_flags
from diptych.core.errors import UsageError
from diptych.core.labels import human_annotator
from diptych.core.plugins import get_probe
from diptych.core.workspace.base import Kernel, Namespace


def subject_id(kernel: Kernel, run_id: str, trial_idx: int, position: str) -> tuple[str, int]:
    """(run id, subject id) of the ``position`` person of trial ``trial_idx``."""
    run = kernel.get_run(run_id)
    subject = next(
        (
            s["subject_id"]
            for s in kernel.store.run_subjects(run.id)
            if s["trial_idx"] == trial_idx and s["position"] == position
        ),
        None,
    )
    if subject is None:
        raise UsageError(f"run {run.id} has no {position} person in trial {trial_idx}")
    return run.id, int(subject)


class Review(Namespace):
    """Human review: a reviewer's note on one person, and the flags that say which people to
    look at (a reviewer's labels are :class:`~diptych.core.workspace.labels.Labels`')."""

    def save_note(
        self, run_id: str, trial_idx: int, position: str, note: str, *, reviewer: str
    ) -> int:
        """Keep the reviewer's note on one person, labelled or not (an empty note removes
        it); a label the reviewer gave the person carries the note in its detail too, the
        rest of that detail untouched. Returns the subject id."""
        self._kernel.writing("store notes")
        annotator = human_annotator(reviewer)
        _, subject = subject_id(self._kernel, run_id, trial_idx, position)
        self._store.save_note(subject, annotator, note)
        earlier = self._store.label_of(subject, annotator)
        if earlier is not None:
            kept = dict(earlier.detail)
            if note:
                kept["note"] = note
            else:
                kept.pop("note", None)
            self._store.save_annotations([(subject, annotator, replace(earlier, detail=kept))])
        return subject

    def notes(self, run_id: str) -> list[dict[str, Any]]:
        """The run's notes on its people (``subject_id``, ``trial_idx``, ``position``,
        ``annotator``, ``note``), labelled or not."""
        return self._store.notes(self._kernel.get_run(run_id).id)

    def flags(self, run_id: str, reason: str | None = None) -> list[dict[str, Any]]:
        """The run's review flags (``trial_idx``, ``position``, ``reason``, ``detail``), all or
        those of one ``reason``, in trial order."""
        return self._store.flags(self._kernel.get_run(run_id).id, reason)

    def flagged_people(self, run_id: str) -> int:
        """How many people of the run a review flag lands on (and flagged outputs with nobody
        in them): what the Review screen's queue holds, the listing and the run detail say."""
        return self._store.flagged_subject_count(self._kernel.get_run(run_id).id)

    def refresh_flags(self, run_id: str) -> int:
        """Recompute the probe's review flags of the run (after new labels); return how many."""
        self._kernel.writing("store review flags")
        run = self._kernel.get_run(run_id)
        probe = bind_probe(get_probe(run.probe, run.params), self._store)
        return refresh_flags(self._store, run.id, probe)

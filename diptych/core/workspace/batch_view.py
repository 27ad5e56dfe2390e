"""A run as a look of its sequential audit reads it: the batches bought by then, nothing more.

A design bought until decided is bought in batches, in the random order its part's seed fixes
over the run's distinct requests (:func:`~diptych.core.engine.purchase.purchase_order`), so that
the batches bought by a look are a random part of the design. Answers are shared by request,
so the run may hold answers an unrelated earlier run stored for requests of *later* batches:
they are reused when their batch comes (never bought twice), but a look before then does not
read them, or its figure would rest on whatever other runs happened to store and be no longer
a random part of the design, and the verdict at the look with it (docs/gates.md).
:class:`BatchView` shows a probe those requests as not yet answered. A design stored whole is
read whole at once: the complete design leaves nothing to what other runs stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from diptych.core.engine.purchase import batch_size, purchase_order
from diptych.core.labels import GENDER, LabelDimension, SubjectLabel
from diptych.core.runview import RunView
from diptych.core.store import ResultRecord, Store


@dataclass(frozen=True)
class BatchesRead:
    """What a look after batch ``batch`` of ``batches`` reads of a run: the answered requests
    of its batches (``read``; an answer or a refusal, a failure tells the figures nothing),
    those answered beyond them (``beyond``: stored by another run, read when their batch
    comes), and the run's distinct requests (``planned``)."""

    read: frozenset[str]
    beyond: frozenset[str]
    planned: int

    @property
    def held(self) -> int:
        """The run's requests with an outcome, read or not."""
        return len(self.read) + len(self.beyond)


def batches_read(store: Store, run_id: str, seed: int, share: float) -> BatchesRead:
    """The requests a look reads of ``run_id`` after the first ``share`` of the order ``seed``
    fixes (batch k of K: k/K) was bought (:class:`BatchesRead`)."""
    keys = {t.key for t in store.trials(run_id)}
    results = store.run_results(run_id)
    answered = {k for k in keys if k in results and results[k].status != "failed"}
    if answered == keys:
        # The whole design is stored: the look reads it whole, the fixed design, which leaves
        # nothing to chance in what other runs stored (no later look, the level spent on it).
        return BatchesRead(frozenset(answered), frozenset(), len(keys))
    order = purchase_order(keys, seed)
    within = set(order[: batch_size(len(order), share)])
    return BatchesRead(frozenset(answered & within), frozenset(answered - within), len(keys))


@dataclass
class BatchView(RunView):
    """A run with the answers of ``hidden`` (requests of batches not bought yet) unread: their
    trials stand as pending, with no result, label or flag, as they would in a store that never
    held them."""

    hidden: frozenset[str] = field(default_factory=frozenset)

    @cached_property
    def results(self) -> dict[str, ResultRecord]:
        found = self._store.run_results(self.run.id)
        return {k: r for k, r in found.items() if k not in self.hidden}

    @cached_property
    def _unread(self) -> frozenset[int]:
        return frozenset(t.idx for t in self.trials if t.key in self.hidden)

    def labels(
        self, annotator: str | None = None, dimension: LabelDimension | None = GENDER
    ) -> list[SubjectLabel]:
        every = self._store.labels(self.run.id, annotator, dimension)
        return [lab for lab in every if lab.trial_idx not in self._unread]

    def flags(self, reason: str | None = None) -> list[dict[str, Any]]:
        every = self._store.flags(self.run.id, reason)
        return [f for f in every if f["trial_idx"] not in self._unread]

    def subject_rows(self) -> list[dict[str, Any]]:
        rows = self._store.run_subjects(self.run.id)
        return [
            {**r, "status": "pending", "blob": None} if r["trial_idx"] in self._unread else r
            for r in rows
        ]

    def status_counts(self) -> dict[str, int]:
        counts = {"done": 0, "refused": 0, "failed": 0, "pending": 0}
        for trial in self.trials:
            found = self.results.get(trial.key)
            status = found.status if found is not None else "pending"
            counts[status] = counts.get(status, 0) + 1
        return counts

"""A gated part's order recorded from the start of its first batch.

A part bought until decided keeps the seed of its random order with its looks, but its first
look comes only once its first batch is bought. Killed during that batch, the run would then
carry no word of its order, and a plain ``diptych resume`` of it would buy the rest in plan
order: stopped part way again, it would hold the plan's first identities, not a random part of
the design. So the part is recorded, with its run and its order's seed, as soon as the engine
has found or created the run, before any trial is asked (docs/gates.md, *Buying on*).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from diptych.audit.plan import PartPlan
from diptych.core.audit import PartRecord
from diptych.core.audit.sequential import PartLooks
from diptych.core.workspace import Reporter, RunRecord


def first_batch_record(planned: PartPlan, run_id: str, seed: int, batches: int) -> PartRecord:
    """The part as recorded while its first batch is bought: its run, its order's seed and
    the batches its design is bought in (what a resume of the run names)."""
    part = planned.part
    detail = {
        "fingerprint": planned.fingerprint,
        PartLooks.ORDER_KEY: seed,
        PartLooks.BATCHES_KEY: batches,
    }
    return PartRecord(part.position, part.name, part.kind, run_id, "running", None, detail)


class RecordingOrder:
    """The reporter of a part's first batch: calls ``record(run_id)`` once the run has
    started (found or created, nothing asked yet), and passes every event on."""

    def __init__(self, inner: Reporter | None, record: Callable[[str], None]) -> None:
        self._inner = inner
        self._record = record

    def run_started(self, run: RunRecord, total: int, cached: int, to_run: int) -> None:
        self._record(run.id)
        if self._inner is not None:
            self._inner.run_started(run, total, cached, to_run)

    def trial_finished(self, model_id: str, status: str, error: str | None) -> None:
        if self._inner is not None:
            self._inner.trial_finished(model_id, status, error)

    def note(self, text: str) -> None:
        if self._inner is not None:
            self._inner.note(text)

    def run_finished(self, run: RunRecord, counts: dict[str, int]) -> None:
        if self._inner is not None:
            self._inner.run_finished(run, counts)

    def __getattr__(self, name: str) -> Any:
        # What a reporter may have besides the protocol (``warn``) is the inner one's.
        if self._inner is None:
            raise AttributeError(name)
        return getattr(self._inner, name)

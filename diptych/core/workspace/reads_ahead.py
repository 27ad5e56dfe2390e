"""What buying a run's design until decided starts from, for the forecast of it (``audit run
--dry-run --until-decided``): the requests stored, and how many each look would read.

Each batch buys the next share of the purchase order (:mod:`diptych.core.engine.purchase`),
and its look reads those with every request stored before — in that order or not: answers are
shared by request, so those of a run bought whole, cut short by a budget or bought by another
audit are read wherever they fall. The looks an audit took of the run before go on in their
own order and batches, and the level they spent stays spent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from diptych.core.audit.stopped import run_looks
from diptych.core.engine.purchase import batch_size, purchase_order

if TYPE_CHECKING:
    from diptych.core.store import Store


@dataclass(frozen=True)
class StoredReads:
    """Of a design's ``total`` distinct requests, the ``stored`` ones, and how many each look
    reads (``reads``, in order: the looks taken before, then one after each batch left)."""

    stored: int
    total: int
    reads: list[int]

    def shares(self) -> tuple[float, list[float]]:
        """``stored`` and ``reads`` as shares of the design (nothing for an empty design)."""
        if not self.total:
            return 0.0, []
        return self.stored / self.total, [r / self.total for r in self.reads]


def reads_ahead(store: Store, run_id: str, order_seed: int, batches: int) -> StoredReads:
    """The looks buying ``run_id`` until decided would take: in ``batches`` batches of the
    order ``order_seed`` fixes, or as the looks an audit took of it before go on."""
    keys = {t.key for t in store.trials(run_id)}
    results = store.run_results(run_id)
    # A failed request is not bought: a resume asks it again.
    held = {k for k in keys if k in results and results[k].status != "failed"}
    kept = run_looks(store, run_id)
    first, reads = 1, []
    if kept is not None and kept.looks:
        order_seed, batches, first = kept.order_seed, kept.batches, kept.next_batch()
        reads = [look.bought for look in kept.looks]
    order = purchase_order(keys, order_seed)
    for k in range(first, batches + 1):
        reads.append(len(held.union(order[: batch_size(len(order), k / batches)])))
    return StoredReads(len(held), len(keys), reads)

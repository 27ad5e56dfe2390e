"""The local executor: a run's trials called from this process, with asyncio and threads.

* Each model gets ``max_concurrency`` workers (capped by the run's ``concurrency``) and, where
  its hints say so, a rate limiter. Blocking backends run in worker threads.
* A paid request is claimed before it is sent; one another live process is sending is looked at
  again every :data:`CLAIM_POLL_S` seconds until its result is stored or its claim released.
* A model whose service asked to wait longer than the run obeys gets no further request: its
  trials not yet started stay pending, for a resume.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from functools import partial

from diptych.core.capabilities import Capability
from diptych.core.engine.execution import (
    CLAIM_POLL_S,
    claim_batch,
    run_batch,
    run_trial,
    take_batch,
)
from diptych.core.engine.options import RunOptions
from diptych.core.engine.pacing import Budget, PaidRetries, RateLimiter
from diptych.core.engine.persisting import DiskRoom
from diptych.core.engine.planning import RunPlan
from diptych.core.engine.reporting import Reporter
from diptych.core.engine.slots import ModelSlot
from diptych.core.errors import DiptychError, RunStoppedError, StoreError
from diptych.core.store import Lease, Store, TrialRow


class LocalExecutor:
    """Every trial called from this process (the default)."""

    name = "local"

    async def execute(
        self,
        store: Store,
        plan: RunPlan,
        slots: Sequence[ModelSlot],
        options: RunOptions,
        *,
        reporter: Reporter,
        budget: Budget | None = None,
        lease: Lease | None = None,
        paid_retries: PaidRetries | None = None,
    ) -> None:
        rng = random.Random(options.seed)
        room = DiskRoom(store, reporter, options.disk_wait)
        by_model: dict[str, list[TrialRow]] = {}
        for trial in plan.pending.values():
            by_model.setdefault(trial.model_id, []).append(trial)

        async def worker(slot: ModelSlot, queue: list[TrialRow], held: list[TrialRow]) -> None:
            while queue:
                # No request is sent while answers already received wait for room on disk.
                await room.before_request()
                if not queue or slot.halted is not None:
                    break
                taken = take_batch(slot, queue)
                batch = await room.write(
                    partial(claim_batch, store, lease, slot, taken, held, reporter), answer=False
                )
                if not batch:
                    continue
                if budget is not None:
                    price = sum(
                        slot.model.price(Capability(t.capability), t.payload) or 0.0 for t in batch
                    )
                    if not budget.reserve(price):
                        if lease is not None:
                            store.release_claims([t.key for t in batch], lease)
                        queue.extend(reversed(batch))
                        return
                if len(batch) > 1 and await run_batch(slot, batch, store, reporter, room):
                    continue
                for trial in batch:
                    if slot.halted is not None:
                        break  # left pending; its claim goes with the lease
                    await run_trial(
                        slot, trial, store, options.retry, reporter, rng, room, budget, paid_retries
                    )

        # Models load before any worker starts: a load failure is then one clear error, not an
        # exception group raised out of the task group.
        for slot in slots:
            if by_model.get(slot.ref.model_id):
                await slot.ensure_loaded()
        while by_model:
            held: dict[str, list[TrialRow]] = {}
            try:
                async with asyncio.TaskGroup() as group:
                    for slot in slots:
                        queue = list(reversed(by_model.get(slot.ref.model_id, [])))
                        if not queue:
                            continue
                        hints = slot.model.hints
                        if hints.rate_limit_per_min and slot.limiter is None:
                            slot.limiter = RateLimiter(hints.rate_limit_per_min)
                        waiting = held.setdefault(slot.ref.model_id, [])
                        workers = max(
                            1, min(hints.max_concurrency, options.concurrency, len(queue))
                        )
                        for _ in range(workers):
                            group.create_task(worker(slot, queue, waiting))
            except ExceptionGroup as group:
                # A store that cannot take more (a full disk), or a process shutting down,
                # stops every worker: the front end shows that one error, not a group of
                # tracebacks.
                stopped = group.subgroup((StoreError, RunStoppedError))
                if stopped is not None:
                    raise _first(stopped) from None
                raise
            by_model = {model: trials for model, trials in held.items() if trials}
            if by_model and not (budget is not None and budget.exhausted):
                await asyncio.sleep(CLAIM_POLL_S)
            elif by_model:
                break


def _first(group: BaseExceptionGroup[DiptychError]) -> DiptychError:
    error = group.exceptions[0]
    return _first(error) if isinstance(error, BaseExceptionGroup) else error

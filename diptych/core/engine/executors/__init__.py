"""Executors: where a run's pending trials are called.

* ``local`` (:class:`~.local.LocalExecutor`, the default): this process, asyncio and threads;
* ``ray`` (:class:`~.ray.RayExecutor`): trials of local models in Ray actors, one per GPU (else
  a small CPU pool), while paid and service models stay on this process's paced path.

Whichever runs the calls, this process alone writes the store, so the run, its trial keys and
its numbers are the same. ``ray`` is imported only when the Ray executor is chosen.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from diptych.core.engine.executors.local import LocalExecutor
from diptych.core.engine.options import EXECUTORS, RunOptions
from diptych.core.engine.pacing import Budget, PaidRetries
from diptych.core.engine.planning import RunPlan
from diptych.core.engine.reporting import Reporter
from diptych.core.engine.slots import ModelSlot
from diptych.core.store import Lease, Store


class Executor(Protocol):
    """Runs every pending trial of a plan and returns when each has a stored outcome (or the
    budget would be exceeded by the next one). ``budget`` is the live spending guard; with the
    run's ``lease``, each paid request is claimed before it is sent; ``paid_retries`` is the
    execution's allowance for buying unusable answers again (None: none)."""

    name: str

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
    ) -> None: ...


def executor_for(options: RunOptions) -> Executor:
    """The executor ``options.executor`` names."""
    if options.executor == "ray":
        from diptych.core.engine.executors.ray import RayExecutor

        return RayExecutor(address=options.ray_address, workers=options.workers)
    assert options.executor in EXECUTORS
    return LocalExecutor()


async def execute(
    store: Store,
    plan: RunPlan,
    slots: Sequence[ModelSlot],
    options: RunOptions | None = None,
    *,
    reporter: Reporter,
    budget: Budget | None = None,
    lease: Lease | None = None,
    paid_retries: PaidRetries | None = None,
) -> None:
    """Run every pending trial of the plan with the executor the options name."""
    options = options or RunOptions()
    await executor_for(options).execute(
        store,
        plan,
        slots,
        options,
        reporter=reporter,
        budget=budget,
        lease=lease,
        paid_retries=paid_retries,
    )


__all__ = ["Executor", "LocalExecutor", "execute", "executor_for"]

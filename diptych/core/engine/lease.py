"""Holding a run's lease while it executes: one process at a time per run.

The lease is taken before planning and given back when the run stops; meanwhile a thread keeps
its heartbeat fresh (see :mod:`diptych.core.store.leases`). A second process on the same run is
refused with one line that names the holder, or with ``wait`` polls until the lease is free.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from diptych.core.engine.reporting import Reporter
from diptych.core.errors import DiptychError, StoreError
from diptych.core.store import Heartbeat, Lease, Store
from diptych.core.store.connection import DB_NAME

#: Seconds between two looks at a held lease while waiting for it.
WAIT_POLL_S = 1.0


class RunLeasedError(DiptychError):
    """Another live process is executing the run."""

    exit_code = 2

    def __init__(self, run_id: str, holder: Lease, action: str = "run") -> None:
        self.run_id = run_id
        self.holder = holder
        self.action = action
        if action == "run":
            advice = (
                f"watch it with 'diptych show {run_id}' (or run again with --watch), or add "
                "--wait to continue it once that process stops"
            )
        else:
            advice = f"add --wait to {action} once that process stops"
        doing = "run" if action == "run" else "worked on"
        super().__init__(f"run {run_id} is being {doing} by {holder.describe()}: {advice}")


async def acquire(
    store: Store,
    run_id: str,
    *,
    wait: bool,
    reporter: Reporter,
    poll: float = WAIT_POLL_S,
    action: str = "run",
) -> Lease:
    """This process's lease on the run; raises :class:`RunLeasedError` when a live process
    holds it, unless ``wait`` (then polls until the holder stops or dies)."""
    noted = False
    while True:
        mine, holder = store.acquire_lease(run_id)
        if mine is not None:
            return mine
        assert holder is not None
        if not wait:
            raise RunLeasedError(run_id, holder, action)
        if not noted:
            reporter.note(f"waiting for {holder.describe()} to finish run {run_id}")
            noted = True
        await asyncio.sleep(poll)


@asynccontextmanager
async def holding(
    store: Store, run_id: str, *, wait: bool, reporter: Reporter, action: str = "run"
) -> AsyncIterator[Lease]:
    """The run's lease, its heartbeat kept fresh, for the body of the ``async with``;
    ``action`` (run, annotate, ...) is what a refused second process is told it may do."""
    lease = await acquire(store, run_id, wait=wait, reporter=reporter, action=action)
    heartbeat = Heartbeat(store.path / DB_NAME, lease).start()
    try:
        yield lease
    except BaseException:
        heartbeat.stop()
        # The error that stopped the run says what was lost and what to do; a lease that
        # cannot be given back as well (the same full disk) must not replace it, and goes
        # stale by itself once this process ends.
        with contextlib.suppress(StoreError):
            store.release_lease(lease)
        raise
    heartbeat.stop()
    store.release_lease(lease)

"""A run stopped early whose status write was lost: what a stop during the engine's clean-up
leaves behind."""

from __future__ import annotations

import asyncio

import pytest

from diptych.core.engine import Reporter
from diptych.core.store import open_store
from diptych.core.workspace import RunSummary, Workspace


def stopped_left_running(ws: Workspace, reporter: Reporter, started: asyncio.Event) -> RunSummary:
    """A run of 30 trials on the scripted likelihood model, one at a time, cancelled once
    ``reporter`` has set ``started``, then stored as "running" as a stop landing between the
    last answer and the status write leaves it. The workspace holds no other run."""
    model = ("scripted-likelihood", {"latency": 0.02, "max_concurrency": 1})

    async def stop_early() -> None:
        task = asyncio.create_task(
            ws.runs.run("scripted", [model], params={"n": 30}, reporter=reporter)
        )
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(stop_early())
    (summary,) = ws.runs.list()
    with open_store(ws.path) as store:
        store.set_run_status(summary.run.id, "running")
    return summary

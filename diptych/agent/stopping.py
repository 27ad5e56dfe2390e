"""A search stopped by its user from another thread.

An audit runs its agent searches in a worker thread, each on event loops of its own (its probe
runs', its agent's calls'): the audit's Ctrl-C cancels the audit's loop, never those. The audit
hands the search a :class:`threading.Event` instead, set when the user stops it; every probe
run and every agent call of the search awaits its work against it, so a stop cancels the run
where it is (the engine stores what finished and leaves the run ``interrupted``) or the agent
call in flight, and the search ends with :class:`SearchStopped` at its next trial. What
finished is kept: the runs' stored trials, and the session's checkpoint up to its last node.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

#: How often a search's awaited work looks whether it was stopped (seconds).
POLL = 0.05


class SearchStopped(Exception):
    """The search was stopped by its user (Ctrl-C, the terminal app's stop): what finished is
    kept, and running its audit again goes on from there."""

    def __init__(self) -> None:
        super().__init__("the search was stopped; running its audit again goes on")


def check(stop: threading.Event | None) -> None:
    """Raise :class:`SearchStopped` where ``stop`` is set."""
    if stop is not None and stop.is_set():
        raise SearchStopped


async def until_stopped(coro: Coroutine[Any, Any, T], stop: threading.Event | None) -> T:
    """``coro`` awaited, cancelled where ``stop`` is set first (then :class:`SearchStopped`,
    once the cancelled work has stored what it finished); never started where it is set
    already."""
    if stop is None:
        return await coro
    if stop.is_set():
        coro.close()
        raise SearchStopped
    task = asyncio.ensure_future(coro)
    while not task.done():
        await asyncio.wait({task}, timeout=POLL)
        if stop.is_set() and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            raise SearchStopped
    return task.result()

"""SIGTERM handled as Ctrl-C.

A service manager stopping a job, ``kill PID``, a CI job's timeout and ``docker stop`` all send
SIGTERM, whose default action ends the process at once: a run's calls in flight are lost
mid-way, its lease stays held until its heartbeat goes stale, and the run reads ``stale``. Here
SIGTERM takes the road Ctrl-C takes: while an event loop runs a command (``asyncio.run``), its
SIGINT handler cancels the main task, so the engine abandons the calls in flight, finishes the
run (``interrupted``), gives its lease back, and the command prints "interrupted"; elsewhere it
raises :class:`KeyboardInterrupt`, as SIGINT does.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from diptych.core.workspace import Workspace


def _as_interrupt(signum: int, frame: FrameType | None) -> None:
    # Whatever handles SIGINT now (asyncio's runner installs its own while a loop runs).
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
        return
    # SIGINT ignored (a background job of a shell): still stop, as Ctrl-C would.
    raise KeyboardInterrupt


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM is handled as SIGINT (see the module's docstring). Signal
    handlers belong to the main thread: called from another, it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _as_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def settle_stopped(ws: Workspace, run_id: str) -> None:
    """A stop that lands while the engine is cleaning up (or between the last answer and the
    status write) leaves the run ``running`` with no process holding it, which listings read as
    ``stale``. The stop was the user's: record it as ``interrupted`` (or whatever its stored
    outcomes say) now, as the engine would have."""
    try:
        if ws.runs.get(run_id).status == "running" and ws.runs.lease(run_id) is None:
            ws.runs.finish(run_id)
    except Exception:  # noqa: BLE001 - the stop is reported either way; a resume settles it
        pass

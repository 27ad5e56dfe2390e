"""Reads of the workspace's store that a screen asks for more often than it should make them.

A running job tells of every batch it stores; each tale asks the screen to read the store
again. Reading at each would keep a thread busy, and dropping the ones that come while a read
is under way, or too soon after the last, lost the last change: a job's run stayed out of the
table until the next timed refresh, a minute later. A read asked for then is made once, after.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol


class TimerHost(Protocol):
    def set_timer(self, delay: float, callback: Callable[[], object]) -> object: ...


class StoreReads:
    """Start ``read`` when asked, one at a time, at most once per ``gap`` seconds when asked
    ``soon``; an ask that cannot start now is made once the read under way has ``landed``, or
    the gap has passed."""

    def __init__(self, host: TimerHost, read: Callable[[], object], gap: float = 0.25) -> None:
        self._host, self._read, self.gap = host, read, gap
        self.loading = False
        self.last = 0.0
        self._stale = False
        self._timer_set = False

    def ask(self, soon: bool = False) -> None:
        """A read now; with ``soon``, no sooner than ``gap`` after the last one started."""
        if self.loading:
            self._stale = True  # the read under way may predate what changed
            return
        wait = self.gap - (time.monotonic() - self.last) if soon else 0.0
        if wait > 0:
            if not self._timer_set:
                self._timer_set = True
                self._host.set_timer(wait, self._due)
            return
        self.loading = True
        self.last = time.monotonic()
        self._read()

    def _due(self) -> None:
        self._timer_set = False
        self.ask(soon=True)

    def landed(self) -> None:
        """The read under way has ended (with rows or an error)."""
        self.loading = False
        if self._stale:
            self._stale = False
            self.ask(soon=True)

"""Pacing calls to a model: retries with backoff, rate limits, and the spending guard."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a trial is retried after a transient fault."""

    max_attempts: int = 6
    base_delay: float = 0.5
    max_delay: float = 60.0
    #: Seconds one call may take before it counts as a transient fault (None: no limit).
    timeout: float | None = None
    #: Whether a paid request that may have been carried out (a timeout after it was sent) is
    #: sent again. Off: it is stored as failed, "may have been paid", and counted, so that no
    #: answer is silently paid twice; a resume asks again.
    retry_maybe_paid: bool = False
    #: The longest ``Retry-After`` obeyed, in seconds. A service asking for more (a hostile or
    #: confused one can ask for a day) fails the trial with its reason instead of hanging the
    #: run; the model's other trials are left for a resume.
    max_retry_wait: float = 300.0

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        # Full jitter (AWS architecture blog): spreads retries of many workers apart.
        backoff = rng.uniform(0, min(self.max_delay, self.base_delay * 2 ** (attempt - 1)))
        return max(backoff, retry_after or 0.0)

    def over_cap(self, retry_after: float | None) -> str | None:
        """Why a service's ``Retry-After`` is not obeyed (it asks for more than
        ``max_retry_wait``), or None when it is."""
        if retry_after is None or retry_after <= self.max_retry_wait:
            return None
        return (
            f"the service asked to wait {retry_after:g} s, over --max-retry-wait "
            f"{self.max_retry_wait:g}; resume later"
        )


class RateLimiter:
    """Spaces call starts at least ``60 / per_minute`` seconds apart.

    ``clock`` and ``sleep`` are the monotonic clock and the sleep it uses; a test hands in a
    simulated pair so that the spacing is checked without waiting for it.
    """

    def __init__(
        self,
        per_minute: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self.interval = 60.0 / per_minute
        self._clock = clock
        self._sleep = sleep
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        async with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            await self._sleep(start - now)


@dataclass
class Budget:
    """The ``--max-cost`` guard: a trial starts only if its estimated price still fits.

    The price is reserved when the call starts and kept whatever the outcome, so the guard errs
    on the side of spending less than allowed, never more.
    """

    limit: float
    spent: float = 0.0
    exhausted: bool = False

    def reserve(self, price: float | None) -> bool:
        if self.exhausted:
            return False
        cost = price or 0.0
        if self.spent + cost > self.limit + 1e-9:
            self.exhausted = True
            return False
        self.spent += cost
        return True

    def settle(self, reserved: float | None, actual: float) -> None:
        """Replace what one call reserved by what it cost (from the token counts the service
        returned), so that the guard spends against actual charges."""
        self.spent += actual - (reserved or 0.0)


@dataclass
class PaidRetries:
    """The ``--paid-retries`` allowance of one execution: how many answers that were paid for
    but could not be used (see :class:`~diptych.core.errors.PaidFailureError`) may be bought
    again, whether the unusable answer came in this execution or an earlier one.

    Each retry also reserves its price in the ``--max-cost`` guard, so both count it."""

    limit: int = 0
    used: int = 0

    def take(self, budget: Budget | None, price: float | None) -> bool:
        """Use one paid retry, if one is left and its price fits the budget."""
        if self.used >= self.limit:
            return False
        if budget is not None and not budget.reserve(price):
            return False
        self.used += 1
        return True

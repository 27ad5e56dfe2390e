"""One record of how a run is carried out, handed from a front end through to execution."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from diptych.core.engine.pacing import Budget, PaidRetries, RetryPolicy

#: Where trials can be called: ``local`` (this process) or ``ray`` (local models in Ray actors).
EXECUTORS = ("local", "ray")


@dataclass(frozen=True)
class RunOptions:
    """How to run: none of these change what a run *is* (its fingerprint and trial keys), only
    how its trials are called, paid for and recorded."""

    #: Most trials in flight at once per model (each model's own ``max_concurrency`` caps it too).
    concurrency: int = 16
    #: Attempts, per-call timeout and backoff on transient faults.
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    #: Stop before the estimated spend exceeds this many USD (None: no limit).
    max_cost: float | None = None
    #: Answers paid for but unusable (an unreadable image, no data) that this execution may
    #: buy again, in this run or stored by an earlier one (default none: each is stored as
    #: failed with its reason and cost, and left alone by a resume).
    paid_retries: int = 0
    #: Start a new run even if one with the same fingerprint is stored.
    new: bool = False
    #: Continue this stored run instead of finding or creating one by fingerprint.
    run_id: str | None = None
    #: When another process holds the run's lease: wait for it to stop, then continue the run
    #: (instead of refusing with the holder named).
    wait: bool = False
    #: Seconds to hold answers in memory, retrying their writes, when the disk holding the
    #: workspace is full, before the run stops (see :mod:`diptych.core.engine.persisting`).
    disk_wait: float = 300.0
    #: Seed of the retry jitter, so that a test's backoff delays repeat (None: unseeded).
    seed: int | None = None
    #: Where local-model trials are called: ``local`` (this process) or ``ray`` (Ray actors;
    #: paid and service models stay on this process either way).
    executor: str = "local"
    #: The Ray cluster to join (``ray://host:10001`` or ``host:6379``); None: ``$RAY_ADDRESS``,
    #: else a Ray instance started for the run.
    ray_address: str | None = None
    #: Ray actors per local model (None: one per GPU of the cluster, else up to one per CPU).
    workers: int | None = None
    #: Refuse to add results from another backend build to a run whose stored results came
    #: from one (else warn in one line and go on: see :mod:`diptych.core.builds`).
    same_build: bool = False
    #: Buy the pending trials in the random order this seed fixes over the run's distinct
    #: requests instead of plan order, so that every prefix is a random part of the design and
    #: every execution with the seed continues the same order (see :mod:`.purchase`). None:
    #: the order an audit bought the run in, batch by batch, if one did; else plan order.
    order_seed: int | None = None
    #: With ``order_seed``: buy only the requests within the first this share of that order
    #: (a batch of a sequential audit: 0 < share <= 1; None: all of them).
    order_share: float | None = None
    #: Buy only these of the run's pending requests (None: all that are pending): the answers
    #: a decided run's look read that are gone from the store, asked again without the rest.
    only_keys: frozenset[str] | None = None

    def __post_init__(self) -> None:
        if self.executor not in EXECUTORS:
            raise ValueError(
                f"executor must be one of {', '.join(EXECUTORS)}, not {self.executor!r}"
            )
        if self.workers is not None and self.workers < 1:
            raise ValueError(f"workers must be at least 1, not {self.workers}")
        if self.concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, not {self.concurrency}")
        if self.retry.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, not {self.retry.max_attempts}")
        if self.retry.timeout is not None and not 0 < self.retry.timeout < float("inf"):
            raise ValueError(f"timeout must be more than 0 seconds, not {self.retry.timeout:g}")
        if not (self.retry.base_delay >= 0 and self.retry.max_delay >= 0):
            raise ValueError("retry delays must not be negative")
        if not self.retry.max_retry_wait >= 0:
            raise ValueError(
                f"max_retry_wait must not be negative, not {self.retry.max_retry_wait}"
            )
        if self.paid_retries < 0:
            raise ValueError(f"paid_retries must not be negative, not {self.paid_retries}")
        if not self.disk_wait >= 0:
            raise ValueError(f"disk_wait must not be negative, not {self.disk_wait}")
        if self.max_cost is not None and not self.max_cost >= 0:
            raise ValueError(f"max_cost must not be negative, not {self.max_cost}")
        if self.order_share is not None and not 0 < self.order_share <= 1:
            raise ValueError(f"order_share must be in (0, 1], not {self.order_share}")
        if self.order_share is not None and self.order_seed is None:
            raise ValueError("order_share needs order_seed: a share of which order?")

    def budget(self) -> Budget | None:
        """A fresh spending guard for one execution, or None without ``max_cost``."""
        return Budget(self.max_cost) if self.max_cost is not None else None

    def paid_retry_allowance(self) -> PaidRetries:
        """A fresh ``paid_retries`` allowance for one execution."""
        return PaidRetries(self.paid_retries)

    def updated(self, **changes: Any) -> RunOptions:
        """These options with the given fields changed; fields given as None are left as they
        are (so keyword arguments left at their default do not override an options record)."""
        given = {name: value for name, value in changes.items() if value is not None}
        return replace(self, **given) if given else self

"""One progress figure for a run — trials done of the total, the rate, the time left — the
same in the Runs table, the jobs bar and the Run detail.

A run executing in this app counts from its job: the trials already stored when it started
(``cached``, which a resumed run's earlier work is part of, so the figure goes on where it
stopped) plus those finished since, or what the store holds where that is further on; its
rate is of the trials finished since the job started. A run not executing here counts what
the store holds.
A failed trial is counted apart, never as done: a run that asked every trial and had some
fail is not complete (resuming it asks them again), so it never reads "100.0%" or "12/12".
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from diptych.tui.jobs import JobState

#: Outcomes that end a trial for good (a failed one is asked again on resume).
STORED = ("done", "refused")


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    #: Trials per second finished by the job running it (None when none is).
    rate: float | None = None
    #: Trials that failed (not in ``done``): asked again when the run is resumed.
    failed: int = 0

    @property
    def eta(self) -> float | None:
        """Seconds left at the current rate, if there is one."""
        if not self.rate:
            return None
        return max(0, self.total - self.done - self.failed) / self.rate

    def fraction(self) -> float:
        return 0.0 if self.total <= 0 else min(1.0, self.done / self.total)

    def count(self) -> str:
        """``38/156``, ``1,720/1,720``, ``0/12 · 12 failed``: counts as every surface prints
        them."""
        if not self.total:
            return "—"
        return f"{self.done:,}/{self.total:,}" + (
            f" · {self.failed:,} failed" if self.failed else ""
        )

    def text(self) -> str:
        """``38/156 · 2.1/s · ETA 0:56`` (rate and time left only while it runs)."""
        parts = [self.count()]
        if self.rate:
            parts.append(f"{self.rate:.1f}/s")
        if (eta := self.eta) is not None:
            parts.append(f"ETA {clock(eta)}")
        return " · ".join(parts)


def clock(seconds: float) -> str:
    """``0:56``, ``12:04``, ``2:03:10``."""
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def run_progress(
    counts: Mapping[str, int] | None,
    n_trials: int,
    job: JobState | None = None,
    now: float | None = None,
) -> Progress:
    """The run's progress: from its ``job`` when one runs it here (and from its stored
    ``counts`` where they are further on), else from its ``counts`` out of ``n_trials``."""
    if job is not None and job.total:
        failed = job.finished.get("failed", 0)
        done = job.cached + job.n_finished - failed
        if counts is not None:
            # What the store holds, read apart from the job's own messages, is never behind
            # them: a batched call stores its trials all at once.
            done = max(done, sum(counts.get(k, 0) for k in STORED))
        # The trials this job has finished since it started: those stored, and those failed.
        finished = done - job.cached + failed
        rate = None
        if job.started_at is not None and finished > 0:
            elapsed = (now if now is not None else time.monotonic()) - job.started_at
            rate = finished / elapsed if elapsed > 0 else None
        return Progress(done, job.total, rate, failed)
    stored = sum((counts or {}).get(k, 0) for k in STORED)
    return Progress(stored, n_trials, failed=(counts or {}).get("failed", 0))

"""When a run started and finished, from its own record.

Answers are stored once per trial key and shared: a run that plans a trial another run already
answered reuses that answer, stored before the run began; and a later run may answer the
trials a run left unanswered, after it ended. Its dates therefore come from the run itself —
started when it was recorded, finished with the last answer stored between then and its
status's last change (while it runs, with the last one yet) — and the reused answers are
counted apart with the time they were stored, so that a run's dates never run backwards.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from diptych.core.store.records import ResultRecord


def when(ts: float | None) -> str:
    """A time as the report gives it ("2026-11-30 08:24"), or "—" for none."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts)) if ts else "—"


@dataclass(frozen=True)
class RunDates:
    started: float
    #: The last answer the run stored itself; its start where it stored none of its answers;
    #: None while it has none.
    finished: float | None
    #: Answers stored before the run started (by an earlier run), and when they were stored.
    reused: int = 0
    reused_first: float | None = None
    reused_last: float | None = None

    @property
    def reused_text(self) -> str:
        """ "172 answers reused, stored by an earlier run at 2026-11-30 08:09", or ""."""
        if not self.reused:
            return ""
        first, last = when(self.reused_first), when(self.reused_last)
        stored = first if first == last else f"{first} to {last}"
        answers = "answer" if self.reused == 1 else "answers"
        return f"{self.reused:,} {answers} reused, stored by an earlier run at {stored}"


def run_dates(
    created_at: float, results: Iterable[ResultRecord], until: float | None = None
) -> RunDates:
    """The dates of a run recorded at ``created_at`` whose trials have ``results``; ``until``:
    when its status last changed, where it is not running (answers stored after it are a later
    run's)."""
    own: list[float] = []
    reused: list[float] = []
    answered = False
    for result in results:
        answered = True
        if result.finished_at < created_at:
            reused.append(result.finished_at)
        elif until is None or result.finished_at <= until:
            own.append(result.finished_at)
    finished = max(own) if own else (created_at if answered else None)
    return RunDates(
        started=created_at,
        finished=finished,
        reused=len(reused),
        reused_first=min(reused, default=None),
        reused_last=max(reused, default=None),
    )

"""Messages that carry results from worker threads back to the UI thread.

Workers never touch a widget: they ``post_message`` one of these (posting is thread-safe) and
the app or screen that receives it updates what is shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.message import Message

from diptych.core.probe import ProbeResult
from diptych.core.workspace import Estimate, RunRecord, RunSummary
from diptych.core.workspace.search_runs import SearchRuns

# --- runs executing in the background (posted to the app) ---------------------------------


@dataclass
class JobStarted(Message):
    """The engine has planned the run and is about to execute what is left."""

    job_id: int
    run_id: str
    total: int
    cached: int
    to_run: int


@dataclass
class JobProgress(Message):
    """Outcomes of the trials finished so far by this job (not counting stored ones)."""

    job_id: int
    finished: dict[str, int]


@dataclass
class JobNote(Message):
    """Something the engine said while running (a retry, a budget stop)."""

    job_id: int
    text: str


@dataclass
class JobEnded(Message):
    """The job's thread is done: the run finished, was stopped, or could not start."""

    job_id: int
    run_id: str | None
    #: ``finished`` (ran to its end), ``stopped`` (paused or cancelled) or ``error``.
    outcome: str
    status: str | None = None
    counts: dict[str, int] = field(default_factory=dict)
    error: str | None = None


@dataclass
class JobsChanged(Message):
    """Sent by the app to its screens when any job's state changed."""

    bubble = False


# --- data loaded for a screen (posted to that screen) -------------------------------------


@dataclass
class RunsLoaded(Message):
    """Every run of the workspace, one row of the Runs screen each, and each agent search's
    runs and trials as the workspace counts them (its row's)."""

    rows: list[RunSummary]
    searches: dict[str, SearchRuns] = field(default_factory=dict)


@dataclass
class LastRequestLoaded(Message):
    """The last run asked for in the workspace (None: none yet), for the New-run form."""

    last: dict[str, Any] | None


@dataclass
class RestEstimated(Message):
    """What resuming a decided run would buy, in words, for the question ``u`` asks first
    (``ask``), or for the line ``p`` and ``c`` say of it."""

    run_id: str
    text: str
    ask: bool = True


@dataclass
class LookedResumeAsked(Message):
    """Before ``u`` resumes ``run_id``: the question to ask first, where an audit was buying it
    look by look (:func:`~diptych.audit.again.looked_question`), or None: resumed at once."""

    run_id: str
    text: str | None


@dataclass
class EstimateReady(Message):
    """The dry-run estimate of the New-run form (or why there is none)."""

    generation: int
    estimate: Estimate | None
    error: str | None = None


@dataclass
class AnalysisReady(Message):
    run: RunRecord
    counts: dict[str, int]
    flagged: int
    result: ProbeResult | None
    error: str | None = None
    #: Said when the run's results came from more than one backend build.
    builds_note: str | None = None
    #: The run's status in words ("decided at look 1 of 10: ..."); its status if empty.
    status_text: str = ""
    #: What one of its probe's observations is: what the figures' n counts ("1,600 prompts").
    observation: str = "observation"


@dataclass
class ReportWritten(Message):
    path: Path | None
    error: str | None = None
    #: Said when the folder's old signed manifest no longer matched and was removed.
    stale: tuple[str, ...] = ()


@dataclass
class RunHolder(Message):
    """Who executes a run this app did not start: ``(pid, host, described)`` of the process
    holding its lease, or None when nobody does any more; ``verb``: the key's action."""

    run_id: str
    verb: str
    holder: tuple[int, str, str] | None


@dataclass
class StandingsLoaded(Message):
    """Every audited model side by side (``ws.standings.table``), or why there is none."""

    standings: Any
    error: str | None = None
    #: The figures the runs can be ranked on (``ws.standings.choices``).
    figures: list[str] = field(default_factory=list)
    #: The runs still running when the ranking was read: it is read again once one finishes.
    running: list[str] = field(default_factory=list)
    #: The figure ranked ("": not said): a ranking read before ``f`` chose another is dropped.
    figure: str = ""

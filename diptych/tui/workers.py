"""What the TUI's worker threads do: run, resume, estimate, analyse and report, headless.

Each function here runs in a worker thread and opens a :class:`Workspace` of its own (one
belongs to one thread; opening one is cheap). None touches a widget: results go back as
messages through the ``post`` callable the caller hands in (``post_message`` of the app or a
screen, thread-safe).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from textual.message import Message

from diptych.audit.sequential import read_whole
from diptych.core.audit.run_status import decided_at, rest_line, rest_to_buy
from diptych.core.builds import mixed_builds_note
from diptych.core.errors import DiptychError
from diptych.core.evidence.manifest import drop_stale_signatures
from diptych.core.plugins import observation_of
from diptych.core.probe import ProbeResult
from diptych.core.workspace import Estimate, RunRecord, RunSummary, Workspace
from diptych.core.workspace.search_runs import SearchRuns
from diptych.tui.jobs import ActiveRuns, JobControl, RunRequest
from diptych.tui.messages import (
    AnalysisReady,
    JobEnded,
    JobNote,
    JobProgress,
    JobStarted,
    ReportWritten,
    StandingsLoaded,
)

Post = Callable[[Message], object]
T = TypeVar("T")


class JobReporter:
    """The Workspace's Reporter for the TUI: every event becomes a message to the app.

    Trial outcomes are batched: one message per ``interval`` seconds at most, so a fast run of
    thousands of trials does not flood the UI's message queue. Those held back are posted
    once the interval is over, whether or not another trial finishes: the trials of one
    batched call are stored together, and a slow model's next batch may be minutes away.
    """

    def __init__(self, job_id: int, post: Post, interval: float = 0.1) -> None:
        self.job_id = job_id
        self.post = post
        self.interval = interval
        self.finished: Counter[str] = Counter()
        self.run_id: str | None = None
        self._last = 0.0
        # Trials are told from the run's thread (or a pool's), the held ones posted from a
        # timer's.
        self._lock = threading.Lock()
        self._held: threading.Timer | None = None
        self._told = 0

    def run_started(self, run: RunRecord, total: int, cached: int, to_run: int) -> None:
        self.run_id = run.id
        self.post(JobStarted(self.job_id, run.id, total, cached, to_run))

    def trial_finished(self, model_id: str, status: str, error: str | None) -> None:
        with self._lock:
            self.finished[status] += 1
            wait = self._last + self.interval - time.monotonic()
            if wait <= 0:
                self._post_counts()
            elif self._held is None:
                self._held = threading.Timer(wait, self.flush)
                self._held.daemon = True
                self._held.start()

    def note(self, text: str) -> None:
        self.post(JobNote(self.job_id, text))

    def run_finished(self, run: RunRecord, counts: dict[str, int]) -> None:
        self.flush()

    def flush(self) -> None:
        """Post the outcomes held back, if any (at the interval's end, and when the run ends)."""
        with self._lock:
            if self._held is not None:
                self._held.cancel()
                self._held = None
            if self._told != sum(self.finished.values()):
                self._post_counts()

    def _post_counts(self) -> None:
        self._last = time.monotonic()
        self._told = sum(self.finished.values())
        self.post(JobProgress(self.job_id, dict(self.finished)))


def execute_job(
    job_id: int,
    request: RunRequest,
    store_path: Path,
    control: JobControl,
    active: ActiveRuns,
    post: Post,
) -> None:
    """Run or resume one run to its end or until ``control`` cancels it (thread body)."""
    control.started.set()
    reporter = JobReporter(job_id, post)
    run_id: str | None = request.resume
    try:
        with Workspace.open(store_path) as ws:
            start: Callable[[], Awaitable[RunRecord]]
            if request.resume is not None:
                fingerprint = ws.runs.get(request.resume).fingerprint
                start = partial(
                    ws.runs.resume, request.resume, options=request.options(), reporter=reporter
                )
            else:
                # Built once, here, in the thread that runs them.
                probe = ws.plugins.probe(request.probe, list(request.probe_params))
                models = [ws.plugins.model((name, list(params))) for name, params in request.models]
                fingerprint = ws.runs.fingerprint(probe, models)
                start = partial(
                    ws.runs.run, probe, models, options=request.options(), reporter=reporter
                )
            if not active.claim(fingerprint):
                post(JobEnded(job_id, run_id, "error", error="this run is already running"))
                return
            try:
                outcome = _run_in_own_loop(start, control)
                reporter.flush()
                run_id = reporter.run_id or run_id
                if run_id is None:
                    post(JobEnded(job_id, None, outcome))
                    return
                # A decided run bought whole (u, or a new run of its design): its last look,
                # as diptych resume records it.
                read_whole(ws, run_id)
                record = ws.runs.get(run_id)
                if outcome == "stopped" and record.status == "running":
                    # A cancel that landed during the engine's own clean-up (while it awaited
                    # a model's client closing) left the run stored as running.
                    record = ws.runs.finish(run_id)
                post(JobEnded(job_id, run_id, outcome, record.status, ws.runs.counts(run_id)))
            finally:
                active.release(fingerprint)
    except DiptychError as error:
        post(JobEnded(job_id, reporter.run_id or run_id, "error", error=str(error)))
    except Exception as error:
        # A plugin's own bug: the job is shown as failed with its message, and the exception
        # goes on to the Worker (exit_on_error=False), which keeps it for the log.
        message = f"{type(error).__name__}: {error}"
        post(JobEnded(job_id, reporter.run_id or run_id, "error", error=message))
        raise
    finally:
        reporter.flush()
        control.detach()


def _run_in_own_loop(start: Callable[[], Awaitable[RunRecord]], control: JobControl) -> str:
    """Run on an event loop owned by this thread; ``finished`` or ``stopped``."""
    try:
        run_stoppable(start, control)
    except asyncio.CancelledError:
        return "stopped"
    return "finished"


def run_stoppable(start: Callable[[], Awaitable[T]], control: JobControl) -> T:
    """``start()`` awaited on an event loop owned by this thread, which ``control`` stops
    from any thread (the stop raises :class:`asyncio.CancelledError` here, after the
    Workspace has stored what finished and left its run ``interrupted``)."""

    async def main() -> T:
        task = asyncio.current_task()
        assert task is not None
        control.attach(asyncio.get_running_loop(), task)
        # A cancel that came before the loop existed lands here, before anything is planned.
        await asyncio.sleep(0)
        return await start()

    with asyncio.Runner() as runner:
        return runner.run(main())


# --- reading the workspace ------------------------------------------------------------------


def load_runs(store_path: Path) -> list[RunSummary]:
    """Every run of the workspace with its outcome counts and the number of people flagged
    for review (as the Review screen counts them: a flag on an output lands on each person)."""
    with Workspace.open(store_path) as ws:
        return ws.runs.list()


def load_searches(store_path: Path, rows: list[RunSummary]) -> dict[str, SearchRuns]:
    """Each agent search of ``rows`` (:func:`load_runs`') with its runs and trials, those it
    reused counted once with its own, as ``diptych runs`` counts them."""
    with Workspace.open(store_path) as ws:
        return ws.runs.searches(rows)


def last_request(store_path: Path) -> dict[str, Any] | None:
    """The last run asked for in this workspace (probe, parameters, models), if any."""
    with Workspace.open(store_path) as ws:
        return ws.preferences.last_request()


def remember_request(store_path: Path, request: RunRequest) -> None:
    """Remember a new run's probe, parameters and models for the next New-run form."""
    with Workspace.open(store_path) as ws:
        if not ws.read_only:
            ws.preferences.remember_request(request.probe, request.probe_params, request.models)


def estimate_request(store_path: Path, request: RunRequest) -> Estimate:
    """The dry run of a new run's request: trials planned, already stored, to run, their
    price, and the expected precision of the headline figures."""
    with Workspace.open(store_path) as ws:
        models = [(name, list(params)) for name, params in request.models]
        return ws.runs.plan(
            request.probe, models, params=list(request.probe_params),
            options=request.options(), precision=True, target_width=request.target_width,
        )  # fmt: skip


def rest_of_decided_run(store_path: Path, run_id: str, ask: bool = True) -> str:
    """The question before a decided run is resumed (``ask``), or the line ``p`` and ``c``
    say of it: where it was decided, what buying the rest of its design would buy and its
    estimated cost, and in the question any answer its look read that is gone from the store
    (:mod:`diptych.core.audit.run_status`, the words of ``diptych resume``)."""
    with Workspace.open(store_path) as ws:
        est = ws.runs.plan_resume(run_id)
        at = decided_at(ws.runs.status_text(run_id))
        said = ws.runs.decided_text(run_id)
        lost = len(ws.runs.lost_answers(run_id))
    trials = est.planned - est.cached
    if ask:
        return rest_to_buy(run_id, said, trials, est.to_run, est.cost, lost)
    return f"{run_id} is not running: {rest_line(at, trials, est.to_run, est.cost, 'u')}"


def analyze_run(store_path: Path, run_id: str) -> AnalysisReady:
    """The probe's analysis of a stored run, with its counts and flags."""
    with Workspace.open(store_path) as ws:
        run = ws.runs.get(run_id)
        counts = ws.runs.counts(run.id)
        flagged = ws.review.flagged_people(run.id)  # as the Runs list counts them
        mixed = mixed_builds_note(ws.runs.builds(run.id))
        said = ws.runs.status_text(run.id)
        observation = observation_of(run.probe)
        try:
            result = ws.audits.read(run.id)
        except DiptychError as error:
            return AnalysisReady(run, counts, flagged, None, str(error), mixed, said, observation)
        result = with_agreement(ws, run.id, result)
        return AnalysisReady(run, counts, flagged, result, None, mixed, said, observation)


def with_agreement(ws: Workspace, run_id: str, result: ProbeResult) -> ProbeResult:
    """``result`` with the run's agreement tables after its own (those of `diptych agreement`
    and the report, one computation), where two annotators or more labelled its persons and
    its probe's analysis does not show them already (the pst probe's does)."""
    from diptych.core.errors import UsageError
    from diptych.core.metrics.agreement.tables import PAIRWISE_TITLE, agreement_report_tables
    from diptych.core.metrics.agreement.tone import TONE_TITLE

    if {PAIRWISE_TITLE, TONE_TITLE} & {table.title for table in result.tables}:
        return result
    try:
        agreement = ws.annotators.agreement(run_id)
    except UsageError:  # no labels yet
        return result
    if not agreement.pairwise and agreement.tone is None:
        return result
    return replace(result, tables=[*result.tables, *agreement_report_tables(agreement)])


def write_run_report(store_path: Path, run_id: str, out_dir: Path) -> ReportWritten:
    """Write the report of a run (its Markdown, HTML and JSON, and its figures) and remove a
    signed manifest the folder's new files no longer match, as the CLI does
    (:func:`~diptych.core.evidence.manifest.drop_stale_signatures`): the HTML page's path (the
    file a reader opens, in the folder with the rest) and what was removed. The report is the
    one ``diptych report RUN`` writes: a recorded audit's run is reported as that audit's, with
    its gates and the intervals they decided on."""
    with Workspace.open(store_path) as ws:
        written = ws.audits.write_report([ws.runs.get(run_id).id], out_dir)
    path = written.get("html") or written.get("md") or next(iter(written.values()))
    return ReportWritten(path.resolve(), stale=tuple(drop_stale_signatures(written)))


def load_standings(store_path: Path, figure: str = "STS paired") -> StandingsLoaded:
    """Every audited model of the workspace side by side on ``figure``, or one line saying
    why not in the screen's words (its ``f`` key chooses another figure): the screen shows it
    in place of the table (and F5 asks again), never a wait that does not end."""
    loaded = _ranked(store_path, figure)
    loaded.figure = figure
    return loaded


def _ranked(store_path: Path, figure: str) -> StandingsLoaded:
    """:func:`load_standings`'s reading, before it names the figure ranked."""
    from diptych.core.workspace.standings import NothingToRank

    running: list[str] = []
    try:
        with Workspace.open(store_path) as ws:
            running = [s.run.id for s in ws.runs.list() if s.run.status == "running"]
            table = ws.standings.table(figure=figure)
            return StandingsLoaded(table, figures=ws.standings.choices, running=running)
    except NothingToRank as error:
        return StandingsLoaded(
            None,
            error.said("press f to choose one", " (ranked again when it finishes; F5 now)"),
            figures=error.figures,
            running=running,
        )
    except DiptychError as error:
        return StandingsLoaded(None, " ".join(str(error).split()), running=running)
    except Exception as error:  # noqa: BLE001 (a bug shown as one line, as the CLI prints it)
        said = " ".join(str(error).split())[:300]
        return StandingsLoaded(
            None, f"could not rank the models: {type(error).__name__}: {said} (F5 tries again)"
        )

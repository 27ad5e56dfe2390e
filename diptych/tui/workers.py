"""What the TUI's worker threads do: run, resume, estimate, analyse and report, headless.

Each function here runs in a worker thread and opens its own :class:`Store` (a Store is not
shared between threads). None touches a widget: results go back as messages through the
``post`` callable the caller hands in (``post_message`` of the app or a screen, thread-safe).

Stopping a run. Textual cannot interrupt a thread worker (``Worker.cancel`` only sets a flag),
so a run's thread gives the engine an event loop of its own and registers that loop's main task
with a :class:`JobControl`; the UI thread stops the run with ``loop.call_soon_threadsafe(
task.cancel)``. The engine then does what it does after Ctrl-C in the CLI: trials in flight are
abandoned (never half-stored), labels are derived and flags refreshed for everything that
finished, and the run is stored as ``interrupted``, ready to resume.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from textual.message import Message

from diptych.core.capabilities import Model
from diptych.core.engine import (
    Estimate,
    ModelSlot,
    RetryPolicy,
    derive_self_labels,
    estimate,
    final_status,
    probe_and_models_of,
    refresh_flags,
    run_async,
    run_fingerprint,
)
from diptych.core.errors import DiptychError
from diptych.core.plugins import get_model, get_probe
from diptych.core.probe import Probe
from diptych.core.report import write_report
from diptych.core.runview import RunView
from diptych.core.store import RunRecord, Store, open_store
from diptych.tui.messages import (
    AnalysisReady,
    JobEnded,
    JobNote,
    JobProgress,
    JobStarted,
    RunSummary,
)

Post = Callable[[Message], object]


@dataclass(frozen=True)
class RunRequest:
    """What to run, as the user gave it: names and ``key=value`` strings, as on the CLI.

    Plugins are built from these strings inside the thread that uses them, through the same
    parse path as ``diptych run`` (``get_probe`` / ``get_model``), so a model object is never
    shared between threads. ``resume`` names a stored run to finish instead.
    """

    probe: str = ""
    probe_params: tuple[str, ...] = ()
    models: tuple[tuple[str, tuple[str, ...]], ...] = ()
    concurrency: int = 16
    max_attempts: int = 6
    timeout: float | None = None
    max_cost: float | None = None
    resume: str | None = None

    @property
    def label(self) -> str:
        if self.resume is not None:
            return self.resume
        return f"{self.probe} on {', '.join(name for name, _ in self.models)}"

    def build(self, store: Store) -> tuple[Probe, list[Model], str | None]:
        """The probe, the models and the run id to continue (None: find or create the run)."""
        if self.resume is not None:
            run = store.get_run(self.resume)
            probe, models = probe_and_models_of(run)
            return probe, models, run.id
        probe = get_probe(self.probe, list(self.probe_params))
        models = [get_model(name, list(params)) for name, params in self.models]
        return probe, models, None


class JobControl:
    """The UI thread's handle on one run's event loop, safe to use from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[object] | None = None
        self._cancelled = False
        #: Set when the thread starts and when it has finished, whatever the outcome.
        self.started = threading.Event()
        self.finished = threading.Event()

    @property
    def cancel_requested(self) -> bool:
        return self._cancelled

    def attach(self, loop: asyncio.AbstractEventLoop, task: asyncio.Task[object]) -> None:
        """Called in the run's thread, from inside its main task, before the engine starts."""
        with self._lock:
            self._loop, self._task = loop, task
            if self._cancelled:
                task.cancel()

    def cancel(self) -> None:
        """Stop the run: cancel the loop's main task (once; a second cancel would interrupt
        the engine's own clean-up, which stores the run's status and derives its labels)."""
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            if self._loop is not None and self._task is not None:
                self._loop.call_soon_threadsafe(self._task.cancel)

    def detach(self) -> None:
        with self._lock:
            self._loop, self._task = None, None
        self.finished.set()


class ActiveRuns:
    """Run fingerprints being executed by this app, so one run never runs twice at once
    (both jobs would ask the models for the same pending trials and pay twice)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._active: set[str] = set()

    def claim(self, fingerprint: str) -> bool:
        with self._lock:
            if fingerprint in self._active:
                return False
            self._active.add(fingerprint)
            return True

    def release(self, fingerprint: str) -> None:
        with self._lock:
            self._active.discard(fingerprint)


class JobReporter:
    """The engine's Reporter for the TUI: every event becomes a message to the app.

    Trial outcomes are batched: one message per ``interval`` seconds at most, so a fast run of
    thousands of trials does not flood the UI's message queue.
    """

    def __init__(self, job_id: int, post: Post, interval: float = 0.1) -> None:
        self.job_id = job_id
        self.post = post
        self.interval = interval
        self.finished: Counter[str] = Counter()
        self.run_id: str | None = None
        self._last = 0.0

    def run_started(self, run: RunRecord, total: int, cached: int, to_run: int) -> None:
        self.run_id = run.id
        self.post(JobStarted(self.job_id, run.id, total, cached, to_run))

    def trial_finished(self, model_id: str, status: str, error: str | None) -> None:
        self.finished[status] += 1
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            self.post(JobProgress(self.job_id, dict(self.finished)))

    def note(self, text: str) -> None:
        self.post(JobNote(self.job_id, text))

    def run_finished(self, run: RunRecord, counts: dict[str, int]) -> None:
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
        with open_store(store_path) as store:
            probe, models, run_id = request.build(store)
            fingerprint = run_fingerprint(
                probe.bind(store), [ModelSlot.of(model).ref for model in models]
            )
            if not active.claim(fingerprint):
                post(JobEnded(job_id, run_id, "error", error="this run is already running"))
                return
            try:
                outcome = _run_in_own_loop(request, store, probe, models, run_id, reporter, control)
                run_id = reporter.run_id or run_id
                if run_id is None:
                    post(JobEnded(job_id, None, outcome))
                    return
                record = store.get_run(run_id)
                if outcome == "stopped" and record.status == "running":
                    record = _finish_stopped_run(store, record, probe)
                counts = store.status_counts(run_id)
                post(JobEnded(job_id, run_id, outcome, record.status, counts))
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
        control.detach()


def _run_in_own_loop(
    request: RunRequest,
    store: Store,
    probe: Probe,
    models: list[Model],
    run_id: str | None,
    reporter: JobReporter,
    control: JobControl,
) -> str:
    """Run the engine on an event loop owned by this thread; ``finished`` or ``stopped``."""

    async def main() -> RunRecord:
        task = asyncio.current_task()
        assert task is not None
        control.attach(asyncio.get_running_loop(), task)
        # A cancel that came before the loop existed lands here, before anything is planned.
        await asyncio.sleep(0)
        return await run_async(
            store,
            probe,
            models,
            reporter=reporter,
            retry=RetryPolicy(max_attempts=request.max_attempts, timeout=request.timeout),
            concurrency=request.concurrency,
            run_id=run_id,
            max_cost=request.max_cost,
        )

    with asyncio.Runner() as runner:
        try:
            runner.run(main())
        except asyncio.CancelledError:
            return "stopped"
    return "finished"


def _finish_stopped_run(store: Store, run: RunRecord, probe: Probe) -> RunRecord:
    """The engine's own clean-up, for a stop that landed while it was cleaning up.

    The engine stores a run's final status, labels and flags in a ``finally`` block; a cancel
    that arrives while that block awaits (closing a model's client) ends it early and leaves
    the run stored as ``running``. Each step is idempotent, so doing them again is safe.
    """
    bound = probe.bind(store)
    derive_self_labels(store, run, bound)
    refresh_flags(store, run.id, bound)
    store.set_run_status(run.id, final_status(store.status_counts(run.id)))
    return store.get_run(run.id)


# --- reading the store ----------------------------------------------------------------------


def load_runs(store_path: Path) -> list[RunSummary]:
    """Every run of the workspace with its outcome counts and number of review flags."""
    with open_store(store_path) as store:
        return [
            RunSummary(run, store.status_counts(run.id), len(store.flags(run.id)))
            for run in store.list_runs()
        ]


def estimate_request(store_path: Path, request: RunRequest) -> Estimate:
    """The dry run of a request: trials planned, already stored, to run, and their price."""
    with open_store(store_path) as store:
        probe, models, _ = request.build(store)
        return estimate(store, probe, models)


def analyze_run(store_path: Path, run_id: str) -> AnalysisReady:
    """The probe's analysis of a stored run, with its counts and flags."""
    with open_store(store_path) as store:
        run = store.get_run(run_id)
        counts = store.status_counts(run.id)
        flagged = len(store.flags(run.id))
        try:
            probe = get_probe(run.probe, run.params)
            result = probe.analyze(RunView(store, run))
        except DiptychError as error:
            return AnalysisReady(run, counts, flagged, None, str(error))
        return AnalysisReady(run, counts, flagged, result)


def write_run_report(store_path: Path, run_id: str, out_dir: Path) -> Path:
    """Write ``report.md``, ``report.json`` and the figures of a run; return the Markdown path."""
    with open_store(store_path) as store:
        run = store.get_run(run_id)
        probe = get_probe(run.probe, run.params)
        view = RunView(store, run)
        return write_report(view, probe, probe.analyze(view), out_dir)

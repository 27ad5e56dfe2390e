"""Runs the app executes in the background, as the screens see them.

A screen asks the app to start, pause or stop a run and reads the state of the runs going on
through :class:`JobHost`, the part of the app a screen may use; screens never import the app
itself, so the app can import every screen.

Stopping a run. Textual cannot interrupt a thread worker (``Worker.cancel`` only sets a flag),
so a run's thread gives the Workspace an event loop of its own and registers that loop's main
task with a :class:`JobControl`; the UI thread stops the run with ``loop.call_soon_threadsafe(
task.cancel)``. The Workspace then does what it does after Ctrl-C in the CLI: trials in flight
are abandoned (never half-stored), labels are derived and flags refreshed for everything that
finished, and the run is stored as ``interrupted``, ready to resume.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from diptych.core.workspace import RetryPolicy, RunOptions

if TYPE_CHECKING:
    from textual.worker import Worker


@dataclass(frozen=True)
class RunRequest:
    """What to run, as the user gave it: names and ``key=value`` strings, as on the CLI.

    Plugins are built from these strings inside the thread that uses them, through the same
    parse path as ``diptych run``, so a model object is never shared between threads.
    ``resume`` names a stored run to finish instead.
    """

    probe: str = ""
    probe_params: tuple[str, ...] = ()
    models: tuple[tuple[str, tuple[str, ...]], ...] = ()
    concurrency: int = 16
    max_attempts: int = 6
    timeout: float | None = None
    max_cost: float | None = None
    max_retry_wait: float = 300.0
    paid_retries: int = 0
    #: Planning only (``--target-width``): the estimate names the smallest design reaching it.
    target_width: float | None = None
    resume: str | None = None

    @property
    def label(self) -> str:
        if self.resume is not None:
            return self.resume
        return f"{self.probe} on {', '.join(name for name, _ in self.models)}"

    def options(self) -> RunOptions:
        """How the Workspace is to run it (``diptych run``'s options of the same names)."""
        return RunOptions(
            concurrency=self.concurrency,
            retry=RetryPolicy(
                max_attempts=self.max_attempts,
                timeout=self.timeout,
                max_retry_wait=self.max_retry_wait,
            ),
            max_cost=self.max_cost,
            paid_retries=self.paid_retries,
        )


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
        """Called in the run's thread, from inside its main task, before the run starts."""
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
                # Its loop closed as the run ended, before the thread detached: nothing to stop.
                with contextlib.suppress(RuntimeError):
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


@dataclass
class JobState:
    """A run executing (or just executed) in this app, as the UI sees it."""

    id: int
    request: RunRequest
    control: JobControl = field(default_factory=JobControl)
    worker: Worker[None] | None = None
    run_id: str | None = None
    total: int = 0
    cached: int = 0
    to_run: int = 0
    finished: dict[str, int] = field(default_factory=dict)
    #: starting, running, pausing, stopping or ended.
    state: str = "starting"
    #: Why it was stopped: ``pause``, ``cancel`` or ``quit``.
    stop_reason: str | None = None
    note: str = ""
    error: str | None = None
    #: ``time.monotonic()`` when the engine started executing it (for its rate).
    started_at: float | None = None

    @property
    def active(self) -> bool:
        return self.state != "ended"

    @property
    def n_finished(self) -> int:
        return sum(self.finished.values())

    @property
    def label(self) -> str:
        return self.run_id or self.request.label


@runtime_checkable
class JobHost(Protocol):
    """What a screen may ask of the app: its workspace, and the runs it executes."""

    #: The workspace directory, absolute: every worker thread opens its own Workspace there.
    store_path: Path
    #: Seconds between re-reads of the workspace by the Runs screen.
    refresh_interval: float
    jobs: dict[int, JobState]
    #: Runs paused in this session: stored as ``interrupted``, shown as ``paused``.
    paused: set[str]
    #: Other work buying trials on a loop of its own (an audit run from the Audit screen):
    #: quitting stops it as it stops the runs, before the app exits (UI thread only).
    stoppable: set[JobControl]

    @property
    def active_jobs(self) -> list[JobState]: ...

    def start_run(self, request: RunRequest) -> JobState: ...

    def job_for_run(self, run_id: str) -> JobState | None: ...

    def stop_job(self, job: JobState, reason: str) -> None: ...


def job_host(app: object) -> JobHost:
    """``app`` as the host of runs a screen talks to (the screen's ``self.app``)."""
    if not isinstance(app, JobHost):
        raise TypeError(f"{type(app).__name__} does not execute runs; open this screen in it")
    return app

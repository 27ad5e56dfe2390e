"""The diptych app: the Runs screen first, runs executing in the background.

The app owns the runs being executed (:class:`JobState`, touched only on the UI thread) so that
they go on while the user moves between screens; screens reach them through the app's
:class:`~diptych.tui.jobs.JobHost` side and hear about changes through a :class:`JobsChanged`
message. Quitting stops every run cleanly and waits for its thread, so every finished trial is
stored and the run is left ``interrupted``, ready to resume.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from textual import events, on
from textual.actions import ActionParseResult
from textual.app import App
from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widget import Widget

from diptych.core.audit.run_status import outcome_words
from diptych.tui.formatting import path_in_width
from diptych.tui.jobs import ActiveRuns, JobControl, JobState, RunRequest
from diptych.tui.messages import JobEnded, JobNote, JobProgress, JobsChanged, JobStarted
from diptych.tui.screens.agent.screen import AgentScreen
from diptych.tui.screens.audit import AuditScreen
from diptych.tui.screens.runs.screen import RunsScreen
from diptych.tui.widgets.said import SaidLine, say
from diptych.tui.workers import execute_job

#: How long quitting waits for runs to store their clean-up before giving up (seconds). A
#: blocking local model finishes the call it is in first.
STOP_TIMEOUT = 60.0


class DiptychApp(App[None]):
    """Audit generative models for social bias: runs, results and review."""

    CSS_PATH = "app.tcss"
    TITLE = "diptych"
    # The Runs screen is home. (A mode rather than get_default_screen(), whose screen would
    # not get its CSS_PATH loaded.)
    MODES: ClassVar[dict[str, str | Callable[[], Screen[Any]]]] = {"runs": RunsScreen}
    # Installed once: an agent session goes on while the user looks at other screens.
    SCREENS: ClassVar[dict[str, Callable[[], Screen[Any]]]] = {
        "agent": AgentScreen,
        "audit": AuditScreen,
    }
    DEFAULT_MODE = "runs"
    # Every action has a key listed on the help screen; the palette would be a second,
    # differently organised way to the same actions.
    ENABLE_COMMAND_PALETTE = False
    # Screens narrower than 70 columns get the ``-narrow`` class: layouts give up side room.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (70, "-wide")]
    # Only the keys that mean the same on every screen: a letter a screen needs for itself
    # (the Agent screen's a Accept) is not the app's. The Runs screen, home, opens the others.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark,f1", "help", "Help"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self, store_path: Path, *, refresh_interval: float = 1.0) -> None:
        super().__init__()
        # Absolute, so that every worker thread opens this workspace whatever the process's
        # working directory is when it runs; the header shows the path as the user gave it.
        self.store_path = Path(store_path).resolve()
        #: Seconds between re-reads of the store by the Runs screen (another process, e.g.
        #: ``diptych run`` in a second terminal, may be writing to the same workspace).
        self.refresh_interval = refresh_interval
        self.jobs: dict[int, JobState] = {}
        #: Runs paused in this session: stored as ``interrupted``, shown as ``paused``.
        self.paused: set[str] = set()
        #: Audits run from the Audit screen, each on a loop of its own: quitting stops them.
        self.stoppable: set[JobControl] = set()
        self._active_runs = ActiveRuns()
        self._next_job = 1
        self._shown_path = str(store_path)
        self.sub_title = self._shown_path
        # The plugins load in the Runs screen's first read of the workspace, off the UI
        # thread, so that the first frame is drawn at once; their loading takes a lock, so a
        # screen asking for them meanwhile waits for that load rather than racing it.

    @staticmethod
    def _unsay(screen: Screen[Any]) -> None:
        for line in screen.query(SaidLine):
            line.unsay_all()

    async def run_action(
        self,
        action: str | ActionParseResult,
        default_namespace: DOMNode | None = None,
        namespaces: Mapping[str, DOMNode] | None = None,
    ) -> bool:
        # The line says what the last action did: the next one takes it back (a "no run
        # selected" stayed under a run that u had started since), and says its own, if any.
        self._unsay(self.screen)
        return await super().run_action(action, default_namespace, namespaces)

    def on_resize(self, event: events.Resize) -> None:
        # The header centres "diptych — PATH" between its icon and its edge: a long path keeps
        # its end (the workspace's own folders), never a cut number at its start.
        self.sub_title = path_in_width(self._shown_path, event.size.width - 26)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Say ``message`` on the screen's own line above its footer (:mod:`~diptych.tui.
        widgets.said`), never in a toast: a toast was drawn over the values, buttons and
        fields in the screen's bottom right corner."""
        if threading.get_ident() != self._thread_id:
            self.call_from_thread(
                self.notify, message, title=title, severity=severity, timeout=timeout
            )
            return
        if not self.screen_stack:
            # Quitting, its screens gone: a run that ended meanwhile has no one to tell.
            return
        screen = self.screen
        seconds = self.NOTIFICATION_TIMEOUT if timeout is None else timeout
        if type(screen).notify is not Widget.notify:
            # A screen that says things its own way (Review, above its figures).
            screen.notify(message, title=title, severity=severity, timeout=seconds)
            return
        say(screen, message, title=title, severity=severity, timeout=seconds)

    # --- runs -----------------------------------------------------------------------------

    def start_run(self, request: RunRequest) -> JobState:
        """Execute ``request`` in a thread worker of its own; progress comes as messages."""
        job = JobState(self._next_job, request)
        self._next_job += 1
        self.jobs[job.id] = job
        if request.resume is not None:
            job.run_id = request.resume
            self.paused.discard(request.resume)
        # One group per job: ``exclusive`` then guards a job against a second start of itself
        # without cancelling the other runs, which may go on side by side. (Cancelling a thread
        # worker would not stop its thread anyway; JobControl does that.)
        job.worker = self.run_worker(
            partial(
                execute_job,
                job.id,
                request,
                self.store_path,
                job.control,
                self._active_runs,
                self.post_message,
            ),
            name=f"run {job.label}",
            group=f"run-{job.id}",
            thread=True,
            exclusive=True,
            exit_on_error=False,
        )
        self._jobs_changed()
        return job

    def job_for_run(self, run_id: str) -> JobState | None:
        """The job executing ``run_id`` now, if any."""
        for job in self.jobs.values():
            if job.active and job.run_id == run_id:
                return job
        return None

    @property
    def active_jobs(self) -> list[JobState]:
        return [job for job in self.jobs.values() if job.active]

    def stop_job(self, job: JobState, reason: str) -> None:
        """Stop a job (``pause``, ``stop`` or ``quit``): no new trial starts, finished ones
        are kept."""
        if not job.active or job.stop_reason is not None:
            return
        job.stop_reason = reason
        job.state = "pausing" if reason == "pause" else "stopping"
        job.control.cancel()
        self._jobs_changed()

    def _running_other(self) -> list[JobControl]:
        """The audits of the Audit screen still buying (their threads not yet ended)."""
        return [c for c in self.stoppable if c.started.is_set() and not c.finished.is_set()]

    async def stop_all_jobs(self, timeout: float = STOP_TIMEOUT) -> None:
        """Stop every job and every audit, and wait until each thread has stored its run's
        status."""
        jobs = self.active_jobs
        for job in jobs:
            self.stop_job(job, "quit")
        others = self._running_other()
        for control in others:
            control.cancel()
        controls = [job.control for job in jobs] + others

        def wait() -> None:
            for control in controls:
                control.finished.wait(timeout)

        if controls:
            # Waiting happens off the UI thread so the screen keeps drawing meanwhile.
            await asyncio.to_thread(wait)

    async def action_quit(self) -> None:
        # A run left buying would hold the process open, the terminal blank, until it ended.
        running = len(self.active_jobs) + len(self._running_other())
        if running:
            self.notify(
                "stopping the run; its trials so far are kept"
                if running == 1
                else f"stopping {running:,} runs; their trials so far are kept"
            )
            await self.stop_all_jobs()
        self.exit()

    def on_unmount(self) -> None:
        # The safety net for an exit that did not come through action_quit: an unstopped run
        # would hold the process open until it finished, spending money no one watches.
        for job in self.active_jobs:
            job.control.cancel()
        for control in self.stoppable:
            control.cancel()
        for control in [job.control for job in self.jobs.values()] + list(self.stoppable):
            # A job whose thread never started has nothing to wait for.
            if control.started.is_set():
                control.finished.wait(STOP_TIMEOUT)

    # --- messages from the run threads ----------------------------------------------------

    @on(JobStarted)
    def _job_started(self, message: JobStarted) -> None:
        job = self.jobs[message.job_id]
        job.run_id = message.run_id
        job.total, job.cached, job.to_run = message.total, message.cached, message.to_run
        job.started_at = time.monotonic()
        if job.state == "starting":
            job.state = "running"
        self.paused.discard(message.run_id)
        self._jobs_changed()

    @on(JobProgress)
    def _job_progress(self, message: JobProgress) -> None:
        self.jobs[message.job_id].finished = message.finished
        self._jobs_changed()

    @on(JobNote)
    def _job_note(self, message: JobNote) -> None:
        self.jobs[message.job_id].note = message.text
        self._jobs_changed()

    @on(JobEnded)
    def _job_ended(self, message: JobEnded) -> None:
        job = self.jobs[message.job_id]
        job.state = "ended"
        job.error = message.error
        if message.run_id is not None:
            job.run_id = message.run_id
        if message.outcome == "error":
            self.notify(f"{job.label}: {message.error}", title="run failed", severity="error")
        elif message.outcome == "stopped":
            if job.stop_reason == "pause" and job.run_id is not None:
                self.paused.add(job.run_id)
            verb = "paused" if job.stop_reason == "pause" else "stopped"
            left = message.counts.get("pending", 0)
            self.notify(f"{job.label} {verb}: {left:,} trials left (u resumes)")
        else:
            words = outcome_words(message.status or "", message.counts)
            summary = ", ".join(f"{n:,} {k}" for k, n in words.items() if n)
            self.notify(f"{job.label} {message.status}: {summary}")
        self._jobs_changed()

    def _jobs_changed(self) -> None:
        for screen in self.screen_stack:
            screen.post_message(JobsChanged())

    # --- navigation -----------------------------------------------------------------------

    def action_help(self) -> None:
        from diptych.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            # A screen may say which of its keys do not apply to what it shows.
            notes = getattr(self.screen, "help_notes", None)
            self.push_screen(HelpScreen(type(self.screen), notes() if callable(notes) else None))

"""The Runs screen's agent-session rows: a session's row adds up its runs (those it made and
those it reused, each once: :class:`~diptych.core.workspace.search_runs.SearchRuns`, as
``diptych runs`` and ``show`` count them), the line under the table says what it holds, and each
key that acts on one run says, on a session's row, what to use instead."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.message import Message

from diptych.core.report.formatting import counted
from diptych.core.workspace import RunSummary
from diptych.core.workspace.search_runs import SearchRuns
from diptych.core.workspace.sessions import session_label, session_status
from diptych.tui.formatting import clip, percent
from diptych.tui.jobs import JobState
from diptych.tui.screens.runs.controls import RunControls
from diptych.tui.screens.runs.rows import SESSION_KEY, STATUS_STYLE, model_ids, session_members
from diptych.tui.widgets.said import say

#: What a key that acts on one run does on a session's row instead (u: :meth:`_session_resume`).
ON_A_SESSION = {
    "pause": "p pauses one run: enter lists this session's runs under it, p on a running one",
    "stop": "c stops one run: enter lists this session's runs under it, c on a running one",
    "review": "r reviews one run's flags: enter lists this session's runs, r on one of them",
}


@dataclass
class SessionResumeSaid(Message):
    """What resumes the agent session ``session`` (``diptych resume SESSION``'s words)."""

    session: str
    text: str


class SessionRows(RunControls):
    """The rows of agent sessions, their line under the table and their keys."""

    #: Each agent search's runs and trials, as the workspace counts them (the screen loads them).
    searches: dict[str, SearchRuns]
    #: Sessions whose runs are shown under their row; ``e`` shows every session's.
    expanded: set[str]
    all_session_runs: bool
    _run_width: int
    _probe_width: int
    _models_width: int
    #: What ``u`` said of a session's row (the session, the words), shown under the table.
    _resume_said: tuple[str, str] | None = None
    #: Whether a session whose runs differ in status says "mixed" in its row (a narrow
    #: terminal: the line under the table says the rest), keeping ref, fail and flag in view.
    short_session_status = False

    def _status(self, row: RunSummary, job: JobState | None) -> str:
        raise NotImplementedError

    def _show(self) -> None:
        raise NotImplementedError

    def _show_run_line(self) -> None:
        raise NotImplementedError

    def current_session(self) -> str | None:
        key = self._current_key() or ""
        return key.removeprefix(SESSION_KEY) if key.startswith(SESSION_KEY) else None

    def session_search(self, session: str) -> SearchRuns:
        """The session's runs and trials, each once (none yet: nothing loaded)."""
        return self.searches.get(session) or SearchRuns(session, (), 0)

    def _runs_status(self, session: str) -> str:
        """Its runs' statuses, the most runs first ("4 complete, 1 stale")."""
        runs = self.session_search(session).runs
        return session_status(self._status(r, self.diptych.job_for_run(r.run.id)) for r in runs)

    def _session_status(self, session: str) -> str:
        status = self._runs_status(session)
        return "mixed" if self.short_session_status and "," in status else status

    def _session_cells(self, session: str) -> list[str | Text]:
        search = self.session_search(session)
        runs = list(search.runs)
        status = self._session_status(session)
        opened = self.all_session_runs or session in self.expanded
        return [
            clip(("▾ " if opened else "▸ ") + session_label(session), self._run_width),
            clip(", ".join(dict.fromkeys(r.run.probe for r in runs)), self._probe_width),
            clip(
                f"{counted(len(runs), 'run')}: "
                + ", ".join(dict.fromkeys(m for r in runs for m in model_ids(r).split(", "))),
                self._models_width,
            ),
            Text(status, style=STATUS_STYLE.get(status, "")),
            # Finished as a run's progress counts it: answered or refused (a failed trial is
            # asked again on resume, so a session whose trials failed never reads complete).
            Text(percent(search.finished, search.trials), justify="right"),
            *(Text(f"{search.total(k):,}", justify="right") for k in ("done", "refused", "failed")),
            Text(f"{search.flagged:,}", justify="right"),
        ]

    def _session_line(self, session: str) -> str:
        search = self.session_search(session)
        opened = self.all_session_runs or session in self.expanded
        every = "hides" if self.all_session_runs else "shows"
        # The runs it reused stand where they were made (each run has one row).
        reused = f" ({search.reused:,} reused, listed where made)" if search.reused else ""
        # A line each, short enough for 60 columns: the id (what `diptych show` takes), the
        # counts, the keys; a phrase never parted over two rows.
        status = self._runs_status(session)
        mixed = f"{status} · " if self._session_status(session) != status else ""
        line = (
            f"agent session {session}\n{mixed}{counted(len(search.runs), 'run')}{reused} · "
            f"{search.total('done'):,} of {counted(search.trials, 'trial')} done\n"
            + ("enter hides its runs" if opened else "enter shows its runs")
            + f" · e {every} every session's runs"
        )
        said = self._resume_said
        if said is not None and said[0] == session:
            line += f"\n{said[1]}"
        return line

    # --- keys on a session's row ----------------------------------------------------------

    def _on_session_row(self, action: str) -> bool:
        """Whether the cursor is on a session's row, where ``action`` (resume, pause, stop,
        review: keys for one run) was answered with what to use instead."""
        session = self.current_session()
        if session is None:
            return False
        if action == "resume":
            self._session_resume(self.diptych.store_path, session)
        else:
            say(self, ON_A_SESSION[action])
        return True

    def action_resume(self) -> None:
        if not self._on_session_row("resume"):
            super().action_resume()

    def action_pause(self) -> None:
        if not self._on_session_row("pause"):
            super().action_pause()

    def action_stop(self) -> None:
        if not self._on_session_row("stop"):
            super().action_stop()

    def action_review(self) -> None:
        if not self._on_session_row("review"):
            super().action_review()

    @work(thread=True, exclusive=True, exit_on_error=False, group="runs-session-resume")
    def _session_resume(self, store_path: Path, session: str) -> None:
        # The words `diptych resume SESSION` says: one source for the command to use.
        from diptych.audit.again import not_a_run
        from diptych.core.workspace import Workspace

        with Workspace.open(store_path) as ws:
            detail = ws.runs.session(session)
            said = not_a_run(ws, detail, session_label(session), "resume")
        self.post_message(SessionResumeSaid(session, said))

    @on(SessionResumeSaid)
    def _resume_shown(self, message: SessionResumeSaid) -> None:
        """Under the table, wrapped between words (a toast's three rows cut the command)."""
        said = (message.session, f"u: {message.text}")
        if said == self._resume_said and self.current_session() == message.session:
            say(self, "u: what resumes this session is said under the table, whole.")
        self._resume_said = said
        self._show_run_line()

    def action_session_runs(self) -> None:
        """Show every agent session's runs under its row, or hide them all again."""
        if not session_members(self.rows):
            say(self, "No agent session has made a run here: every run is in the list already.")
            return
        self.all_session_runs = not self.all_session_runs
        if not self.all_session_runs:
            self.expanded.clear()
        self._show()

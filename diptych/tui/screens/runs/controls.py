"""The Runs screen's keys that act on the highlighted run or open a screen from it: new run,
resume, pause, stop, review and the plugins; each says why when it cannot act."""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.screen import Screen

from diptych.core.workspace import RunSummary
from diptych.tui.jobs import JobHost, RunRequest, job_host
from diptych.tui.messages import LastRequestLoaded, LookedResumeAsked, RestEstimated, RunHolder
from diptych.tui.widgets.said import said_line, say
from diptych.tui.widgets.tables import ListTable
from diptych.tui.workers import last_request, remember_request, rest_of_decided_run

#: What n says while New run is being opened.
OPENING_NEW_RUN = "opening New run…"


class RunControls(Screen[None]):
    """The highlighted run of the Runs table, and what its keys do to it (the table itself is
    :class:`~diptych.tui.screens.runs.screen.RunsScreen`'s)."""

    #: The rows shown, by run id (the Runs screen loads them).
    rows: dict[str, RunSummary]
    #: A run to put the cursor on once it appears (the one just started).
    _follow_job: int | None = None
    #: Reads of the workspace whose rows are drawn (none: the first is still under way).
    loads_shown: int = 0

    @property
    def diptych(self) -> JobHost:
        return job_host(self.app)

    def _current_key(self) -> str | None:
        table = self.query_one(ListTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return None if key is None else str(key)

    def current_run_id(self) -> str | None:
        key = self._current_key()
        return key if key in self.rows else None

    def _current(self) -> RunSummary | None:
        run_id = self.current_run_id()
        if run_id is None:
            self.notify(self._why_no_run(), severity="warning")
            return None
        return self.rows[run_id]

    def _why_no_run(self) -> str:
        """Why a key that acts on the highlighted run finds none: the runs are not read yet,
        there are none, or none is highlighted."""
        if not self.loads_shown:
            return "the workspace is still being read: its runs are listed in a moment"
        if not self.rows:
            return "no run yet: n starts one"
        return "no run selected"

    # --- what the keys can do on the highlighted run ----------------------------------------

    def footer_labels(self) -> dict[str, str | None]:
        """u, p and c as the highlighted run takes them (widgets/footer.py): only a run that
        runs can be paused or stopped, only one that stopped short can be resumed; a key
        left out says why when pressed."""
        row = self.rows.get(self.current_run_id() or "")
        if row is None:
            return {"resume": None, "pause": None, "stop": None}
        running = self.diptych.job_for_run(row.run.id) is not None or row.run.status == "running"
        done = row.run.status == "complete"  # a decided run's u buys the rest of it
        return {
            "resume": None if running or done else "Resume",
            "pause": "Pause" if running else None,
            "stop": "Stop" if running else None,
        }

    def _not_running(self, run: RunSummary, verb: str) -> None:
        """Pause or stop pressed on a run that does not run: why, in one line."""
        status = run.run.status
        if status == "complete":
            self.notify(f"{run.run.id} is not running ({status}): nothing to {verb}")
        elif status == "decided":
            # Where it was decided and what u buys, priced: u asks before buying the rest.
            self._estimate_rest(self.diptych.store_path, run.run.id, ask=False)
        else:
            self.notify(f"{run.run.id} is not running ({status}): u resumes it")

    # --- actions --------------------------------------------------------------------------

    #: Whether n was pressed and New run is still being opened: a second n waits for it.
    _opening_new_run: bool = False

    def action_new_run(self) -> None:
        # Said at once: reading the last request and building the screen take seconds on a
        # slow machine, and a key that shows nothing for that long is pressed again.
        say(self, OPENING_NEW_RUN, about="new-run")
        if self._opening_new_run:
            return
        self._opening_new_run = True
        self._recall(self.diptych.store_path)

    @work(thread=True, exclusive=True, exit_on_error=False, group="runs-recall")
    def _recall(self, store_path: Path) -> None:
        self.post_message(LastRequestLoaded(last_request(store_path)))

    @on(LastRequestLoaded)
    def _open_new_run(self, message: LastRequestLoaded) -> None:
        from diptych.tui.screens.new_run.screen import NewRunScreen

        try:
            self.app.push_screen(NewRunScreen(last=message.last), self._start)
        finally:
            self._opening_new_run = False
            said_line(self).unsay("new-run")

    def _start(self, request: RunRequest | None) -> None:
        if request is not None:
            self._follow_job = self.diptych.start_run(request).id
            self._remember(self.diptych.store_path, request)

    @work(thread=True, exit_on_error=False, group="runs-remember")
    def _remember(self, store_path: Path, request: RunRequest) -> None:
        remember_request(store_path, request)

    def action_resume(self) -> None:
        row = self._current()
        if row is None:
            return
        run = row.run
        if self.diptych.job_for_run(run.id) is not None:
            self.notify(f"{run.id} is running already")
            return
        if run.status == "complete":
            self.notify(f"{run.id} is complete: nothing to resume")
            return
        if run.status == "over-budget":
            # Resuming here would run without any budget; the CLI takes a new allowance.
            self.notify(
                f"{run.id} stopped at its budget: diptych resume {run.id} --max-cost USD "
                "continues with a new allowance",
                severity="warning",
            )
            return
        if run.status == "running":
            # A live lease: another diptych process executes it now.
            self._holder(self.diptych.store_path, run.id, "resume")
            return
        if run.status == "decided":
            # Its gates were decided: the rest is bought on purpose, once its cost is said.
            self._estimate_rest(self.diptych.store_path, run.id)
            return
        if run.id in self.diptych.paused:
            # Paused here: p or u goes on with what this app was running.
            self._follow_job = self.diptych.start_run(RunRequest(resume=run.id)).id
            return
        # A run an audit buys look by look is asked about first, as diptych resume asks.
        self._ask_looked(self.diptych.store_path, run.id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="runs-looked")
    def _ask_looked(self, store_path: Path, run_id: str) -> None:
        from diptych.audit.again import looked_question
        from diptych.core.workspace import Workspace

        with Workspace.open(store_path) as ws:
            text = looked_question(ws, run_id)
        self.post_message(LookedResumeAsked(run_id, text))

    @on(LookedResumeAsked)
    def _resume_looked(self, message: LookedResumeAsked) -> None:
        """Resume the run, or, where its audit buys it look by look, ask before buying its
        whole design (Cancel is the default: Enter buys nothing)."""
        from diptych.tui.screens.runs.confirm import ConfirmLookedResume

        def answered(buy: bool | None) -> None:
            if buy and self.diptych.job_for_run(message.run_id) is None:
                self._follow_job = self.diptych.start_run(RunRequest(resume=message.run_id)).id

        if message.text is None:
            answered(True)
        else:
            self.app.push_screen(ConfirmLookedResume(message.text), answered)

    @work(thread=True, exclusive=True, exit_on_error=False, group="runs-rest")
    def _estimate_rest(self, store_path: Path, run_id: str, ask: bool = True) -> None:
        said = rest_of_decided_run(store_path, run_id, ask)
        self.post_message(RestEstimated(run_id, said, ask))

    @on(RestEstimated)
    def _ask_rest(self, message: RestEstimated) -> None:
        from diptych.tui.screens.runs.confirm import ConfirmResume

        if not message.ask:
            self.notify(message.text)
            return

        def answered(buy: bool | None) -> None:
            if buy and self.diptych.job_for_run(message.run_id) is None:
                self._follow_job = self.diptych.start_run(RunRequest(resume=message.run_id)).id

        self.app.push_screen(ConfirmResume(message.text), answered)

    def action_pause(self) -> None:
        """Pause a running run (it stops taking new trials); on a paused run, go on."""
        row = self._current()
        if row is None:
            return
        job = self.diptych.job_for_run(row.run.id)
        if job is not None:
            self.diptych.stop_job(job, "pause")
        elif row.run.id in self.diptych.paused:
            self.action_resume()  # paused here: p again goes on
        elif row.run.status == "running":
            self._holder(self.diptych.store_path, row.run.id, "pause")
        else:
            self._not_running(row, "pause")

    def action_stop(self) -> None:
        """Stop a running run: no new trial starts, those finished are kept and u resumes
        it (as Ctrl-C stops ``diptych run``); it is stored as interrupted."""
        row = self._current()
        if row is None:
            return
        job = self.diptych.job_for_run(row.run.id)
        if job is None and row.run.status == "running":
            self._holder(self.diptych.store_path, row.run.id, "stop")
            return
        if job is None:
            self._not_running(row, "stop")
            return
        self.diptych.stop_job(job, "stop")

    @work(thread=True, exit_on_error=False, group="runs-holder")
    def _holder(self, store_path: Path, run_id: str, verb: str) -> None:
        from diptych.core.workspace import Workspace

        with Workspace.open(store_path) as ws:
            lease = ws.runs.lease(run_id)
        holder = None if lease is None else (lease.pid, lease.host, lease.describe())
        self.post_message(RunHolder(run_id, verb, holder))

    @on(RunHolder)
    def _say_holder(self, message: RunHolder) -> None:
        """A run another process executes (``diptych run`` in a shell, say) is that
        process's to stop: this app holds no handle on its calls. Say where it runs and how
        it is stopped so that every finished trial is kept (Ctrl-C there, or SIGINT)."""
        run_id = message.run_id
        if message.holder is None:
            self.notify(f"{run_id} is not running now (its process has just ended)")
            return
        pid, host, described = message.holder
        stop = f"press Ctrl-C where it runs (or kill -INT {pid} on {host})"
        after = "; then u resumes it here" if message.verb != "stop" else ""
        self.notify(
            f"cannot {message.verb} {run_id} from here: another diptych process runs it "
            f"({described}). To stop it, {stop}: it stops as interrupted, every finished trial "
            f"kept{after}.",
            severity="warning",
            timeout=12,
        )

    def action_review(self) -> None:
        row = self._current()
        if row is None:
            return
        try:
            # Imported here: the Review screen is written separately and may be absent.
            from diptych.tui.review.screen import ReviewScreen
            from diptych.tui.review.view import open_review
        except ImportError as error:
            self.notify(f"the Review screen is not available ({error})", severity="error")
            return
        open_review(self.app, ReviewScreen(self.diptych.store_path, row.run.id))

    def action_plugins(self) -> None:
        from diptych.tui.screens.plugins import PluginsScreen

        self.app.push_screen(PluginsScreen())

    def action_standings(self) -> None:
        from diptych.tui.screens.standings import StandingsScreen

        self.app.push_screen(StandingsScreen(self.diptych.store_path))

"""The Audit screen's run of its audit, headless in a thread worker: the plan again as the store
holds it when the run starts (another terminal may have bought on since the file was opened),
each part's status as the audit tells it, the running part's counts refreshed from the store as
the engine stores its trials, and the rows as the audit recorded its parts at the end.

Nothing here touches a widget: the screen draws the messages posted to it
(:mod:`~diptych.tui.screens.audit.messages`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from textual.message import Message

from diptych.agent.audit_search import plan_placebos
from diptych.audit import AuditPlan, plan_audit, run_audit
from diptych.audit.sequential import part_status_words
from diptych.audit.status_words import NOT_RUN, WAITING, audit_words
from diptych.core.audit.record import AuditRecord
from diptych.core.audit.sequential import PartLooks
from diptych.core.errors import DiptychError
from diptych.core.report.gates import gate_lines
from diptych.core.workspace import RunRecord, Workspace
from diptych.tui.jobs import JobControl
from diptych.tui.screens.audit.decided import look_note, part_news, stopped_words
from diptych.tui.screens.audit.messages import (
    AuditFailed,
    AuditFinished,
    AuditGates,
    AuditPartChanged,
    AuditReplanned,
)
from diptych.tui.screens.audit.rows import look_of, recorded_words, runs_said
from diptych.tui.workers import run_stoppable


class AuditHost(Protocol):
    """What the run needs of the Audit screen: its workspace, its plan, where to post what it
    hears, and how it decides the gates at the end."""

    plan: AuditPlan | None

    @property
    def store_path(self) -> Path: ...

    def post_message(self, message: Message) -> bool: ...

    def gates_for(self, file: Path | AuditRecord, plan: AuditPlan, recorded: bool) -> None: ...


#: How often, at most, a running part's counts are read again from the store (seconds): a
#: plan reads every part's stored trials, so not at every trial of a fast model.
REFRESH_EVERY = 2.0


class StoreProgress:
    """The engine's Reporter for the Audit screen's run: each trial told marks the store as
    moved, and a ticker thread, every ``interval`` seconds while it has moved, calls
    ``refresh`` (the plan read again from the store), then once more after it stops moving (a
    batched call stores its trials after it tells them). Never from the engine's thread: a
    plan of a large design is not cheap."""

    def __init__(self, refresh: Callable[[], None], interval: float | None = None) -> None:
        self.refresh = refresh
        self.interval = REFRESH_EVERY if interval is None else interval
        self._told = 0
        self._read = 0
        self._trailing = False
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick, daemon=True, name="audit-progress")

    def __enter__(self) -> StoreProgress:
        self._ticker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        # A read under way ends first: posted after the run's own last read, it would draw
        # counts older than those.
        self._ticker.join(timeout=60)

    def run_started(self, run: RunRecord, total: int, cached: int, to_run: int) -> None:
        self._told += 1

    def trial_finished(self, model_id: str, status: str, error: str | None) -> None:
        self._told += 1

    def note(self, text: str) -> None:
        pass

    def run_finished(self, run: RunRecord, counts: dict[str, int]) -> None:
        self._told += 1

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            told = self._told
            if told == self._read and not self._trailing:
                continue
            # Moved since the last read: read again, and once more after it stops moving.
            self._trailing = told != self._read
            self._read = told
            self.refresh()


def buy(screen: AuditHost, file: Path | AuditRecord, control: JobControl, until: bool) -> None:
    """Run the audit ``file`` to its end or until ``control`` stops it (thread body), telling
    ``screen`` each part's status and counts as they change (``until``: bought batch by batch
    until its gates are decided)."""
    store_path = screen.store_path

    def post(message: Message) -> None:
        # Posted, never waited on: the app may be waiting for this thread as it quits.
        screen.post_message(message)

    def replan() -> None:
        try:
            with Workspace.open(store_path) as ws:
                post(AuditReplanned(plan_placebos(ws, plan_audit(ws, file))))
        except DiptychError:
            pass  # the rows keep the counts they had; the next read or the run's end says more

    # The counts as stored now, not as they were when the file was opened.
    replan()
    last_said: dict[str, tuple[str, str]] = {}
    # Bought until decided, the parts a gate reads are bought in turn, the others never by
    # this run: a part not reached yet reads "waiting" or "not run" by that, from its first
    # word to the last, never the one then the other as other parts' batches come and go.
    gates = screen.plan.audit.gates if until and screen.plan is not None else None
    gated = {g.part for g in gates.checks} if gates is not None else set()

    def unrecorded(heard: str) -> dict[str, str]:
        """The parts not heard of yet that no run recorded, in ``diptych audit list``'s words
        now: "waiting" behind the part ``heard`` of (its record comes after its event)."""
        audit_id = screen.plan.id if screen.plan is not None else ""
        try:
            with Workspace.open(store_path) as ws:
                words = audit_words(ws, ws.audits.get(audit_id)).unrecorded
        except DiptychError:
            return {}
        if until:
            words = {n: WAITING if n in gated else NOT_RUN for n in words}
        return {n: w for n, w in words.items() if n != heard and n not in last_said}

    def on_part(name: str, status: str, detail: dict[str, Any]) -> None:
        said = part_status_words(status, detail)
        last_said[name] = (status, said)
        post(AuditPartChanged(name, said))
        for other, words in unrecorded(name).items():
            post(AuditPartChanged(other, words))
        if status in ("running", "skipped"):
            return
        for news in part_news(store_path, file, name):  # the counts, gates now
            # Bought until decided, the looks say the gates and the part's words.
            if not until or isinstance(news, AuditReplanned):
                post(news)

    def on_look(batch: int, batches: int, report: Any) -> None:
        # Each look's gates, their anytime-valid intervals narrowing batch by batch; the note
        # the look's result while the next batch — or, the looks' share of the level spent, the
        # rest of the design — is bought (why it stopped comes at the end).
        post(AuditGates(gate_lines(report), [], look_note(batch, batches, report), look_of(report)))

    from diptych.agent.audit_search import run_search

    try:
        with Workspace.open(store_path) as ws, StoreProgress(replan) as progress:
            outcome = run_stoppable(
                partial(run_audit, ws, file, on_part=on_part, searches=run_search,
                        until_decided=until, on_look=on_look, reporter=progress),
                control,
            )  # fmt: skip
    except DiptychError as error:
        post(AuditFailed(str(error)))
        return
    # The rows end as the audit recorded its parts: a part bought batch by batch was last
    # heard of as "running", and a part no gate reads was never started. Where the last
    # words heard already say the recorded status, they stay (with their look).
    listed: dict[str, str] = {}
    # The audit's status in the words `diptych audit list` and `audit run` say it now.
    told, kept = outcome.status_text, {}
    try:
        with Workspace.open(store_path) as ws:
            worded = audit_words(ws, ws.audits.get(outcome.audit_id))
            told, kept = worded.status, worded.kept
            replanned = plan_placebos(ws, plan_audit(ws, file))
            listed = runs_said(ws, outcome.parts)
        post(AuditReplanned(replanned))
    except DiptychError:
        pass  # the rows keep the plan they had; the summary below says how the run ended
    # A part bought until decided says what stopping saved (or what it holds, bought on
    # since), as its recorded row does.
    plan = screen.plan
    final = recorded_words(plan, outcome.parts, said=listed) if plan else {}
    for part in outcome.parts:
        status, said = last_said.get(part.name, ("", ""))
        words = said if status == part.status else part.status
        if PartLooks.of(part.detail) is not None and part.name in final:
            words = final[part.name]
        # Kept from an earlier run, as `diptych audit list` says it: "reused (session …)".
        post(AuditPartChanged(part.name, kept.get(part.name, words)))
    for name in outcome.kept:
        # Complete before and kept (its findings in the report): not run, not "not run".
        post(AuditPartChanged(name, kept.get(name, "complete, reused")))
    for name in outcome.skipped:
        post(AuditPartChanged(name, NOT_RUN))
    if plan is not None:
        screen.gates_for(file, plan, outcome.report is not None)
    # Last: once the screen says the audit ended, ^r and ^g start the next run at once.
    stopped = stopped_words(outcome.sequential, outcome.asked, told)
    post(AuditFinished(told, outcome.spent, outcome.report, stopped))

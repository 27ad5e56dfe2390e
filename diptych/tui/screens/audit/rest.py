"""What ctrl+r on the Audit screen asks before it buys: an audit whose gates were decided on
part of its design has its rest bought on purpose only, once the trials, requests and
estimated cost of each decided part are said, in the words ``u`` on the Runs screen and
``diptych resume`` use (:func:`diptych.tui.workers.rest_of_decided_run`), and every other part
it would run (an agent search) with what that buys, as ``diptych audit run`` asks."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual.message import Message

from diptych.audit.not_run import bought_after, not_run_words, parts_not_run
from diptych.audit.plan import AuditPlan
from diptych.audit.status_words import held_elsewhere
from diptych.core.workspace import Workspace
from diptych.tui.workers import rest_of_decided_run

#: How the Audit screen runs the parts a declined rest leaves not run.
RUN_AGAIN = "^r, answered y"


@dataclass
class AuditRestAsked(Message):
    """The question before the audit is run whole: one sentence per decided part's run, then
    one naming every other part it would run with what each buys, or that nothing else is left
    (:func:`~diptych.audit.not_run.bought_after`; none at all: nothing decided, the run starts
    without a question), and what declining leaves not run
    (:func:`~diptych.audit.not_run.not_run_words`; "" where nothing is)."""

    questions: list[str]
    left: str = ""
    #: Why it is not run now: another live process runs it (:func:`held_elsewhere`).
    held: str = ""


def decided_rests(store_path: Path, plan: AuditPlan) -> AuditRestAsked:
    """For each part of the recorded audit its gates stopped early, what running the audit
    whole buys of it (thread body; none where the audit is not recorded or nothing is decided:
    :meth:`~diptych.core.workspace.audits.Audits.decided_runs`), then what it buys of every
    other part it would run, and the parts declining it leaves not run, in the words the
    command line says them in."""
    with Workspace.open(store_path) as ws:
        # Another live process buying it: one line says so, and nothing starts a second buyer.
        held = held_elsewhere(ws, plan.id)
        if held:
            return AuditRestAsked([], held=held)
        decided = ws.audits.decided_runs(plan.id)
        waiting = parts_not_run(ws, plan, decided) if decided else []
    if not decided:
        return AuditRestAsked([])
    # Every part running it whole buys is named with what it costs, the search too: the
    # question says all that "y" buys, not only the decided parts' rest.
    questions = [rest_of_decided_run(store_path, run_id) for run_id in decided]
    return AuditRestAsked(
        [*questions, bought_after(plan, waiting)], not_run_words(waiting, RUN_AGAIN)
    )

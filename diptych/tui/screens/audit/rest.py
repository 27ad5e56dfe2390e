"""What ctrl+r on the Audit screen asks before it buys: an audit whose gates were decided on
part of its design has its rest bought on purpose only, once the trials, requests and
estimated cost of each decided part are said, in the words ``u`` on the Runs screen and
``diptych resume`` use (:func:`diptych.tui.workers.rest_of_decided_run`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual.message import Message

from diptych.core.workspace import Workspace
from diptych.tui.workers import rest_of_decided_run


@dataclass
class AuditRestAsked(Message):
    """The question before the audit is run whole: one sentence per decided part's run (none:
    nothing decided, the run starts without a question)."""

    questions: list[str]


def decided_rests(store_path: Path, audit_id: str) -> list[str]:
    """For each part of the recorded audit its gates stopped early, what running the audit
    whole buys of it (thread body; [] where the audit is not recorded or nothing is decided:
    :meth:`~diptych.core.workspace.audits.Audits.decided_runs`)."""
    with Workspace.open(store_path) as ws:
        decided = ws.audits.decided_runs(audit_id)
    return [rest_of_decided_run(store_path, run_id) for run_id in decided]

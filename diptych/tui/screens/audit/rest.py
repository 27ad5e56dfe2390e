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
    whole buys of it (thread body; [] where the audit is not recorded or nothing is decided).
    A part's record, not its run's status now, says it was stopped: a run bought on since
    ("bought on", or stopped part way again) still has the rest of its design past a gated
    stop, which the audit run whole buys; one bought whole since has none."""
    with Workspace.open(store_path) as ws:
        recorded = {a.id: a for a in ws.audits.list()}.get(audit_id)
        if recorded is None:
            return []
        decided = [
            p.run_id
            for p in recorded.parts
            if p.status == "decided" and p.run_id and ws.runs.get(p.run_id).status != "complete"
        ]
    return [rest_of_decided_run(store_path, run_id) for run_id in dict.fromkeys(decided)]

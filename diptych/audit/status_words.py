"""A recorded audit's status and its parts' in words, as every surface says them now: the line
``diptych audit run`` ends on, ``diptych audit list`` and its JSON, and the Audit screen's
status line and list. One reading of the record, so that no two surfaces say two things of
the same audit at the same moment."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace

from diptych.core.audit.record import AuditRecord, PartRecord, this_process
from diptych.core.errors import UsageError
from diptych.core.workspace import Workspace

#: A part of the audit's file that no run of it recorded and none is running to.
NOT_RUN = "not run"
#: A part of a running audit that has not started: it waits its turn behind another part.
WAITING = "waiting"
#: Where a search part's record names what a later run of its audit kept it as, run before
#: ("session audit-…"): that run searched nothing.
REUSED = "reused"


def marked_reused(part: PartRecord) -> PartRecord:
    """``part`` (a search complete before, kept by this run of its audit) recorded as reused,
    with the session its findings are in; any other part as it is (a run's status says what
    it holds)."""
    session = part.detail.get("session")
    if part.kind != "search" or part.status != "complete" or not session:
        return part
    return replace(part, detail={**part.detail, REUSED: f"session {session}"})


def part_words(ws: Workspace, part: PartRecord) -> str:
    """A part (as ``ws.audits.as_now`` lists it) in words: a search kept from an earlier run
    "reused (session audit-…)", any other in its run's words."""
    if part.status == "complete" and part.detail.get(REUSED):
        return f"reused ({part.detail[REUSED]})"
    return ws.audits.part_status_text(part)


@dataclass
class AuditWords:
    """A recorded audit as a listing shows it now (``audit``: ``ws.audits.as_now``), its
    status in words (``status``) and each part's (``parts``, in the file's order where it
    parses: the parts recorded, then those not run or waiting)."""

    audit: AuditRecord
    status: str
    parts: dict[str, str] = field(default_factory=dict)

    def named(self, words: str) -> list[str]:
        """The parts whose words are ``words`` (``NOT_RUN``, ``WAITING``)."""
        return [name for name, said in self.parts.items() if said == words]

    @property
    def unrecorded(self) -> dict[str, str]:
        """The words of the parts no run of the audit recorded yet: ``WAITING`` while it runs,
        else ``NOT_RUN``."""
        return {name: said for name, said in self.parts.items() if said in (WAITING, NOT_RUN)}

    @property
    def kept(self) -> dict[str, str]:
        """The words of the parts kept from an earlier run ("reused (session audit-…)")."""
        return {name: said for name, said in self.parts.items() if said.startswith(REUSED)}


def audit_words(ws: Workspace, audit: AuditRecord) -> AuditWords:
    """``audit`` (as recorded) in the words every surface says it now: its status
    (:meth:`~diptych.core.workspace.audits.Audits.status_text` of its parts' runs now), each
    part in its run's words (a search kept from an earlier run "reused"), and a part of its
    file no run recorded "not run" — or "waiting" while the audit runs, for it has not had
    its turn yet."""
    now = ws.audits.as_now(audit)
    parts = {p.name: part_words(ws, p) for p in now.parts}
    missing = ws.audits.not_run(now)
    # Bought batch by batch, the parts no gate reads are left out, never waiting.
    batching = any(p.status == "partial" for p in now.parts)
    waits = now.status == "running" and not batching
    parts.update(dict.fromkeys(missing, WAITING if waits else NOT_RUN))
    return AuditWords(now, ws.audits.status_text(now), parts)


def status_words(ws: Workspace, audit_id: str) -> str:
    """The status of the recorded audit ``audit_id`` in words, as ``diptych audit list`` says it
    now (:func:`audit_words`); "" where no audit of that id is recorded."""
    try:
        audit = ws.audits.get(audit_id)
    except UsageError:
        return ""
    return audit_words(ws, audit).status


def interrupted_line(ws: Workspace, audit_id: str, look: str = "") -> str:
    """Where the recorded audit ``audit_id`` is interrupted now (as ``diptych audit list`` says
    it), that in one line for its gates' verdicts: which run stopped part way with how many
    trials pending, that the verdicts stand (each decided at ``look``, where its gates were
    decided on a look) and what buys the rest; "" for an audit in any other state."""
    try:
        now = ws.audits.as_now(ws.audits.get(audit_id))
    except UsageError:
        return ""
    stopped = [p.run_id for p in now.parts if p.status == "interrupted" and p.run_id]
    if now.status != "interrupted" or not stopped:
        return ""
    runs = ", ".join(
        f"run {run_id}, {ws.runs.counts(run_id).get('pending', 0):,} trials pending"
        for run_id in stopped
    )
    resume = " and ".join(f"diptych resume {run_id}" for run_id in stopped)
    # A look's verdict holds at that look however much is bought after it; a gate read on
    # all the trials stored reads only what was stored before the stop.
    stand = f"each decided at {look}" if look else "read on the trials stored before the stop"
    return (
        f"interrupted: the audit's last run stopped part way ({runs}); the verdicts below "
        f"stand, {stand}; {resume} or running the audit again buys the rest"
    )


def held_elsewhere(ws: Workspace, audit_id: str) -> str:
    """Why the recorded audit ``audit_id`` cannot be run from here now, in one line: another
    live process runs it (its record names that process, alive), or holds the lease of one of
    its parts' runs; "" where nothing else holds it (or no audit of that id is recorded)."""
    try:
        audit = ws.audits.get(audit_id)
    except UsageError:
        return ""
    again = "run it again here once that has stopped"
    mine = this_process()
    # Recorded running by a process alive now (as_now reads one that is gone as stopped).
    if audit.process not in (None, mine) and ws.audits.as_now(audit).status == "running":
        who = _process_words(audit.process)
        return f"not started: another process{who} is running audit {audit.id}; {again}"
    for run_id in audit.run_ids:
        lease = ws.runs.lease(run_id)
        if lease is not None and lease.pid != os.getpid():
            return (
                f"not started: run {run_id} of audit {audit.id} is being run by another "
                f"process ({lease.describe()}); {again}"
            )
    return ""


def _process_words(process: str | None) -> str:
    """A recorded process in brackets (" (pid 4242 on host)"); "" where it cannot be read."""
    try:
        named = json.loads(process or "null")
        return f" (pid {int(named['pid'])} on {named['host']})"
    except (ValueError, TypeError, KeyError):
        return ""

"""A recorded audit's status and its parts' in words, as every surface says them now: the line
``diptych audit run`` ends on, ``diptych audit list`` and its JSON, and the Audit screen's
status line and list. One reading of the record, so that no two surfaces say two things of
the same audit at the same moment."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from diptych.core.audit.record import AuditRecord, PartRecord
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

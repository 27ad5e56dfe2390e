"""The Audit screen's reader of work another process does on its audit (``diptych resume`` of a
part's run, ``diptych audit run`` of its file in another shell): every
:data:`~diptych.tui.screens.audit.buying.REFRESH_EVERY` seconds while an audit is open and shown,
a few cheap reads say whether its record or its parts' runs have moved since the screen last
read them (:func:`store_mark`); where they have, the screen reads its plan, parts and gates
again, as it does when the audit is opened.

The mark is what another process changes as it buys: the audit's record (its status and parts,
written as a search or a part goes on), each part's run's status, stored counts, and whether a
live process holds it. It is read before the plan, so a change that lands between the two is
seen at the next read rather than lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.message import Message

from diptych.core.errors import DiptychError, RunNotFoundError
from diptych.core.workspace import Workspace

#: What :func:`store_mark` reads; two equal marks: nothing of the audit moved between them.
StoreMark = tuple[Any, ...]


@dataclass
class AuditStoreRead(Message):
    """The mark of audit ``audit_id`` as the store holds it now (None: not recorded yet)."""

    audit_id: str
    mark: StoreMark | None


def store_mark(ws: Workspace, audit_id: str) -> StoreMark | None:
    """What of audit ``audit_id`` another process changes as it buys on or searches: its record
    and each part's run's status, counts and holder; None where no audit of that id is
    recorded (yet: a run of its file in another shell records it)."""
    recorded = next((a for a in ws.audits.list() if a.id == audit_id), None)
    if recorded is None:
        return None
    runs: list[tuple[Any, ...]] = []
    for part in recorded.parts:
        if not part.run_id:
            continue
        try:
            run = ws.runs.get(part.run_id)
        except RunNotFoundError:
            runs.append((part.run_id, None))  # deleted since: a mark of its own
            continue
        counts = tuple(sorted(ws.runs.counts(run.id).items()))
        runs.append((run.id, run.status, counts, ws.runs.lease(run.id) is not None))
    parts = tuple((p.name, p.status, p.run_id) for p in recorded.parts)
    return (recorded.status, recorded.updated_at, parts, tuple(runs))


def read_mark(ws_path: Path, audit_id: str) -> AuditStoreRead | None:
    """:func:`store_mark` in a workspace of its own (thread body); None where the store could
    not be read this time (the next read tries again)."""
    try:
        with Workspace.open(ws_path) as ws:
            return AuditStoreRead(audit_id, store_mark(ws, audit_id))
    except DiptychError:
        return None

"""A run an audit is buying look by look (``audit run --until-decided``), stopped before its gates
were decided: resuming it alone (``diptych resume``, the terminal app's ``u``) would buy the
whole design at once, where the audit goes on one batch at a time and may decide after the
next. Every front end asks :func:`look_by_look` before it resumes a run, says what it finds and
buys the whole design only when asked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from diptych.core.audit.record import AuditRecord, list_audits
from diptych.core.audit.sequential import PartLooks

if TYPE_CHECKING:
    from diptych.core.store import Store


@dataclass(frozen=True)
class LookByLook:
    """The audit buying a run look by look, and where it stopped."""

    #: The newest audit record buying the run so.
    audit: AuditRecord
    #: Its part whose run it is.
    part: str
    #: The batches its design is bought in (None: recorded before diptych kept them).
    batches: int | None
    #: The batch it stopped in: the next it buys.
    batch: int
    #: The looks taken so far.
    looks: int


def look_by_look(store: Store, run_id: str) -> LookByLook | None:
    """The audit buying ``run_id`` look by look whose gates have not decided it, or None: for
    a run no audit bought so, and for one whose gates were decided (its resume asks in its
    own words) or whose design is bought whole."""
    run = store.run_with_id(run_id)
    if run is None or run.status in ("decided", "complete"):
        return None
    found = None
    for audit in sorted(list_audits(store), key=lambda a: a.updated_at):
        for part in audit.parts:
            if part.run_id != run_id or PartLooks.order_seed_of(part.detail) is None:
                continue
            looks = PartLooks.of(part.detail)
            if looks is None:
                # In its first batch, before any look.
                batches = part.detail.get(PartLooks.BATCHES_KEY)
                counted = batches if isinstance(batches, int) and batches > 0 else None
                found = LookByLook(audit, part.name, counted, 1, 0)
            elif not looks.active or looks.stop in ("decided", "complete"):
                found = None
            else:
                found = LookByLook(
                    audit, part.name, looks.batches, looks.next_batch(), len(looks.looks)
                )
    return found

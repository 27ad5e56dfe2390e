"""The Review screen's writes: labels, notes and removals stored off the UI thread, in order.

A label key stores the label at once as far as the reviewer can tell, but the write itself is
made by a worker thread through a Workspace of its own: the UI thread never writes to the
store. Writes wait in a queue and are stored in the order they were given (a note changed
right after its label lands after the label), by whichever worker takes the lock first. The
run's review flags are derived from its labels: they are refreshed after writes, and once more
as the screen goes away if a label was stored since (:meth:`ReviewWrites.finish`).

No Textual here: the screen starts the workers and hears back through the ``saved`` callable.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from diptych.core.workspace import Workspace


@dataclass(frozen=True)
class LabelWrite:
    """One label of one person, as the reviewer gave it (with its note, if any)."""

    run_id: str
    subject_id: int
    trial_idx: int
    position: str
    label: str
    #: The bare name of the reviewer (the label's annotator is ``human:<reviewer>``).
    reviewer: str
    note: str | None = None
    #: What else the label records (how it was given, the flags' reasons, blind mode's seed).
    detail: dict[str, Any] = field(default_factory=dict)

    def store(self, ws: Workspace) -> None:
        ws.labels.save(
            self.run_id,
            self.trial_idx,
            self.position,
            self.label,
            reviewer=self.reviewer,
            note=self.note,
            detail=self.detail,
        )


@dataclass(frozen=True)
class NoteWrite:
    """The reviewer's note on one person, labelled or not ("" removes it)."""

    run_id: str
    subject_id: int
    trial_idx: int
    position: str
    note: str
    reviewer: str
    #: The reviewer's label of the person when the note was written, if any (it is stored
    #: again with the note, its other detail kept).
    label: str | None = None

    def store(self, ws: Workspace) -> None:
        ws.review.save_note(
            self.run_id, self.trial_idx, self.position, self.note, reviewer=self.reviewer
        )


@dataclass(frozen=True)
class RemoveWrite:
    """The reviewer takes their label of one person back."""

    run_id: str
    subject_id: int
    trial_idx: int
    position: str
    reviewer: str

    def store(self, ws: Workspace) -> None:
        ws.labels.remove(self.run_id, self.trial_idx, self.position, reviewer=self.reviewer)


#: Anything the Review screen stores.
Write = LabelWrite | NoteWrite | RemoveWrite


def label_detail(via: str, reasons: Sequence[str], *, seed: int | None = None) -> dict[str, Any]:
    """What a label given in review records besides the label: where it was given, why the
    person was in the queue, and in blind mode the seed of the queue's order (``seed`` given
    only in blind mode), so that the order can be reproduced."""
    detail: dict[str, Any] = {"via": via, "reasons": list(reasons)}
    if seed is not None:
        detail["blind"] = True
        detail["seed"] = seed
    return detail


class ReviewWrites:
    """Labels waiting to be stored, and whether the run's flags account for those stored.

    :meth:`add` is called on the UI thread; :meth:`save_pending`, :meth:`refresh_flags` and
    :meth:`finish` in worker threads, each with a Workspace of its own.
    """

    def __init__(self) -> None:
        self._pending: queue.SimpleQueue[Write] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._given = 0
        self._saved = 0
        self._flags_fresh = 0

    def add(self, write: Write) -> None:
        """Queue a label, note or removal for the next :meth:`save_pending` (UI thread)."""
        self._given += 1
        self._pending.put(write)

    @property
    def settled(self) -> bool:
        """Every label given is stored and the flags account for it."""
        return self._flags_fresh == self._given

    def save_pending(self, ws: Workspace, saved: Callable[[Write], object]) -> int:
        """Store every label waiting, in the order given, calling ``saved`` after each one is
        in the store; return how many were stored."""
        stored = 0
        with self._lock:
            while True:
                try:
                    write = self._pending.get_nowait()
                except queue.Empty:
                    return stored
                write.store(ws)
                self._saved += 1
                stored += 1
                saved(write)

    def refresh_flags(self, ws: Workspace, run_id: str) -> bool:
        """Recompute the run's review flags if a label was stored since they last were;
        True if they were."""
        with self._lock:
            if self._flags_fresh == self._saved:
                return False
            ws.review.refresh_flags(run_id)
            self._flags_fresh = self._saved
            return True

    def finish(self, store_path: str | os.PathLike[str], run_id: str) -> None:
        """Store what still waits and bring the flags up to date: as the screen goes away,
        whose workers may not have run yet or may still be running."""
        if self.settled:
            return
        with Workspace.open(store_path) as ws:
            self.save_pending(ws, lambda write: None)
            self.refresh_flags(ws, run_id)

"""Where a reviewer is in the Review screen's queue, and what they gave there.

No Textual here: the screen keeps one :class:`ReviewState`, hands it what its workers read,
asks it where the cursor goes, and draws what it says. Kept apart so that the order (plan or
blind shuffle), the reason filter and "start at the first person not labelled yet" can be
tested without a screen.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from diptych.tui.review.queue import ReviewItem, merged, reason_view, shuffled


@dataclass
class ReviewState:
    """The queue, the order it is walked in, the cursor, and the reviewer's labels and notes."""

    blind: bool = False
    #: The blind-mode shuffle's seed (drawn when blind mode starts without one).
    seed: int | None = None
    #: Only the people flagged for this reason (None: every reason).
    reason: str | None = None
    items: dict[int, ReviewItem] = field(default_factory=dict)
    plan_order: list[int] = field(default_factory=list)
    order: list[int] = field(default_factory=list)
    #: The subject ids shown, in order: ``order`` narrowed to ``reason``.
    view: list[int] = field(default_factory=list)
    cursor: int | None = None
    #: The reviewer's label of each person they labelled (stored or on its way).
    mine: dict[int, str] = field(default_factory=dict)
    #: The people whose label the reviewer took back: a queue read before the store forgot
    #: it still carries it, and must not give it back.
    taken_back: set[int] = field(default_factory=set)
    #: The reviewer's note on each person they wrote one on, labelled or not.
    notes: dict[int, str] = field(default_factory=dict)
    #: The people each annotator has a stored label of in the whole run, queued or not.
    stored: dict[str, frozenset[int]] = field(default_factory=dict)

    # --- loading ---------------------------------------------------------------------------

    def load(self, loaded: Sequence[ReviewItem], *, replace_all: bool) -> None:
        """Take a queue read from the workspace: in place of the old one, or merged into it
        so that the reviewer's place stays put."""
        if replace_all:
            self.items = {item.subject_id: item for item in loaded}
            self.plan_order = list(self.items)
        else:
            self.items, self.plan_order = merged(self.items, self.plan_order, loaded)
        self.reorder()

    def take_stored(self, annotator: str | None) -> None:
        """Take the reviewer's own stored labels and notes from the items (what was given in
        this session wins: it may not be stored yet)."""
        if annotator is None:
            return
        for sid, item in self.items.items():
            label = item.human_label(annotator)
            if sid in self.taken_back and label is None:
                self.taken_back.discard(sid)  # the store has forgotten it too
            elif sid in self.taken_back:
                humans = tuple((a, v) for a, v in item.humans if a != annotator)
                self.items[sid] = replace(item, humans=humans)
            elif label is not None:
                self.mine.setdefault(sid, label)
            if note := item.note_of(annotator):
                self.notes.setdefault(sid, note)
        # A queue read before the last label was stored carries the label it replaced: the
        # person shows the one given.
        for sid, label in self.mine.items():
            given = self.items.get(sid)
            if given is not None and given.human_label(annotator) != label:
                humans = tuple((a, v) for a, v in given.humans if a != annotator)
                self.items[sid] = replace(given, humans=(*humans, (annotator, label)))

    # --- order and cursor ------------------------------------------------------------------

    def reorder(self) -> None:
        if self.blind:
            if self.seed is None:
                # Drawn, not fixed: a fixed seed would give every reviewer the same order.
                self.seed = random.SystemRandom().randrange(2**31)
            self.order = shuffled(self.plan_order, self.seed)
        else:
            self.order = list(self.plan_order)

    def rebuild(self, *, start_unlabelled: bool = False) -> None:
        """Narrow the order to the reason; with ``start_unlabelled`` put the cursor on the
        first person the reviewer has not labelled (else keep it where it was)."""
        old_index = self.view.index(self.cursor) if self.cursor in self.view else 0
        self.view = reason_view(self.order, self.items, self.reason)
        if start_unlabelled:
            todo = [sid for sid in self.view if sid not in self.mine]
            if todo:
                self.cursor = todo[0]
                return
        if self.cursor not in self.view:
            self.cursor = self.view[min(old_index, len(self.view) - 1)] if self.view else None

    def current(self) -> ReviewItem | None:
        return None if self.cursor is None else self.items.get(self.cursor)

    def move(self, step: int) -> bool:
        """Move ``step`` people along the view; False (and no move) past either end."""
        if self.cursor not in self.view:
            return False
        at = self.view.index(self.cursor) + step
        if not 0 <= at < len(self.view):
            return False
        self.cursor = self.view[at]
        return True

    def jump(self, last: bool) -> bool:
        """To the first (or last) person of the view; False when there is none, or the
        cursor is on them already (nothing moved)."""
        if not self.view:
            return False
        target = self.view[-1 if last else 0]
        moved, self.cursor = target != self.cursor, target
        return moved

    def labelled(self, annotator: str | None) -> int:
        """How many people of the run the reviewer labelled, as ``diptych show`` counts
        them: those of the queue by what was given here (a label on its way counts, one
        taken back does not), the others as stored (a label may take its person out of the
        queue)."""
        elsewhere = self.stored.get(annotator, frozenset()) if annotator else frozenset()
        return len(self.mine.keys() | (elsewhere - self.items.keys()))

    # --- what the reviewer gives -----------------------------------------------------------

    def give(self, item: ReviewItem, label: str, annotator: str) -> None:
        """Record ``label`` as the reviewer's and move on to the next person."""
        self.mine[item.subject_id] = label
        self.taken_back.discard(item.subject_id)
        humans = [(a, v) for a, v in item.humans if a != annotator]
        self.items[item.subject_id] = replace(item, humans=(*humans, (annotator, label)))
        self.move(+1)

    def take_back(self, item: ReviewItem, annotator: str) -> bool:
        """Forget the reviewer's label of ``item``; False when there was none."""
        if self.mine.pop(item.subject_id, None) is None:
            return False
        self.taken_back.add(item.subject_id)
        humans = tuple((a, v) for a, v in item.humans if a != annotator)
        self.items[item.subject_id] = replace(item, humans=humans)
        return True

    def set_note(self, subject_id: int, text: str) -> None:
        if text:
            self.notes[subject_id] = text
        else:
            self.notes.pop(subject_id, None)

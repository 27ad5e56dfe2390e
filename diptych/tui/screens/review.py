"""The Review screen: look at what the probe flagged in a run and label it by hand.

The queue is the run's flagged people (``Store.flags``; why each is flagged is shown and can be
filtered on), optionally with every person who has no human label yet. One key per label gives
it; the label is stored at once as annotator ``human:<name>`` (the name is asked once), so
quitting at any moment keeps every label given. After each label a worker recomputes the run's
flags and the probe's headline numbers, and the STS line shows the change.

Blind mode hides who the person is (identity, prompt) and what anyone else labelled, shuffles
the queue with a seed, and records the seed with every label it gives, so the order can be
reproduced.

Drawing never waits for the disk: the queue, the metrics and the images are read in thread
workers that report back with messages; the next few images of the queue are decoded and scaled
before the reviewer asks for them (``diptych.tui.widgets.review_prefetch``).
"""

from __future__ import annotations

import random
import weakref
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import Worker, WorkerState, get_current_worker

from diptych.core.engine import refresh_flags
from diptych.core.plugins import get_probe
from diptych.core.probe import Probe
from diptych.core.runview import RunView
from diptych.core.store import Store
from diptych.tui.widgets.review_modals import (
    ALL_REASONS,
    NoteModal,
    ReasonModal,
    ReviewerNameModal,
)
from diptych.tui.widgets.review_panels import (
    CardScroll,
    ReviewCard,
    ReviewPicture,
    cell_pixels,
    describe_item,
    highlight,
    metrics_text,
)
from diptych.tui.widgets.review_prefetch import Box, Decoded, ImageCache, decode_scaled
from diptych.tui.widgets.review_queue import (
    HUMAN_PREFIX,
    ReviewItem,
    assign_keys,
    load_queue,
    probe_choices,
    reason_counts,
    shuffled,
)

#: Reviewer names already given, per running app: the name is asked once, not per screen.
_REVIEWERS: weakref.WeakKeyDictionary[App[Any], str] = weakref.WeakKeyDictionary()
#: What every label given here records as its origin.
VIA = "diptych tui review"


class ReviewScreen(Screen[None]):
    """Review and label the flagged people of one run."""

    CSS_PATH = "review.tcss"
    BINDINGS = [
        Binding("m", "label_key('m')", "masc"),
        Binding("f", "label_key('f')", "fem"),
        Binding("c", "label_key('c')", "can't tell"),
        Binding("n,right", "next", "next", key_display="n"),
        Binding("p,left", "previous", "prev", key_display="p"),
        Binding("r", "filter_reason", "reason"),
        Binding("e", "note", "note"),
        Binding("b", "toggle_blind", "blind"),
        Binding("u", "toggle_unlabelled", "unlabelled"),
        # Escape is everyone's "back"; the 80-column footer has no room left to say so.
        Binding("escape", "back", "back", show=False),
    ]

    # --- messages (posted by workers and for the host app) ---------------------------------

    @dataclass
    class QueueLoaded(Message):
        """The queue as read from the store; ``replace`` drops items no longer listed."""

        run_id: str
        probe: Probe
        items: list[ReviewItem]
        replace: bool

    @dataclass
    class ImageDecoded(Message):
        sha: str
        decoded: Decoded

    @dataclass
    class ImageShown(Message):
        """The current person's output has been drawn (``blob`` None for a text output)."""

        subject_id: int
        blob: str | None

    @dataclass
    class LabelSaved(Message):
        """A label is in the store."""

        subject_id: int
        annotator: str
        label: str

    @dataclass
    class FlagsRefreshed(Message):
        """The run's flags were recomputed with every label up to ``generation``."""

        generation: int

    @dataclass
    class MetricsUpdated(Message):
        numbers: dict[str, dict[str, Any]]

    # --- set-up ------------------------------------------------------------------------------

    def __init__(
        self,
        store_path: Path,
        run_id: str,
        *,
        reviewer: str | None = None,
        blind: bool = False,
        seed: int | None = None,
        include_unlabelled: bool = False,
        renderer: str | None = None,
        prefetch: int = 4,
    ) -> None:
        """``reviewer``: the name to label as (else asked once per app); ``seed``: of the
        blind-mode shuffle (else drawn when blind mode starts); ``renderer``: force an image
        renderer (see :mod:`diptych.tui.widgets.review_panels`); ``prefetch``: how many images
        ahead to decode (0 turns prefetching off)."""
        super().__init__()
        self.store_path = Path(store_path)
        self.run_id = run_id
        self.reviewer = reviewer
        self.blind = blind
        self.seed = seed
        self.include_unlabelled = include_unlabelled
        self.prefetch = prefetch
        self._renderer = renderer
        self._store: Store | None = None
        self._probe: Probe | None = None
        self._choices: tuple[tuple[str, str], ...] = ()
        self._footer_choices: tuple[tuple[str, str], ...] = ()
        self._lines: dict[str, str | Text] = {}
        self.items: dict[int, ReviewItem] = {}
        self._plan_order: list[int] = []
        self._order: list[int] = []
        self.reason: str | None = None
        self.view: list[int] = []
        self.cursor: int | None = None
        self._notes: dict[int, str] = {}
        self._mine: dict[int, tuple[str, dict[str, Any]]] = {}
        self._cache = ImageCache()
        self._box: Box = (800, 480)
        self.shown: tuple[int, str | None] | None = None
        self.numbers: dict[str, dict[str, Any]] | None = None
        self._numbers_before: dict[str, dict[str, Any]] | None = None
        self.metrics_generation = 0
        self._metrics_running = False
        self._metrics_dirty = False
        self._labels_given = 0
        self._flags_fresh = 0
        self._loaded = False

    @property
    def annotator(self) -> str | None:
        return None if self.reviewer is None else HUMAN_PREFIX + self.reviewer

    def compose(self) -> ComposeResult:
        yield Static("", id="review-title")
        with Horizontal(id="review-body"):
            yield ReviewPicture(self._renderer, id="review-picture")
            with CardScroll(id="review-card-scroll"):
                yield ReviewCard(id="review-card")
        yield Static("", id="review-metrics")
        # The command palette still opens with ctrl+p; its footer entry would push keys of
        # this screen off an 80-column footer.
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self._store = Store(self.store_path)
        self._show_title()
        self._load_queue(self.include_unlabelled, replace=True)
        if self.reviewer is None:
            known = getattr(self.app, "reviewer", None) or _REVIEWERS.get(self.app)
            if isinstance(known, str) and known:
                self.reviewer = known
            else:
                self.app.push_screen(ReviewerNameModal(), self._name_given)

    def on_unmount(self) -> None:
        if self._store is None:
            return
        # Labels are stored as they are given; only the derived flags may lag behind the last
        # label if the refreshing worker had not finished. Bring them up to date before going.
        if self._flags_fresh < self._labels_given and self._probe is not None:
            refresh_flags(self._store, self.run_id, self._probe)
        self._store.close()
        self._store = None

    def _name_given(self, name: str | None) -> None:
        if name is None:
            # No name, no labels: the reviewer chose not to review.
            self.action_back()
            return
        self.reviewer = name
        _REVIEWERS[self.app] = name
        self._after_labels_loaded()
        self._show_current()

    def on_resize(self, event: events.Resize) -> None:
        self._update_box()

    def _update_box(self) -> None:
        picture = self.query_one(ReviewPicture)
        cols, rows = picture.content_size.width, picture.content_size.height
        if cols and rows:
            cell_w, cell_h = cell_pixels()
            self._box = (cols * cell_w, rows * cell_h)

    # --- workers -----------------------------------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="review-queue")
    def _load_queue(self, include_unlabelled: bool, replace: bool) -> None:
        with Store(self.store_path) as store:
            run = store.get_run(self.run_id)
            probe = self._probe or get_probe(run.probe, run.params)
            items = load_queue(store, run.id, include_unlabelled=include_unlabelled)
        if not get_current_worker().is_cancelled:
            self.post_message(self.QueueLoaded(run.id, probe, items, replace))

    @work(thread=True, exit_on_error=False, group="review-metrics")
    def _recompute(
        self, probe: Probe, generation: int, refresh: bool, include_unlabelled: bool
    ) -> None:
        with Store(self.store_path) as store:
            run = store.get_run(self.run_id)
            if refresh:
                refresh_flags(store, run.id, probe)
                self.post_message(self.FlagsRefreshed(generation))
                items = load_queue(store, run.id, include_unlabelled=include_unlabelled)
                self.post_message(self.QueueLoaded(run.id, probe, items, False))
            result = probe.analyze(RunView(store, run))
        self.post_message(self.MetricsUpdated(result.numbers))

    def _decode(self, sha: str) -> None:
        assert self._store is not None
        self._cache.pending.add(sha)
        self.run_worker(
            partial(self._decode_in_thread, sha, self._store.blob_path(sha), self._box),
            name=f"decode:{sha}",
            group="review-prefetch",
            thread=True,
            exit_on_error=False,
        )

    def _decode_in_thread(self, sha: str, path: Path, box: Box) -> None:
        self.post_message(self.ImageDecoded(sha, decode_scaled(path, box)))

    def _request_metrics(self, refresh: bool) -> None:
        """Recompute after a label; while a recomputation runs, only remember to run one more
        (every label would otherwise start its own analysis of the whole run)."""
        if self._probe is None:
            return
        if self._metrics_running:
            self._metrics_dirty = True
            return
        self._metrics_running = True
        self._recompute(self._probe, self._labels_given, refresh, self.include_unlabelled)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker, state = event.worker, event.state
        if state not in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return
        error = worker.error if state == WorkerState.ERROR else None
        if worker.group == "review-metrics":
            self._metrics_running = False
            if error is not None:
                self._set_line("#review-metrics", f"metrics could not be computed: {error}")
            if self._metrics_dirty:
                self._metrics_dirty = False
                self._request_metrics(refresh=True)
        elif worker.group == "review-prefetch":
            sha = worker.name.removeprefix("decode:")
            self._cache.pending.discard(sha)
            current = self._current()
            if error is not None and current is not None and current.blob == sha:
                self.query_one(ReviewPicture).show_message(f"cannot show image: {error}")
        elif worker.group == "review-queue" and error is not None:
            self.query_one(ReviewPicture).show_message(f"cannot read the run: {error}")

    # --- messages ----------------------------------------------------------------------------

    def on_review_screen_queue_loaded(self, message: QueueLoaded) -> None:
        message.stop()
        first = not self._loaded
        self._loaded = True
        self.run_id = message.run_id
        self._probe = message.probe
        fresh = {item.subject_id: item for item in message.items}
        if message.replace:
            self.items = fresh
            self._plan_order = [item.subject_id for item in message.items]
        else:
            # Keep the queue stable under the reviewer: items stay where they are (one no
            # longer flagged stays too, so "previous" still finds it); newly flagged people
            # join at the end.
            for sid, item in self.items.items():
                if sid not in fresh:
                    self.items[sid] = replace(item, flags=())
            added = [item.subject_id for item in message.items if item.subject_id not in self.items]
            self.items.update(fresh)
            self._plan_order += added
        self._order_queue()
        self._after_labels_loaded()
        self._rebuild_view(start_unlabelled=first or message.replace)
        self._show_current()
        if first:
            self._request_metrics(refresh=False)

    def _after_labels_loaded(self) -> None:
        """Take the reviewer's own labels and notes from the loaded items."""
        who = self.annotator
        if who is None:
            return
        for sid, item in self.items.items():
            label = item.human_label(who)
            if label is not None and sid not in self._mine:
                self._mine[sid] = (label, {})
            note = item.note_of(who)
            if note and sid not in self._notes:
                self._notes[sid] = note

    def on_review_screen_image_decoded(self, message: ImageDecoded) -> None:
        message.stop()
        self._cache.put(message.sha, message.decoded)
        current = self._current()
        if current is not None and current.blob == message.sha:
            if self.shown != (current.subject_id, current.blob):
                self._show_current()

    def on_review_screen_flags_refreshed(self, message: FlagsRefreshed) -> None:
        message.stop()
        self._flags_fresh = max(self._flags_fresh, message.generation)

    def on_review_screen_metrics_updated(self, message: MetricsUpdated) -> None:
        message.stop()
        self._numbers_before = self.numbers
        self.numbers = message.numbers
        self.metrics_generation += 1
        self._show_metrics()

    # --- the queue ---------------------------------------------------------------------------

    def _order_queue(self) -> None:
        if self.blind:
            if self.seed is None:
                # Drawn, not fixed: a fixed seed would give every reviewer the same order.
                self.seed = random.SystemRandom().randrange(2**31)
            self._order = shuffled(self._plan_order, self.seed)
        else:
            self._order = list(self._plan_order)

    def _rebuild_view(self, start_unlabelled: bool = False) -> None:
        old_index = self.view.index(self.cursor) if self.cursor in self.view else 0
        self.view = [
            sid
            for sid in self._order
            if self.reason is None or self.reason in self.items[sid].reasons
        ]
        if start_unlabelled or self.cursor not in self.view:
            todo = [sid for sid in self.view if sid not in self._mine]
            if start_unlabelled and todo:
                self.cursor = todo[0]
            elif self.cursor not in self.view:
                self.cursor = self.view[min(old_index, len(self.view) - 1)] if self.view else None

    def _current(self) -> ReviewItem | None:
        return None if self.cursor is None else self.items.get(self.cursor)

    def _choices_for(self, item: ReviewItem | None) -> tuple[tuple[str, str], ...]:
        if item is not None and item.choices:
            return assign_keys(item.choices)
        if not self._choices:
            self._choices = probe_choices(self._probe)
        return self._choices

    # --- drawing -----------------------------------------------------------------------------

    def _show_title(self) -> None:
        position = (
            f"{self.view.index(self.cursor) + 1}/{len(self.view)}"
            if self.cursor in self.view
            else f"0/{len(self.view)}"
        )
        parts = [f"Review {self.run_id}", position]
        if self.include_unlabelled:
            parts.append("+unlabelled")
        parts.append((self.reason or "all reasons").replace("_", " "))
        parts.append(f"{sum(1 for sid in self.view if sid in self._mine)} labelled")
        if self.annotator:
            parts.append(self.annotator)
        if self.blind:
            parts.append("BLIND")
        self._set_line("#review-title", " · ".join(parts))

    def _show_metrics(self) -> None:
        if self.blind:
            # A score that moves right after a label tells whether the label matched the
            # person's stereotype, i.e. who the person is: blind mode keeps it hidden.
            self._set_line("#review-metrics", "metrics hidden in blind mode")
        elif self.numbers is None:
            self._set_line("#review-metrics", "computing metrics…")
        else:
            self._set_line("#review-metrics", metrics_text(self.numbers, self._numbers_before))

    def _set_line(self, selector: str, content: str | Text) -> None:
        # An update lays the whole screen out again: skip it when nothing changed, which is
        # most of the time for these lines when the reviewer moves on.
        if self._lines.get(selector) != content:
            self._lines[selector] = content
            self.query_one(selector, Static).update(content)

    def _show_current(self) -> None:
        self._show_title()
        self._show_metrics()
        picture = self.query_one(ReviewPicture)
        card = self.query_one(ReviewCard)
        item = self._current()
        choices = self._choices_for(item)
        if choices != self._footer_choices:
            # Only when the label keys change: it rebuilds the footer, which costs more than
            # drawing the next image.
            self._footer_choices = choices
            self.refresh_bindings()
        if item is None:
            self.shown = None
            if not self._loaded:
                picture.show_message("loading the queue…")
                return
            what = f"flagged for {self.reason}" if self.reason else "flagged"
            picture.show_message(f"nobody {what} in run {self.run_id}")
            card.show(
                highlight(
                    "Press u to review every person without a human label, r to change the "
                    "reason, Escape to go back.",
                    (),
                )
            )
            return
        card.show(
            describe_item(
                item,
                annotator=self.annotator,
                choices=choices,
                blind=self.blind,
                seed=self.seed,
                note=self._notes.get(item.subject_id),
            )
        )
        if item.blob is None:
            picture.show_text(highlight(item.output_text or "(no output)", item.words))
            self._announce_after_refresh(item)
        else:
            self._update_box()
            image = self._cache.get(item.blob, self._box)
            if image is not None:
                picture.show_image(image)
                self._announce_after_refresh(item)
            else:
                self.shown = None
                picture.show_message("loading image…")
                if item.blob not in self._cache.pending:
                    self._decode(item.blob)
        self._prefetch_around()

    def _announce_after_refresh(self, item: ReviewItem) -> None:
        def announce() -> None:
            # Only if the reviewer is still on this person when the screen has been drawn.
            if self.cursor == item.subject_id:
                self.shown = (item.subject_id, item.blob)
                self.post_message(self.ImageShown(item.subject_id, item.blob))

        self.call_after_refresh(announce)

    def _prefetch_around(self) -> None:
        """Decode the next ``prefetch`` images of the view (and the previous one) ahead."""
        if not self.prefetch or self.cursor not in self.view:
            return
        at = self.view.index(self.cursor)
        nearby = self.view[at + 1 : at + 1 + self.prefetch] + self.view[max(0, at - 1) : at]
        for sid in nearby:
            blob = self.items[sid].blob
            if (
                blob is not None
                and blob not in self._cache.pending
                and self._cache.get(blob, self._box) is None
            ):
                self._decode(blob)

    # --- actions -----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "label_key":
            # m/f/c are in the footer only while they are this person's label keys.
            keys = {k for k, _ in self._choices_for(self._current())}
            return parameters[0] in keys
        return True

    def on_key(self, event: events.Key) -> None:
        # A probe's own labels may use keys that are not bindings of this screen.
        keys = dict(self._choices_for(self._current()))
        if event.character in keys and event.character not in ("m", "f", "c"):
            event.stop()
            self.give_label(keys[event.character])

    def action_label_key(self, key: str) -> None:
        keys = dict(self._choices_for(self._current()))
        if key in keys:
            self.give_label(keys[key])

    def give_label(self, label: str) -> None:
        """Store ``label`` for the current person now, then move on to the next one."""
        item = self._current()
        if item is None or self._store is None:
            self.app.bell()
            return
        if self.annotator is None:
            self.app.push_screen(ReviewerNameModal(), self._name_given)
            return
        detail: dict[str, Any] = {"via": VIA, "reasons": list(item.reasons)}
        note = self._notes.get(item.subject_id)
        if note:
            detail["note"] = note
        if self.blind:
            detail["blind"] = True
            detail["seed"] = self.seed
        self._store.save_annotations([(item.subject_id, self.annotator, label, None, detail)])
        self._mine[item.subject_id] = (label, detail)
        humans = [(a, v) for a, v in item.humans if a != self.annotator]
        self.items[item.subject_id] = replace(item, humans=(*humans, (self.annotator, label)))
        self._labels_given += 1
        self.post_message(self.LabelSaved(item.subject_id, self.annotator, label))
        self._request_metrics(refresh=True)
        at = self.view.index(item.subject_id) if item.subject_id in self.view else -1
        if 0 <= at < len(self.view) - 1:
            self.cursor = self.view[at + 1]
        self._show_current()

    def _move(self, step: int) -> None:
        if self.cursor not in self.view:
            return
        at = self.view.index(self.cursor) + step
        if not 0 <= at < len(self.view):
            self.app.bell()
            return
        self.cursor = self.view[at]
        self._show_current()

    def action_next(self) -> None:
        self._move(+1)

    def action_previous(self) -> None:
        self._move(-1)

    def action_filter_reason(self) -> None:
        counts = reason_counts(self.items[sid] for sid in self._order)

        def chosen(answer: str | None) -> None:
            if answer is None:
                return
            self.reason = None if answer == ALL_REASONS else answer
            self._rebuild_view(start_unlabelled=True)
            self._show_current()

        self.app.push_screen(ReasonModal(counts, self.reason), chosen)

    def action_note(self) -> None:
        item = self._current()
        if item is None:
            self.app.bell()
            return

        def noted(text: str | None) -> None:
            if text is None:
                return
            if text:
                self._notes[item.subject_id] = text
            else:
                self._notes.pop(item.subject_id, None)
            mine = self._mine.get(item.subject_id)
            if mine is not None and self._store is not None and self.annotator is not None:
                # Already labelled: store the note with that label now, not with a later one.
                label, detail = mine
                detail = {k: v for k, v in detail.items() if k != "note"}
                if text:
                    detail["note"] = text
                self._store.save_annotations(
                    [(item.subject_id, self.annotator, label, None, detail)]
                )
                self._mine[item.subject_id] = (label, detail)
            self._show_current()

        about = f"the {item.position} person" if item.position else "this person"
        self.app.push_screen(NoteModal(self._notes.get(item.subject_id, ""), about), noted)

    def action_toggle_blind(self) -> None:
        self.blind = not self.blind
        self._order_queue()
        self._rebuild_view(start_unlabelled=True)
        self._show_current()

    def action_toggle_unlabelled(self) -> None:
        self.include_unlabelled = not self.include_unlabelled
        self._show_title()
        self._load_queue(self.include_unlabelled, replace=True)

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 1:
            self.dismiss()
        else:
            self.app.exit()

"""The Review screen's machinery: its queue state, workers and messages.

:class:`ReviewView` reads the queue, decodes the images, stores what the reviewer gives and
recomputes the scores, each in a thread worker with a Workspace of its own; its base
(:mod:`diptych.tui.review.drawing`) draws the current item, and
:class:`~diptych.tui.review.screen.ReviewScreen` adds the keys.
"""

from __future__ import annotations

import asyncio
import weakref
from functools import partial
from pathlib import Path
from typing import Any, TypeAlias

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.notifications import Notification, SeverityLevel
from textual.timer import Timer
from textual.worker import Worker, WorkerState, get_current_worker

from diptych.core.errors import DiptychError
from diptych.core.labels import HUMAN_PREFIX, human_annotator, reviewer_name
from diptych.core.probe import Probe
from diptych.core.workspace import Workspace
from diptych.tui.review import messages as msg
from diptych.tui.review.drawing import EMPTY_QUEUE_HINT, ReviewDrawing
from diptych.tui.review.modals import ReviewerNameModal
from diptych.tui.review.panels import CardScroll, ReviewCard, ReviewPicture
from diptych.tui.review.prefetch import Box, ImageCache, decode_scaled
from diptych.tui.review.queue import ReviewItem, labelled_by, load_queue
from diptych.tui.review.state import ReviewState
from diptych.tui.review.writes import (
    LabelWrite,
    NoteWrite,
    RemoveWrite,
    ReviewWrites,
    Write,
)
from diptych.tui.widgets.footer import KeysFooter
from diptych.tui.widgets.whole_numbers import Phrases, WholeNumbers

__all__ = ["EMPTY_QUEUE_HINT", "VIA", "ReviewView", "known_reviewer", "open_review"]

#: Reviewer names already given, per running app: the name is asked once, not per screen.
_REVIEWERS: weakref.WeakKeyDictionary[App[Any], str] = weakref.WeakKeyDictionary()
#: Apps whose user closed the question unanswered: entering Review again there does not ask
#: it again at once (a label key does, as no label is stored without a name).
_DECLINED: weakref.WeakSet[App[Any]] = weakref.WeakSet()
#: What every label given here records as its origin.
VIA = "diptych tui review"


def known_reviewer(app: App[Any], store_path: Path) -> str | None:
    """The reviewer's name where it is known without asking: the app's, the one given earlier
    in this app, else the one the workspace remembers (None: to be asked)."""
    known = getattr(app, "reviewer", None) or _REVIEWERS.get(app)
    if isinstance(known, str):
        return reviewer_name(known)
    # One preference, read on the UI thread (a few milliseconds): whether to ask must be
    # known before the screen takes a key, or the keys typed meanwhile land under the question.
    try:
        with Workspace.open(store_path, create=False) as ws:
            return ws.preferences.last_reviewer()
    except DiptychError:
        return None  # the queue's own read says what is wrong with the workspace


def open_review(app: App[Any], screen: ReviewView) -> None:
    """Show ``screen`` with, in the same step, the question of who reviews where no name is
    known: every key typed after the one that opened Review goes into the name's field, while
    the queue loads behind the question."""
    app.push_screen(screen)
    screen.ask_reviewer_unless_known()


class ReviewView(ReviewDrawing):
    """The current person of a run's review queue, drawn; what the reviewer gave, stored."""

    # Its messages, as a host names them (``ReviewScreen.ImageShown``).
    QueueLoaded: TypeAlias = msg.QueueLoaded
    ImageDecoded: TypeAlias = msg.ImageDecoded
    ImageShown: TypeAlias = msg.ImageShown
    LabelSaved: TypeAlias = msg.LabelSaved
    MetricsUpdated: TypeAlias = msg.MetricsUpdated

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
        """``reviewer``: the name to label as (else the workspace's last one, else asked);
        ``seed``: of the blind-mode shuffle (else drawn when blind mode starts); ``renderer``:
        force an image renderer (see :mod:`diptych.tui.widgets.images`); ``prefetch``:
        how many images ahead to decode (0 turns prefetching off)."""
        super().__init__()
        self.store_path = Path(store_path)
        self.run_id = run_id
        # The bare name (``human:alice`` given is ``alice``); a name that cannot be an
        # annotator id is refused here rather than at the first label.
        self.reviewer = (
            None if reviewer is None else human_annotator(reviewer).removeprefix(HUMAN_PREFIX)
        )
        self.state = ReviewState(blind=blind, seed=seed)
        self.include_unlabelled = include_unlabelled
        self.prefetch = prefetch
        self.zoomed = False
        self._renderer = renderer
        self._writes = ReviewWrites()
        self._probe: Probe | None = None
        self._choices: tuple[tuple[str, str], ...] = ()
        self._footer_choices: tuple[tuple[str, str], ...] = ()
        self._asking = False
        self._lines: dict[str, str | Text] = {}
        self._cache = ImageCache()
        self._box: Box = (800, 480)
        self.shown: tuple[int, str | None] | None = None
        self.numbers: dict[str, dict[str, Any]] | None = None
        self._numbers_before: dict[str, dict[str, Any]] | None = None
        self.metrics_generation = 0
        self._metrics_running = False
        self._metrics_dirty = False
        self._loaded = False
        #: Everything the screen said on its line, in order (:meth:`notify`).
        self.said: list[Notification] = []
        self._unsay: Timer | None = None

    # What tests and hosts read of the queue.
    @property
    def items(self) -> dict[int, ReviewItem]:
        return self.state.items

    @property
    def view(self) -> list[int]:
        return self.state.view

    @property
    def cursor(self) -> int | None:
        return self.state.cursor

    @property
    def reason(self) -> str | None:
        return self.state.reason

    @property
    def blind(self) -> bool:
        return self.state.blind

    @property
    def seed(self) -> int | None:
        return self.state.seed

    @property
    def annotator(self) -> str | None:
        return None if self.reviewer is None else human_annotator(self.reviewer)

    def compose(self) -> ComposeResult:
        # Wrapped between its phrases only, where fewer words still do not fit.
        yield Phrases("", id="review-title")
        with Horizontal(id="review-body"):
            yield ReviewPicture(self._renderer, id="review-picture")
            with CardScroll(id="review-card-scroll"):
                yield ReviewCard(id="review-card")
        # What a key said (why it did nothing, what was stored), on a line of the screen's own
        # above the figures: a toast in the corner covered the figures' intervals, and Help.
        yield WholeNumbers("", id="review-said")
        yield WholeNumbers("", id="review-metrics")
        # The command palette still opens with ctrl+p; its footer entry would push keys of
        # this screen off an 80-column footer.
        yield KeysFooter(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self._show_title()
        # Pushed alone (not through open_review): asked now, before the queue is read.
        self.ask_reviewer_unless_known()
        self._load_queue(self.include_unlabelled, None, replace=True)

    async def on_unmount(self) -> None:
        # A label given may still wait for its worker, and the flags derived from the labels
        # may lag behind the last one: both are brought up to date, in a thread, before the
        # screen (or the app) goes.
        await asyncio.to_thread(self._writes.finish, self.store_path, self.run_id)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Say ``message`` on the screen's own line, above the figures, for ``timeout``
        seconds: the app's toast, drawn over the screen's bottom right corner, covered the
        figures' intervals (and Help, opened while it lasted)."""
        note = Notification(message, title, severity, timeout or self.app.NOTIFICATION_TIMEOUT)
        self.said.append(note)
        line = self.query_one("#review-said", WholeNumbers)
        line.set_classes(f"-{severity}")
        line.update(Text(message))
        line.display = True
        if self._unsay is not None:
            self._unsay.stop()
        self._unsay = self.set_timer(note.timeout, self._said_out)

    def _said_out(self) -> None:
        self.query_one("#review-said", WholeNumbers).display = False

    def ask_reviewer_unless_known(self) -> None:
        """Take the name known without asking (:func:`known_reviewer`), else ask for it."""
        if self.reviewer is None and not self._asking:
            self.reviewer = known_reviewer(self.app, self.store_path)
        if self.reviewer is None and self.app not in _DECLINED:
            self.ask_reviewer()

    def ask_reviewer(self) -> None:
        """Open the "Who is reviewing?" dialog, once (a label key may ask while it is open)."""
        if self._asking:
            return
        self._asking = True
        self.app.push_screen(ReviewerNameModal(), self._name_given)

    def _name_given(self, name: str | None) -> None:
        self._asking = False
        if name is None:
            # Escape closes the dialog only: the queue stays to read, and a label key asks
            # again (no name, no labels). Entering Review again in this app does not ask.
            _DECLINED.add(self.app)
            self.notify("no reviewer named: nothing is stored; a label key asks again", timeout=4)
            return
        self._take_name(name)
        self._remember_reviewer(name)

    def _take_name(self, name: str) -> None:
        self.reviewer = name
        _REVIEWERS[self.app] = name
        _DECLINED.discard(self.app)
        self.state.take_stored(self.annotator)
        self.state.rebuild(start_unlabelled=True)
        self._show_current()

    # --- workers -----------------------------------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="review-queue")
    def _load_queue(self, include_unlabelled: bool, probe: Probe | None, replace: bool) -> None:
        with Workspace.open(self.store_path, create=False) as ws:
            run = ws.runs.get(self.run_id)
            probe = probe or ws.runs.probe(run.id)
            items = load_queue(ws, run.id, include_unlabelled=include_unlabelled)
            stored = labelled_by(ws, run.id)
        if not get_current_worker().is_cancelled:
            self.post_message(self.QueueLoaded(run.id, probe, items, replace, stored))

    @work(thread=True, exit_on_error=False, group="review-remember")
    def _remember_reviewer(self, name: str) -> None:
        with Workspace.open(self.store_path, create=False) as ws:
            if not ws.read_only:
                ws.preferences.remember_reviewer(name)

    @work(thread=True, exit_on_error=False, group="review-save")
    def _save_pending(self) -> None:
        """Store what was given so far (the first worker to run stores it all)."""

        def saved(write: Write) -> None:
            label = write.label if isinstance(write, LabelWrite | NoteWrite) else None
            if label is not None:
                annotator = human_annotator(write.reviewer)
                self.post_message(self.LabelSaved(write.subject_id, annotator, label))
            elif isinstance(write, RemoveWrite):
                self.post_message(self.LabelSaved(write.subject_id, "", ""))

        with Workspace.open(self.store_path, create=False) as ws:
            self._writes.save_pending(ws, saved)

    @work(thread=True, exit_on_error=False, group="review-metrics")
    def _recompute(
        self, run_id: str, probe: Probe, refresh: bool, include_unlabelled: bool
    ) -> None:
        with Workspace.open(self.store_path, create=False) as ws:
            if refresh:
                self._writes.refresh_flags(ws, run_id)
                items = load_queue(ws, run_id, include_unlabelled=include_unlabelled)
                stored = labelled_by(ws, run_id)
                self.post_message(self.QueueLoaded(run_id, probe, items, False, stored))
            # The strip shows numbers only: the charts would be built for nothing.
            result = ws.audits.read(run_id, figures=False)
        self.post_message(self.MetricsUpdated(result.numbers))

    def _decode(self, item: ReviewItem) -> None:
        if item.blob is None or item.image_path is None:
            return
        sha = item.blob
        self._cache.pending.add(sha)
        self.run_worker(
            partial(self._decode_in_thread, sha, item.image_path, self._box),
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
        self._recompute(self.run_id, self._probe, refresh, self.include_unlabelled)

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
        elif worker.group == "review-prefetch" and error is not None:
            sha = worker.name.removeprefix("decode:")
            self._cache.pending.discard(sha)
            current = self.state.current()
            if current is not None and current.blob == sha:
                self.query_one(ReviewPicture).show_message(f"cannot show image: {error}")
        elif worker.group == "review-queue" and error is not None:
            self.query_one(ReviewPicture).show_message(f"cannot read the run: {error}")
        elif worker.group in ("review-save", "review-remember") and error is not None:
            self.notify(f"not stored: {error}", severity="error")

    # --- messages ----------------------------------------------------------------------------

    def on_review_screen_queue_loaded(self, message: QueueLoaded) -> None:
        message.stop()
        first = not self._loaded
        self._loaded = True
        self.run_id = message.run_id
        self._probe = message.probe
        self.refresh_bindings()  # the keys the footer offers may depend on the probe
        self.state.load(message.items, replace_all=message.replace)
        self.state.stored = message.labelled_by
        self.state.take_stored(self.annotator)
        self.state.rebuild(start_unlabelled=first or message.replace)
        self._show_current()
        if first:
            self._request_metrics(refresh=False)

    def on_review_screen_image_decoded(self, message: ImageDecoded) -> None:
        message.stop()
        # Done here, not when the worker's state changes: that message may come after this
        # one, and a "not sharp enough" answer in between would wait for a decode that a
        # still-pending mark keeps from starting (blind mode's first image, stuck on
        # "loading image…").
        self._cache.pending.discard(message.sha)
        self._cache.put(message.sha, message.decoded)
        current = self.state.current()
        if current is not None and current.blob == message.sha:
            if self.shown != (current.subject_id, current.blob):
                self._show_current()

    def on_review_screen_label_saved(self, message: LabelSaved) -> None:
        # Not stopped: the host app may want to know too. The flags and the scores follow.
        self._request_metrics(refresh=True)

    def on_review_screen_metrics_updated(self, message: MetricsUpdated) -> None:
        message.stop()
        self._numbers_before = self.numbers
        self.numbers = message.numbers
        self.metrics_generation += 1
        self._show_metrics()

    # --- moving through the queue ----------------------------------------------------------------

    def _say_nobody(self) -> None:
        """Why a key that acts on a person does nothing: the queue is empty."""
        more = "" if self.include_unlabelled else " (u adds those nobody flagged)"
        self.notify(f"nobody to review here{more}", severity="warning")

    def _go(self, moved: bool, where: str) -> None:
        if moved:
            self._show_current()
        elif self.state.current() is None:
            self._say_nobody()
        else:
            self.app.bell()
            self.notify(f"already at the {where} person", timeout=2)

    def action_next(self) -> None:
        self._go(self.state.move(+1), "last")

    def action_previous(self) -> None:
        self._go(self.state.move(-1), "first")

    def action_first(self) -> None:
        self._go(self.state.jump(last=False), "first")

    def action_last(self) -> None:
        self._go(self.state.jump(last=True), "last")

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 1:
            self.dismiss()
        else:
            self.app.exit()

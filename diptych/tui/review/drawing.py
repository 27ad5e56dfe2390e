"""How the Review screen draws its current item: the title, the metrics line, the card and the
picture pane (an image with the person marked, or a text output as text).

:class:`ReviewDrawing` is the base of :class:`~diptych.tui.review.view.ReviewView`:
the view keeps the queue and its workers; this draws whatever the queue's state says, and
never reads the disk (an image not decoded yet is asked of the view's decoding worker).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widgets import Static

from diptych.core.probe import Probe
from diptych.tui.review import messages as msg
from diptych.tui.review.image import mark_person
from diptych.tui.review.panels import (
    ReviewCard,
    ReviewPicture,
    describe_item,
    highlight,
    metrics_text,
    title_text,
)
from diptych.tui.review.prefetch import Box, ImageCache, around
from diptych.tui.review.queue import ReviewItem, assign_keys, probe_choices
from diptych.tui.review.state import ReviewState
from diptych.tui.review.text import NOTHING_TO_READ_BLIND, nothing_to_read_blind, text_output
from diptych.tui.widgets.images import cell_pixels

EMPTY_QUEUE_HINT = (
    "Press u to review every person without a human label, r to change the reason, Escape to "
    "go back."
)


class ReviewDrawing(Screen[None]):
    """Draws the current item of :attr:`state`; the subclass fills the state and decodes."""

    store_path: Path
    run_id: str
    state: ReviewState
    include_unlabelled: bool
    prefetch: int
    numbers: dict[str, dict[str, Any]] | None
    shown: tuple[int, str | None] | None
    _probe: Probe | None
    _loaded: bool
    _choices: tuple[tuple[str, str], ...]
    _footer_choices: tuple[tuple[str, str], ...]
    _lines: dict[str, str | Text]
    _cache: ImageCache
    _box: Box
    _numbers_before: dict[str, dict[str, Any]] | None

    @property
    def annotator(self) -> str | None:
        raise NotImplementedError

    def _decode(self, item: ReviewItem) -> None:
        """Decode ``item``'s image in a worker (it reports back with an ImageDecoded)."""
        raise NotImplementedError

    def on_resize(self, event: events.Resize) -> None:
        self._update_box()
        self._show_title()  # in fewer words where the line is short
        if self.numbers is not None and not self.state.blind:
            self._show_metrics()  # in fewer words under 80 columns

    def _update_box(self) -> None:
        picture = self.query_one(ReviewPicture)
        cols, rows = picture.content_size.width, picture.content_size.height
        if cols and rows:
            cell_w, cell_h = cell_pixels()
            self._box = (cols * cell_w, rows * cell_h)

    # --- drawing -----------------------------------------------------------------------------

    def _choices_for(self, item: ReviewItem | None) -> tuple[tuple[str, str], ...]:
        if item is not None and item.choices is not None:
            # A flag's own labels (a PAIRS reading's options), or none for an output that
            # has nobody to label.
            return assign_keys(item.choices)
        if not self._choices:
            self._choices = probe_choices(self._probe)
        return self._choices

    def _show_title(self) -> None:
        state = self.state
        title = title_text(
            self.run_id,
            state.view,
            state.cursor,
            labelled=state.labelled(self.annotator),
            include_unlabelled=self.include_unlabelled,
            reason=state.reason,
            annotator=self.annotator,
            blind=state.blind,
            width=self._title_width(),
        )
        self._set_line("#review-title", title)

    def _title_width(self) -> int | None:
        """The cells the title line has (its padding aside), once the screen is laid out."""
        width = self.size.width
        return width - 2 if width > 2 else None

    def _show_metrics(self) -> None:
        if self.state.blind:
            # A score that moves right after a label tells whether the label matched the
            # person's stereotype, i.e. who the person is: blind mode keeps it hidden.
            self._set_line("#review-metrics", "metrics hidden in blind mode")
        elif self.numbers is None:
            self._set_line("#review-metrics", "computing metrics…")
        else:
            narrow = self.size.width < 80
            observation = self._probe.observation if self._probe is not None else None
            said = metrics_text(self.numbers, self._numbers_before, narrow, observation)
            self._set_line("#review-metrics", said)

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
        item = self.state.current()
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
            what = f"flagged for {self.state.reason}" if self.state.reason else "flagged"
            picture.show_message(f"nobody {what} in run {self.run_id}")
            card.show(highlight(EMPTY_QUEUE_HINT, ()))
            return
        card.show(
            describe_item(
                item,
                annotator=self.annotator,
                choices=choices,
                blind=self.state.blind,
                seed=self.state.seed,
                note=self.state.notes.get(item.subject_id),
            )
        )
        if nothing_to_read_blind(item.blob, item.output_text, blind=self.state.blind):
            picture.show_message(NOTHING_TO_READ_BLIND)
            self._announce_after_refresh(item)
        elif item.blob is None:
            # A text output: its prompt, the model's text with the flagged words marked,
            # and the candidates' probabilities.
            picture.show_text(
                text_output(
                    item.prompt,
                    item.output_text,
                    item.candidates,
                    highlight(item.output_text or "", item.words),
                    blind=self.state.blind,
                )
            )
            self._announce_after_refresh(item)
        else:
            self._show_image(picture, item)
        self._prefetch_around()

    def _show_image(self, picture: ReviewPicture, item: ReviewItem) -> None:
        assert item.blob is not None
        self._update_box()
        image = self._cache.get(item.blob, self._box)
        if image is None:
            blurry = self._cache.best(item.blob)
            if blurry is not None:
                picture.show_image(mark_person(blurry, item.position))
            else:
                self.shown = None
                picture.show_message("loading image…")
            if item.blob not in self._cache.pending:
                self._decode(item)
            return
        picture.show_image(mark_person(image, item.position))
        self._announce_after_refresh(item)

    def _announce_after_refresh(self, item: ReviewItem) -> None:
        def announce() -> None:
            # Only if the reviewer is still on this person when the screen has been drawn.
            if self.state.cursor == item.subject_id:
                self.shown = (item.subject_id, item.blob)
                self.post_message(msg.ImageShown(item.subject_id, item.blob))

        self.call_after_refresh(announce)

    def _prefetch_around(self) -> None:
        """Decode the next ``prefetch`` images of the view (and the previous one) ahead."""
        state = self.state
        if not self.prefetch or state.cursor not in state.view:
            return
        for sid in around(state.view, state.cursor, self.prefetch):
            item = state.items[sid]
            if (
                item.blob is not None
                and item.blob not in self._cache.pending
                and self._cache.get(item.blob, self._box) is None
            ):
                self._decode(item)

"""The Review screen: look at what the probe flagged in a run and label it by hand.

The queue is the run's flagged people (``ws.review.flags``; why each is flagged is shown and can
be filtered on), optionally with every person who has no human label yet. One key per label
gives it; a worker stores it at once as annotator ``human:<name>`` (the name is asked once), and
the screen does not go away before every label given is stored, so quitting at any moment keeps
them all. After each label a worker recomputes the run's flags and the probe's headline
numbers, and the STS line shows the change.

``t`` arms the tone keys: the ten Monk swatches are drawn beside the person with the
automatic tone and the reviewer's marked in words (:mod:`diptych.tui.review.tone`); ``1``–``9``
and ``0`` (for 10) store the reviewer's perceived skin tone as a label of dimension ``tone``,
``c`` that it cannot be told, ``x`` takes it back, and ``t`` or Escape leaves the tone keys. The
panel shows the run's tone figure, recomputed after each tone as the STS line is.

The reviewer starts at the first person they have not labelled; a label can be taken back
(``x``: kept in the store's history, counted by no metric); a note (``e``) is stored with or
without a label. ``z`` zooms the image to the whole terminal, ``o`` opens it in the system
viewer; the person being labelled is framed on it. The reviewer's name is remembered per
workspace.

Blind mode hides who the person is (identity, prompt) and what anyone else labelled, shuffles
the queue with a seed, and records the seed with every label it gives, so the order can be
reproduced.

Drawing never waits for the disk: the queue, the metrics and the images are read, and the labels
written, in thread workers (each with a Workspace of its own) that report back with messages;
the next few images of the queue are decoded and scaled before the reviewer asks for them
(``diptych.tui.review.prefetch``).
"""

from __future__ import annotations

from dataclasses import replace

from textual import events, on
from textual.binding import Binding

from diptych.core.capabilities import Capability
from diptych.core.labels import CANNOT_IDENTIFY
from diptych.tui.review.image import open_in_viewer
from diptych.tui.review.modals import ALL_REASONS, NoteModal, ReasonModal
from diptych.tui.review.panels import CardScroll
from diptych.tui.review.queue import ReviewItem, reason_counts
from diptych.tui.review.text import NOTHING_TO_READ_BLIND, nothing_to_read_blind
from diptych.tui.review.tone import (
    CHOSEN_TONE_NOTE,
    TONE_KEYS,
    TONE_KEYS_SHOWN,
    TonePanel,
    ToneRemoveWrite,
    ToneWrite,
    tone_text,
)
from diptych.tui.review.view import EMPTY_QUEUE_HINT, VIA, ReviewView
from diptych.tui.review.writes import (
    LabelWrite,
    NoteWrite,
    RemoveWrite,
    Write,
    label_detail,
)

__all__ = ["EMPTY_QUEUE_HINT", "VIA", "ReviewScreen"]


#: The keys that keep the zoom: z and Escape leave it, Help and Quit show over it.
ZOOM_KEYS = ("z", "escape", "question_mark", "f1", "ctrl+q")


class ReviewScreen(ReviewView):
    """Review and label the flagged people of one run."""

    CSS_PATH = "review.tcss"
    HELP_PURPOSE = (
        "Label by hand the people a run's review flags point at, one at a time. On an image "
        "run your label corrects the automatic annotators' and the figures are recomputed after "
        "each one; on a text run the figures read the model's own answers, and your label is "
        "kept for agreement with them only. "
        "M opens the measurement mode, and t the tone keys, for a run of images a model made."
    )
    BINDINGS = [
        # The digits give a tone (on_key) while the tone keys are armed; in the footer then only.
        Binding(",".join(TONE_KEYS), "tone_key", "tone", key_display=TONE_KEYS_SHOWN),
        Binding("m", "label_key('m')", "masc"),
        Binding("f", "label_key('f')", "fem"),
        Binding("c", "label_key('c')", "can't tell"),
        Binding("n,right", "next", "next", key_display="→"),
        Binding("p,left", "previous", "prev", key_display="←"),
        Binding("e", "note", "note"),
        # Upper case: no probe's label key can be one (queue.assign_keys).
        Binding("M", "measure", "measure"),
        Binding("t", "tone_mode", "tone"),
        Binding("x", "remove_label", "take label back", show=False),
        Binding("z", "zoom", "zoom image", show=False),
        Binding("o", "open_image", "open image", show=False),
        Binding("r", "filter_reason", "reason", show=False),
        Binding("b", "toggle_blind", "blind", show=False),
        Binding("u", "toggle_unlabelled", "add unlabelled", show=False),
        Binding("home,g", "first", "first", show=False),
        Binding("end,G", "last", "last", show=False),
        # Escape is everyone's "back" (out of the zoom first); the footer has no room for it.
        Binding("escape", "back", "back", show=False),
    ]

    #: Whether the digits give a tone (``t``), see the module docstring.
    tone_armed = False

    @on(events.Mount)
    async def _mount_tone(self) -> None:
        # Above the person's card, beside the image; before ReviewView.on_mount loads the queue.
        await self.query_one(CardScroll).mount(TonePanel(id="tone-panel"), before=0)

    # --- actions -----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "label_key":
            # m/f/c are in the footer only while they are this person's label keys.
            keys = {k for k, _ in self._choices_for(self.state.current())}
            return parameters[0] in keys
        if action == "measure":
            # The measurement draws persons in images: a run whose outputs are texts has none
            # to draw, so M is not offered there.
            return self.measurable
        if action == "tone_mode":
            # A tone is read from a person in an image: a run whose outputs are texts has none,
            # so t is not offered there, as M is not (pressed, it says why; on_key). Decided by
            # the run, not the card, so the footer is not rebuilt from one person to the next.
            return self.tone_armed or self.measurable
        return True

    def footer_labels(self) -> dict[str, str | None]:
        """The footer shows the keys the tone keys' mode takes while it is armed: the digits
        and c, not m and f (pressed, they say the tone keys are on), and t leaves it; else the
        digits are left out (pressed, they say t arms them)."""
        if self.tone_armed:
            return {"label_key('m')": None, "label_key('f')": None, "tone_mode": "tone off"}
        return {"tone_key": None}

    def action_tone_key(self) -> None:
        """A digit while the tone keys are not armed (while they are, on_key takes it): it
        points to t only where t arms them."""
        if not self._tone_refused("the digits give"):
            self.notify("the digits give a skin tone: t arms them", timeout=3)

    def help_notes(self) -> dict[str, str]:
        """The keys Help marks as not for this run: a text run has no image to measure, give a
        tone from, zoom or open; a run of images it was given (PAIRS, a calibration) none to
        measure or give a tone from (docs/tui.md)."""
        notes: dict[str, str] = {}
        if self._probe is not None and not self.measurable:
            made = "generated-image runs only"
            notes.update(dict.fromkeys(("measure", "tone_mode", "tone_key"), made))
        if self._loaded and not any(i.blob for i in self.state.items.values()):
            notes.update(dict.fromkeys(("zoom", "open_image"), "image runs only"))
        return notes

    @property
    def measurable(self) -> bool:
        """Whether the run's outputs are images with persons a measurement can draw."""
        return self._probe is not None and Capability.IMAGE_GENERATOR in self._probe.capabilities

    def _outputs_are(self) -> str:
        """What a run the measurement mode cannot draw from holds instead, for M's note."""
        if self._probe is not None and Capability.PERSON_ANNOTATOR in self._probe.capabilities:
            return "labels of images it was given"
        if self._probe is not None and Capability.IMAGE_TEXT_ENCODER in self._probe.capabilities:
            return "rankings of images it was given"
        return "texts"

    def on_key(self, event: events.Key) -> None:
        if self.zoomed and event.key not in ZOOM_KEYS:
            # The zoom hides the card, the figures and the said line: a key that acts on the
            # person leaves it first, so that what it does is seen.
            self.action_zoom()
        if event.character == "M" and self._probe is not None and not self.measurable:
            event.stop()
            self.notify(
                "the measurement mode draws persons in images a model made; "
                f"this run's outputs are {self._outputs_are()}",
                severity="warning",
            )
            return
        if event.character == "t" and not self.tone_armed:
            # Taken here: the binding is off where the run has no tone to give, and t says why.
            event.stop()
            self.action_tone_mode()
            return
        if self.tone_armed and event.character in TONE_KEYS:
            event.stop()
            self.give_tone(TONE_KEYS[event.character])
            return
        # A probe's own labels may use keys that are not bindings of this screen.
        keys = dict(self._choices_for(self.state.current()))
        if event.character in keys and event.character not in ("m", "f", "c"):
            event.stop()
            self.give_label(keys[event.character])

    def action_label_key(self, key: str) -> None:
        if self.state.current() is None:
            self._say_nobody()
            return
        if self.tone_armed:
            if key == "c":
                self.give_tone(CANNOT_IDENTIFY)
            else:
                self.notify("the tone keys are on: 1–9, 0 give a tone; t leaves them", timeout=3)
            return
        keys = dict(self._choices_for(self.state.current()))
        if key in keys:
            self.give_label(keys[key])

    def _reviewing(self) -> ReviewItem | None:
        """The current person, once the reviewer is named (else ask, and None)."""
        item = self.state.current()
        if item is None:
            self._say_nobody()
            return None
        if not item.labelable:
            self.notify("nobody here to label: this output is for reading", severity="warning")
            return None
        if self.reviewer is None:
            self.ask_reviewer()
            return None
        return item

    def give_label(self, label: str) -> None:
        """Store ``label`` for the current person (in a worker), then move on to the next;
        refused, with why, where blind mode leaves nothing to read it from."""
        item = self._reviewing()
        if item is None or self.reviewer is None or self.annotator is None:
            return
        if nothing_to_read_blind(item.blob, item.output_text, blind=self.state.blind):
            self.notify(NOTHING_TO_READ_BLIND, severity="warning")
            return
        seed = self.state.seed if self.state.blind else None
        detail = label_detail(VIA, item.reasons, seed=seed)
        self._write(
            LabelWrite(
                self.run_id,
                item.subject_id,
                item.trial_idx,
                item.position,
                label,
                self.reviewer,
                note=self.state.notes.get(item.subject_id),
                detail=detail,
            )
        )
        self.state.give(item, label, self.annotator)
        self._show_current()
        if self._reads_own_answers(item) and not self._said_own_answers:
            # Once a screen: the figures did not move, and the label is still worth keeping.
            self._said_own_answers = True
            self.notify(
                "stored; this run's figures read the model's own answers, so your label is "
                "kept for agreement with them only",
                timeout=6,
            )

    _said_own_answers = False

    def _reads_own_answers(self, item: ReviewItem) -> bool:
        """Whether the person is a text run's, scored by the model's own answer (its label
        under the probe's own annotator): a human label is not counted in its figures."""
        own = self._probe.self_annotator if self._probe is not None else None
        return item.blob is None and any(who == own for who, _ in item.automatic)

    def _write(self, write: Write) -> None:
        self._writes.add(write)
        self._save_pending()

    def action_remove_label(self) -> None:
        item = self._reviewing()
        if item is None or self.reviewer is None or self.annotator is None:
            return
        if self.tone_armed:
            self._take_tone_back(item)
            return
        if not self.state.take_back(item, self.annotator):
            self.notify("you have not labelled this person", severity="warning")
            return
        self._write(
            RemoveWrite(self.run_id, item.subject_id, item.trial_idx, item.position, self.reviewer)
        )
        self._show_current()

    # --- skin tone ---------------------------------------------------------------------------

    def _toneable(self, item: ReviewItem | None) -> bool:
        """Whether a tone can be given to ``item``: a person in an image a model made (a tone
        on an image the run was given counts in none of its figures)."""
        return self.measurable and item is not None and item.labelable and item.blob is not None

    def _tone_refused(self, keys: str) -> bool:
        """Say in one line why ``keys`` ("t gives") give no tone here; False when they do."""
        item = self.state.current()
        if self._probe is not None and not self.measurable:
            made = f"this run's outputs are {self._outputs_are()}"
            why = f"{keys} a skin tone to persons in images a model made; {made}"
        elif item is None:
            self._say_nobody()
            return True
        elif not self._toneable(item):
            why = f"{keys} a skin tone to a person in an image; this output has none"
        else:
            return False
        self.notify(why, severity="warning")
        return True

    def action_tone_mode(self) -> None:
        """Arm (or disarm) the tone keys for the people of an image run."""
        if not self.tone_armed and self._tone_refused("t gives"):
            return
        self.tone_armed = not self.tone_armed
        self.refresh_bindings()  # the footer shows the keys the tone keys' mode takes
        self._show_tone()

    def give_tone(self, label: str) -> None:
        """Store ``label`` as the reviewer's perceived skin tone of the current person (in a
        worker); the reviewer stays on the person, to see the figure move."""
        item = self._reviewing()
        if item is None or self.reviewer is None or self.annotator is None:
            return
        if not self._toneable(item):
            self.notify("nobody in an image here to give a tone", severity="warning")
            return
        seed = self.state.seed if self.state.blind else None
        detail = label_detail(VIA, item.reasons, seed=seed)
        self._write(
            ToneWrite(
                self.run_id,
                item.subject_id,
                item.trial_idx,
                item.position,
                label,
                self.reviewer,
                detail=detail,
            )
        )
        self._set_own_tone(item, label)
        if not self._said_chosen_tone:
            # Once a screen, as for a text run's labels: stored, but not in the corrected figure.
            self._said_chosen_tone = True
            self.notify(CHOSEN_TONE_NOTE, timeout=6)

    _said_chosen_tone = False

    def _take_tone_back(self, item: ReviewItem) -> None:
        if not any(a == self.annotator for a, _, _ in item.tones):
            self.notify("you have not given this person a tone", severity="warning")
            return
        assert self.reviewer is not None
        self._write(
            ToneRemoveWrite(
                self.run_id, item.subject_id, item.trial_idx, item.position, self.reviewer
            )
        )
        self._set_own_tone(item, None)

    def _set_own_tone(self, item: ReviewItem, label: str | None) -> None:
        tones = tuple(t for t in item.tones if t[0] != self.annotator)
        if label is not None and self.annotator is not None:
            tones = (*tones, (self.annotator, label, None))
        self.state.items[item.subject_id] = replace(item, tones=tones)
        self._show_current()

    def _show_metrics(self) -> None:
        super()._show_metrics()
        self._show_tone()

    def _show_tone(self) -> None:
        panels = self.query(TonePanel)
        if not panels:
            return
        panel, item = panels.first(), self.state.current()
        if self.tone_armed and not self._toneable(item):
            self.tone_armed = False
            self.refresh_bindings()
        panel.display = self._toneable(item)
        if item is None or not panel.display:
            return
        panel.show(
            tone_text(
                item,
                self.annotator,
                self.numbers,
                self._numbers_before,
                blind=self.state.blind,
                armed=self.tone_armed,
            )
        )

    def action_filter_reason(self) -> None:
        counts = reason_counts(self.state.items[sid] for sid in self.state.order)

        def chosen(answer: str | None) -> None:
            if answer is None:
                return
            self.state.reason = None if answer == ALL_REASONS else answer
            self.state.rebuild(start_unlabelled=True)
            self._show_current()

        self.app.push_screen(ReasonModal(counts, self.state.reason), chosen)

    def action_note(self) -> None:
        item = self._reviewing()
        if item is None:
            return

        def noted(text: str | None) -> None:
            if text is None or self.reviewer is None:
                return
            self.state.set_note(item.subject_id, text)
            label = self.state.mine.get(item.subject_id)
            note = NoteWrite(
                self.run_id, item.subject_id, item.trial_idx, item.position, text, self.reviewer
            )
            self._write(replace(note, label=label))
            self._show_current()

        about = f"the {item.position} person" if item.position else "this person"
        self.app.push_screen(NoteModal(self.state.notes.get(item.subject_id, ""), about), noted)

    def action_toggle_blind(self) -> None:
        self.state.blind = not self.state.blind
        self.state.reorder()
        self.state.rebuild(start_unlabelled=True)
        self._show_current()
        if self.state.blind:
            self.notify(
                "blind review on: identity, others' labels and figures hidden; order shuffled",
                timeout=4,
            )
        else:
            self.notify(
                "blind review off: identity, labels and figures shown; plan order", timeout=4
            )

    def action_toggle_unlabelled(self) -> None:
        self.include_unlabelled = not self.include_unlabelled
        self._show_title()
        self._load_queue(self.include_unlabelled, self._probe, replace=True)
        if self.include_unlabelled:
            self.notify("unlabelled people added to the queue (u takes them out)", timeout=4)
        else:
            self.notify(
                "the queue holds the flagged people only (u adds the unlabelled)", timeout=4
            )

    def action_zoom(self) -> None:
        """The image alone, over the whole terminal (z or Escape comes back)."""
        item = self.state.current()
        if not self.zoomed and (item is None or item.blob is None):
            if item is None:
                self._say_nobody()
            else:
                self.notify("z zooms an image; this output is a text", severity="warning")
            return
        self.zoomed = not self.zoomed
        self.set_class(self.zoomed, "-zoomed")
        if self.zoomed:
            # The footer is hidden with everything else: say how to come back.
            self.notify("z or Escape leaves the zoom (any other key leaves it and acts)", timeout=4)
        # Drawn again once laid out: the box to fill has changed, and a sharper image may be
        # needed for it.
        self.call_after_refresh(self._show_current)

    def action_measure(self) -> None:
        """The measurement mode: the run's active draw, the figure live."""
        from diptych.tui.review.measure.mode import MeasureScreen

        def back(_: None) -> None:
            # The labels given there are this run's too: the queue and the scores follow.
            self._load_queue(self.include_unlabelled, self._probe, replace=False)
            self._request_metrics(refresh=True)

        screen = MeasureScreen(
            self.store_path, self.run_id, reviewer=self.reviewer, renderer=self._renderer,
            prefetch=self.prefetch,
        )  # fmt: skip
        self.app.push_screen(screen, back)

    def action_open_image(self) -> None:
        item = self.state.current()
        if item is None or item.image_path is None:
            self.notify("no image here to open", severity="warning")
            return
        self.notify(open_in_viewer(item.image_path))

    def action_back(self) -> None:
        if self.tone_armed:
            self.action_tone_mode()
        elif self.zoomed:
            self.action_zoom()
        else:
            super().action_back()

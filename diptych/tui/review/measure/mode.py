"""The Review screen's measurement mode (``M``): label the persons an active draw serves, and
watch the figure the audit cares about narrow.

The queue is the run's measurement draw (``ws.measurement``,
:mod:`diptych.core.metrics.uncertainty.ppi.draw`): persons drawn with a probability that rises with
the automatic annotator's uncertainty, served in the draw's seeded order, and opened again where
it was left. Every label given here is stored as a human label of design ``active`` with the
person's probability, the draw and its place in it, so it enters the prediction-powered figure;
the reviewer may stop after any label and the weights stay valid. The card is blind (identity,
prompt and the annotator's labels hidden): a label that is to correct the annotator must not
lean on it. A person is served until labelled (``c`` when the gender cannot be told), and a
label cannot be taken back here (``m``/``f``/``c`` again replaces it) — a gap would leave the
labels after it out of the figure.

Beside the image, after every label (computed in a worker): the measured figure — the
prediction-powered paired STS, or the STS figure an audit's gate names for this run — with its
interval now and people's labels' own, the expected half-width after 10 and 50 more labels, the
interval that may be looked at after every label, and "enough" once that interval decides the
gate or the half-width reaches the one the reviewer typed (``w``)
(:mod:`diptych.core.metrics.uncertainty.ppi.stop`). ``M`` or Escape goes back to the Review screen.

``t`` measures perceived skin tone on the same draw instead (and back): ``1``–``9`` and ``0``
(for 10) give the person's Monk step, ``c`` that it cannot be told, stored as tone labels with
the draw's probabilities; the figure is the prediction-powered tone gap (else the share of Monk
4–7, :func:`~diptych.tui.review.tone.measured_tone_figure`), its interval and "enough" by the
same rule as the STS's. The draw serves in order the persons whose tone is not given yet.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events, on, work
from textual.binding import Binding, BindingType
from textual.widgets import Input
from textual.worker import get_current_worker

from diptych.core.errors import DiptychError
from diptych.core.labels import GENDER, TONE, LabelDimension
from diptych.core.metrics.uncertainty.ppi.stop import MeasureStatus, measure_status
from diptych.core.report.formatting import fmt
from diptych.core.workspace import Workspace
from diptych.core.workspace.measurement import MeasurementDraw, MeasureTarget
from diptych.tui.review.measure.panel import (
    DrawnLabelWrite,
    DrawOpened,
    MeasurePanel,
    half_width_given,
    measure_text,
    measured_figure,
    verdict_text,
)
from diptych.tui.review.panels import CardScroll, fit_phrases, reviewer_words
from diptych.tui.review.queue import FlagNote, ReviewItem, load_queue
from diptych.tui.review.state import ReviewState
from diptych.tui.review.tone import TONE_KEYS, TONE_KEYS_SHOWN
from diptych.tui.review.view import VIA, ReviewView
from diptych.tui.review.writes import label_detail

__all__ = ["MeasureScreen"]

#: The tone keys as the card's "label:" line names them.
TONE_CHOICES = (("1–9", "Monk step"), ("0", "step 10"), ("c", "cannot identify"))
#: Why a person is in the measurement queue (beside the flags it has).
DRAWN = FlagNote("drawn_for_measurement", {})


@dataclass
class DrawState(ReviewState):
    """The Review state in the draw's order: blind cards, never shuffled again."""

    def reorder(self) -> None:
        self.order = list(self.plan_order)


class MeasureScreen(ReviewView):
    """The measurement mode of the Review screen (module docstring).

    A screen of its own over the Review screen's machinery (:class:`ReviewView`: the queue,
    the images, the writes), pushed by ``M`` there; its keys are only those that mean something
    in a draw."""

    HELP_TITLE = "Review screen: measurement mode (M)"
    CSS_PATH = "../review.tcss"
    HELP_PURPOSE = (
        "Label the persons an active draw serves, so that the prediction-powered figure narrows "
        "where it is least sure; the figure and its interval are recomputed after every label, "
        "and you may stop after any one."
    )
    #: Left to Help first where the footer has no room for every key (widgets/footer.py).
    FOOTER_SPARE: ClassVar[tuple[str, ...]] = ("previous", "half_width")
    AUTO_FOCUS = ""  # the half-width box takes focus only when asked (w): keys label persons
    BINDINGS: ClassVar[list[BindingType]] = [
        # The digits give a tone (on_key) while skin tone is measured; in the footer then only.
        Binding(",".join(TONE_KEYS), "tone_key", "tone", key_display=TONE_KEYS_SHOWN),
        Binding("m", "label('masculine')", "masc"),
        Binding("f", "label('feminine')", "fem"),
        Binding("c", "label('cannot_identify')", "can't tell"),
        Binding("n,right", "next", "next", key_display="→"),
        Binding("p,left", "previous", "prev", key_display="←"),
        Binding("home,g", "first", "first", show=False),
        Binding("end,G", "last", "first unlabelled", show=False),
        Binding("w", "half_width", "± enough"),
        Binding("t", "measure_tone", "tone"),
        Binding("M", "leave", "review"),
        Binding("escape", "back", "back", show=False),
    ]

    def __init__(
        self,
        store_path: Path,
        run_id: str,
        *,
        reviewer: str | None = None,
        budget: float | None = None,
        seed: int | None = None,
        half_width: float | None = None,
        renderer: str | None = None,
        prefetch: int = 4,
    ) -> None:
        """``budget``: the labels a new draw is made for (the expected number drawn; the
        workspace's default otherwise) and ``seed`` its order's and draws' seed (else drawn);
        ``half_width``: "enough" at this half-width."""
        super().__init__(store_path, run_id, reviewer=reviewer, renderer=renderer,
                         prefetch=prefetch)  # fmt: skip
        self.state = DrawState(blind=True)
        self.budget = budget
        self.seed_of_draw = seed
        self.half_width = half_width
        self.draw: MeasurementDraw | None = None
        self.target: MeasureTarget | None = None
        self.status: MeasureStatus | None = None
        #: What the labels given are about: perceived gender (m/f/c) or skin tone (t: digits).
        self.dimension: LabelDimension = GENDER

    @on(events.Mount)
    async def _mount_panel(self) -> None:
        # Beside the image, above the person's card; before ReviewView.on_mount loads the
        # draw (through _load_queue): a subclass's handlers run first.
        await self.query_one(CardScroll).mount(MeasurePanel(id="measure-panel"), before=0)
        if self.half_width is not None:
            self.query_one("#measure-width", Input).value = f"{self.half_width:g}"

    # --- what the reviewer does ---------------------------------------------------------------

    def footer_labels(self) -> dict[str, str | None]:
        """The footer shows the keys of the dimension measured: m and f give no tone (pressed,
        they say so), the digits no gender (pressed, they say so), and t goes to the other."""
        if self.dimension == TONE:
            return {
                "label('masculine')": None,
                "label('feminine')": None,
                "measure_tone": "perceived gender",
            }
        return {"tone_key": None}

    def _choices_for(self, item: ReviewItem | None) -> tuple[tuple[str, str], ...]:
        # The card's "label:" line names the keys of the dimension measured, as the footer does.
        return TONE_CHOICES if self.dimension == TONE else super()._choices_for(item)

    def on_key(self, event: events.Key) -> None:
        if self.dimension == TONE and event.character in TONE_KEYS:
            event.stop()
            self.action_label(TONE_KEYS[event.character])

    def action_measure_tone(self) -> None:
        """Measure skin tone on the draw (or perceived gender again): the queue is read again
        with this dimension's labels of the draw, and the figure follows."""
        self.dimension = GENDER if self.dimension == TONE else TONE
        self.target = None
        self.refresh_bindings()  # the footer shows the keys of the dimension now measured
        self._load_queue(self.include_unlabelled, None, replace=True)
        self._show_metrics()

    def action_tone_key(self) -> None:
        """A digit while perceived gender is measured (while skin tone is, on_key takes it)."""
        self.notify("the digits give a skin tone: t measures skin tone on this draw", timeout=3)

    def action_label(self, label: str) -> None:
        """Store ``label`` for the person served (in a worker) and serve the next one."""
        item = self.state.current()
        if self.dimension == TONE and label in ("masculine", "feminine"):
            self.notify(
                "measuring skin tone: 1–9, 0 give a tone, c can't tell; t for perceived gender"
            )
            return
        if item is None:
            self.app.bell()
            self.notify("nobody in this draw to label", severity="warning")
            return
        if self.reviewer is None or self.annotator is None:
            self.ask_reviewer()
            return
        detail = {**label_detail(VIA, item.reasons), "blind": True}
        write = DrawnLabelWrite(
            self.run_id, item.subject_id, item.trial_idx, item.position, label, self.reviewer,
            detail=detail, dimension=self.dimension,
        )  # fmt: skip
        self._writes.add(write)
        self._save_pending()
        self.state.give(item, label, self.annotator)
        self._show_current()

    def _frontier(self) -> int | None:
        """The first person served and not labelled in the draw."""
        return next((sid for sid in self.state.view if not self.state.items[sid].humans), None)

    def _go(self, moved: bool, where: str) -> None:
        if moved:
            self._show_current()
        elif self.state.current() is None:
            self.app.bell()
            self.notify("nobody in this draw to label", severity="warning")
        else:
            self.app.bell()
            self.notify(f"already at the draw's {where} person", timeout=2)

    def action_next(self) -> None:
        if self.state.cursor == self._frontier():
            self.notify(
                "label this person first: the draw serves its persons in order "
                f"(c when the {'tone' if self.dimension == TONE else 'gender'} cannot be told)",
                severity="warning",
            )
            return
        self._go(self.state.move(+1), "last")

    def action_last(self) -> None:
        frontier = self._frontier()
        if frontier is None:
            self._go(self.state.jump(last=True), "last")
            return
        if self.state.cursor == frontier:
            self.app.bell()
            self.notify("already at the draw's first person not labelled", timeout=2)
            return
        self.state.cursor = frontier
        self._show_current()

    def action_leave(self) -> None:
        self.dismiss()

    def action_half_width(self) -> None:
        self.query_one("#measure-width", Input).focus()

    def action_back(self) -> None:
        box = self.query_one("#measure-width", Input)
        if box.has_focus:
            self.set_focus(None)
            return
        super().action_back()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.half_width = half_width_given(event.value)
        self.set_focus(None)
        self._show_metrics()

    # --- workers ------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="review-queue")
    def _load_queue(self, include_unlabelled: bool, probe: object, replace: bool) -> None:
        try:
            with Workspace.open(self.store_path, create=False) as ws:
                run = ws.runs.get(self.run_id)
                found = ws.runs.probe(run.id)
                draw = ws.measurement.draw(run.id, budget=self.budget, seed=self.seed_of_draw)
                target = ws.measurement.target(run.id, self.dimension)
                people = {p.subject_id: p.rank for p in draw.persons}
                items = load_queue(ws, run.id, only=people)
        except DiptychError as error:
            self.post_message(DrawOpened(None, None, str(error)))
            return
        if get_current_worker().is_cancelled:
            return
        # In the draw's order, each with only the labels given in this draw (an earlier label
        # of the person, chosen in review, is not this draw's) and the reason it is here.
        items = sorted(
            (
                dataclasses.replace(
                    i,
                    humans=draw.given(self.dimension).get(i.subject_id, ()),
                    flags=(*i.flags, DRAWN),
                )
                for i in items
            ),
            key=lambda i: people[i.subject_id],
        )
        self.post_message(DrawOpened(draw, target))
        self.post_message(self.QueueLoaded(run.id, found, items, True))

    @work(thread=True, exit_on_error=False, group="review-metrics")
    def _recompute(
        self, run_id: str, probe: object, refresh: bool, include_unlabelled: bool
    ) -> None:
        # The flags do not change the draw; they are brought up to date as the screen goes.
        # The panel shows numbers only: the charts would be built again after every label.
        with Workspace.open(self.store_path, create=False) as ws:
            result = ws.analysis.analyze(run_id, figures=False)
        self.post_message(self.MetricsUpdated(result.numbers))

    def on_review_screen_draw_opened(self, message: DrawOpened) -> None:
        message.stop()
        if message.draw is None or message.target is None:
            # Said on the screen this one closes back to (Review's own line, see notify).
            below = self.app.screen_stack[-2] if len(self.app.screen_stack) > 1 else self.app
            self.dismiss()
            below.notify(f"no measurement: {message.error}", severity="error")
            return
        self.draw, self.target = message.draw, message.target
        self.state.seed = message.draw.seed

    # --- drawing ------------------------------------------------------------------------------

    def _labelled(self) -> int:
        return sum(1 for sid in self.state.view if self.state.items[sid].humans)

    def _show_title(self) -> None:
        state, draw = self.state, self.draw
        at = state.view.index(state.cursor) + 1 if state.cursor in state.view else 0
        of = f" drawn of {fmt(draw.population)}" if draw is not None else ""
        measured = ["skin tone"] if self.dimension == TONE else []
        head = [f"Measure {self.run_id}", *measured, f"{fmt(at)}/{fmt(len(state.view))}{of}"]
        labelled = f"{fmt(self._labelled())} labelled"
        who = [reviewer_words(self.annotator)] if self.annotator else []
        title = fit_phrases([[*head, *who, labelled]], self._title_width())
        self._set_line("#review-title", title)

    def _show_metrics(self) -> None:
        panels = self.query(MeasurePanel)
        if not panels:
            return
        self.status, waiting = self._status()
        panels.first().show(measure_text(self.status, self.draw, self._labelled(), waiting))
        if self.status is not None:
            self._set_line("#review-metrics", verdict_text(self.status))
        else:
            self._set_line("#review-metrics", Text(waiting or "computing…", style="italic"))

    def _status(self) -> tuple[MeasureStatus | None, str | None]:
        if self.target is None or self.draw is None:
            return None, "opening the draw…"
        if self.numbers is None:
            return None, "computing the figure…"
        figure = measured_figure(self.numbers, self.target)
        if figure is None:
            return None, (
                "no prediction-powered figure yet: it needs labels of this draw "
                f"({self.target.describe()})"
            )
        try:
            status = measure_status(
                self.numbers[figure], figure, budget=max(1, round(self.draw.budget)),
                gate=self.target.gate, target=self.half_width,
            )  # fmt: skip
        except (ValueError, KeyError) as why:
            return None, f"{figure}: no interval yet ({why})"
        if not math.isfinite(status.half_width):
            return None, f"{figure}: no interval yet"
        return status, None

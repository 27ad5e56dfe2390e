"""What the Review screen draws: the picture (or text output), the person's card, the metrics.

The picture is drawn by the textual-image widget of :mod:`diptych.tui.widgets.images`, which
the screen's ``renderer`` argument or ``DIPTYCH_TUI_IMAGES`` may force.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PIL import Image as PILImage
from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from diptych.core.labels import HUMAN_PREFIX
from diptych.core.report.formatting import (
    figure_text,
    floor_note,
    fmt,
    interval,
    level_text,
    marked_interval,
    observations,
)
from diptych.core.report.quick_look import QUICK_LOOK_MARK, quick_look
from diptych.tui.formatting import narrow_floor_note, quick_look_said, short_name
from diptych.tui.review.queue import NO_HUMAN_LABEL, ReviewItem, highlight
from diptych.tui.review.text import NOTHING_TO_READ_BLIND, nothing_to_read_blind
from diptych.tui.widgets.images import image_widget_class
from diptych.tui.widgets.whole_numbers import WholeIds


class ReviewPicture(Vertical):
    """The output under review: an image, or a text with its flagged words highlighted."""

    DEFAULT_CSS = """
    ReviewPicture {
        align: center middle;
        /* A prompt and its answer's probabilities longer than a short terminal: the rest a
           scroll away, never cut off below the box. */
        overflow-y: auto;
    }
    ReviewPicture > .review-image {
        width: auto;
        height: auto;
    }
    ReviewPicture > #review-text {
        width: 100%;
        height: auto;
        padding: 0 1;
    }
    ReviewPicture > #review-message {
        width: 100%;
        height: auto;
        content-align: center middle;
        color: $text-muted;
    }
    """

    def __init__(self, renderer: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._image_class = image_widget_class(renderer)
        #: The text output shown (None while an image or a message is), for tests and hosts.
        self.text: Text | None = None

    def compose(self) -> ComposeResult:
        image = self._image_class(classes="review-image")
        image.display = False
        yield image
        text = Static("", id="review-text")
        text.display = False
        yield text
        yield Static("loading…", id="review-message")

    @property
    def image_widget(self) -> Widget:
        return self.query_one(".review-image")

    def show_image(self, image: PILImage.Image) -> None:
        self.text = None
        widget = self.image_widget
        # textual-image's widgets take the picture through this property.
        widget.image = image  # type: ignore[attr-defined]
        widget.display = True
        self.query_one("#review-text").display = False
        self.query_one("#review-message").display = False

    def show_text(self, text: Text) -> None:
        self.text = text
        self.image_widget.display = False
        shown = self.query_one("#review-text", Static)
        shown.update(text)
        shown.display = True
        self.query_one("#review-message").display = False

    def show_message(self, message: str) -> None:
        self.text = None
        self.image_widget.display = False
        self.query_one("#review-text").display = False
        note = self.query_one("#review-message", Static)
        note.update(message)
        note.display = True


class CardScroll(VerticalScroll, can_focus=False):
    """Scrolls a long card with the mouse but never takes focus: its arrow-key bindings would
    otherwise swallow ← and →, which move through the queue."""


class ReviewCard(WholeIds):
    """The person under review: why they are flagged, who they are, what others said (the
    image's id folded whole on a narrow card)."""

    DEFAULT_CSS = """
    ReviewCard {
        width: 100%;
        height: auto;
        padding: 0 1;
    }
    """


def _reason_text(reason: str, detail: Mapping[str, Any], blind: bool) -> str:
    name = "no human label yet" if reason == NO_HUMAN_LABEL else reason.replace("_", " ")
    if blind:
        # A detail carries other annotators' labels or the words a rewrite added: both would
        # tell the reviewer what to see.
        return name
    if reason == "annotator_abstained" and detail.get("annotators"):
        return f"{name} ({', '.join(map(str, detail['annotators']))})"
    if reason == "annotators_disagree" and isinstance(detail.get("labels"), Mapping):
        labels = ", ".join(f"{a}: {v}" for a, v in detail["labels"].items())
        return f"{name} ({labels})"
    if reason == "person_count" and isinstance(detail.get("found"), Mapping):
        found = ", ".join(f"{a}: {n}" for a, n in detail["found"].items())
        return f"{name} (expected {detail.get('expected')}, found {found})"
    if reason == "unsure_reading" and detail.get("reading"):
        return f"{name} (read as {detail['reading']}: {detail.get('why', '')})"
    if reason == "crime_lexicon" and detail.get("words"):
        return f"{name} (uses: {', '.join(map(str, detail['words']))})"
    if detail.get("words"):
        return f"{name} (adds: {', '.join(map(str, detail['words']))})"
    return name


def describe_item(
    item: ReviewItem,
    *,
    annotator: str | None,
    choices: Sequence[tuple[str, str]],
    blind: bool,
    seed: int | None,
    note: str | None,
) -> Text:
    """The card of ``item``. In blind mode it leaves out everything that names the person or
    what anyone else (an automatic annotator, another reviewer) saw."""
    out = Text()
    if not item.labelable:
        where = "output (nobody in it to label)"
    else:
        where = f"{item.position.upper()} person" if item.position else "person"
    out.append(where, style="bold")
    if not blind and item.image_id:
        setting = f"{item.setting} " if item.setting else ""
        # A text probe's output answers a prompt: there is no image to speak of.
        kind = "image" if item.blob is not None else "prompt"
        out.append(f" · {setting}{kind} {item.image_id}")
    out.append("\n")
    if item.labelable:
        # What the reviewer gave comes first: on a small terminal the card's end is out of
        # view.
        mine = item.human_label(annotator) if annotator else None
        out.append("your label: ", style="bold")
        out.append(mine or "—", style="bold green" if mine else "")
        out.append("\n")
        out.append("note: ", style="bold")
        out.append((note or "—") + "\n")
    reasons = "; ".join(_reason_text(f.reason, f.detail, blind) for f in item.flags)
    out.append("flagged: ", style="bold")
    out.append((reasons or "no longer flagged") + "\n")
    if blind:
        out.append(
            f"blind: identity, prompt and others' labels hidden; order shuffled (seed {seed})\n",
            style="italic",
        )
    else:
        if item.identity:
            stereotype = f" · stereotyped {item.stereotype}" if item.stereotype else ""
            out.append("identity: ", style="bold")
            out.append(f"{item.identity}{stereotype}\n")
        automatic = ", ".join(f"{a}: {v}" for a, v in item.automatic)
        out.append("automatic: ", style="bold")
        out.append((automatic or "none") + "\n")
        others = ", ".join(f"{a}: {v}" for a, v in item.humans if a != annotator)
        if others:
            out.append("other reviewers: ", style="bold")
            out.append(others + "\n")
        if item.prompt:
            out.append("prompt: ", style="bold")
            out.append_text(highlight(item.prompt, item.words))
            out.append("\n")
        if item.revised_prompt:
            out.append("revised: ", style="bold")
            out.append_text(highlight(item.revised_prompt, item.words))
            out.append("\n")
        if item.group:
            out.append("group: ", style="bold")
            out.append(item.group.replace("_", " ") + "\n")
    if item.blob is not None and item.output_text is not None:
        # A model's answer about the image beside it (a PAIRS reply, a story): the words it
        # was flagged for marked.
        out.append("reply: ", style="bold")
        out.append_text(highlight(item.output_text, item.words))
        out.append("\n")
    out.append("label: ", style="bold")
    if item.labelable and nothing_to_read_blind(item.blob, item.output_text, blind=blind):
        out.append(f"— ({NOTHING_TO_READ_BLIND})")
        return out
    if not choices:
        out.append("— (shown for reading; nothing here takes a label)")
    out.append(" · ".join(f"{k} {label.replace('_', ' ')}" for k, label in choices))
    return out


def format_estimate(
    estimate: Mapping[str, Any],
    narrow: bool = False,
    observation: str | None = None,
    quick: bool | None = None,
) -> str:
    """A figure as Run detail's row has it: its value, its interval (a quick look's marked
    :data:`QUICK_LOOK_MARK`) and ``n`` counting the probe's ``observation``s with their noun
    ("16 prompts"), so that a figure here counts in the units Run detail uses (``n=16``
    where the probe is not known). ``quick``: whether it is a quick look, where its interval's
    name was taken off to be said once for all (a gate's interval is no quick look)."""
    value = estimate.get("value")
    if not isinstance(value, int | float):
        return str(value)
    # The report's formatter: the same digits, and a gate's interval named, as `diptych show`.
    text = figure_text(value)
    named = estimate.get("interval_name")
    if quick is None:
        quick = bool(quick_look(estimate)) and not named
    if narrow and isinstance(named, str):
        estimate = {**estimate, "interval_name": short_name(named)}
    shown = marked_interval(dict(estimate))
    if shown != "—":
        text += f" {shown}" + (f" {QUICK_LOOK_MARK}" if quick else "")
    n = observations(estimate, observation) if observation else ""
    if n:
        text += f" {n}"
    elif estimate.get("n") is not None:
        text += f" n={figure_text(estimate['n'])}"
    return text


def title_text(
    run_id: str,
    view: Sequence[int],
    cursor: int | None,
    *,
    labelled: int,
    include_unlabelled: bool,
    reason: str | None,
    annotator: str | None,
    blind: bool,
    width: int | None = None,
) -> str:
    """``Review <run> · 3/1,720 · reviewer alice · 2 labelled · all reasons``: where the
    reviewer is in the queue shown, who labels, and what the queue holds. The filter in force
    ("all reasons", or the reason chosen) is always said: where ``width`` cells are too few,
    the line leaves "Review" to the screen, then says ``+unlabelled`` with the filter; still
    too long, it wraps between its phrases (:func:`fit_phrases`), the filter whole on the next
    row. The reviewer is named alike in every width."""
    at = view.index(cursor) + 1 if cursor in view else 0
    position = f"{fmt(at)}/{fmt(len(view))}"
    head = [f"Review {run_id}", position, *(["BLIND"] if blind else [])]
    tail = [f"{fmt(labelled)} labelled", *(["+unlabelled"] if include_unlabelled else [])]
    named = (reason or "").replace("_", " ")
    who = [reviewer_words(annotator)] if annotator else []
    shown = named or "all reasons"
    # Shorter first where the line is short: the screen's name left to the screen, then the
    # unlabelled added said with the filter; still too long, the whole line wraps.
    full = [*head, *who, *tail, shown]
    fewer = [run_id, *head[1:], *who, *tail, shown]
    fewest = [run_id, *head[1:], *who, tail[0]]
    fewest.append(f"{shown} +unlabelled" if include_unlabelled else shown)
    return fit_phrases([full, fewer, fewest, full], width)


def reviewer_words(annotator: str) -> str:
    """Who labels, as a title names them (``human:alice`` is ``reviewer alice``): the same
    words whatever else the line holds, so that a longer line (``+unlabelled``, a narrow
    terminal) never renames the reviewer; the annotator id's prefix is the store's word."""
    return f"reviewer {annotator.removeprefix(HUMAN_PREFIX)}"


#: What parts a title's phrases: a line wraps there only (Phrases).
PHRASE_BREAK = " · "


def fit_phrases(variants: Sequence[Sequence[str]], width: int | None) -> str:
    """The first of ``variants`` (a title's phrases, in ever fewer words) that fits in
    ``width`` cells, else the last: a line that must still wrap does so between phrases."""
    lines = [PHRASE_BREAK.join(v) for v in variants]
    if width is None:
        return lines[0]
    return next((line for line in lines if cell_len(line) <= width), lines[-1])


#: What a label source's figure adds to the policy's figure's name ("…, labels by faces").
SOURCE_SUFFIX = ", labels by "


def _same_as_policy(
    name: str, estimate: Mapping[str, Any], shown: Mapping[str, Mapping[str, Any]]
) -> bool:
    """Whether ``name`` is a label source's figure that is the policy's figure itself (the
    source labelled exactly the persons the policy scored): one figure, shown once."""
    if SOURCE_SUFFIX not in name:
        return False
    policy = shown.get(name.split(SOURCE_SUFFIX)[0])
    keys = ("value", "n", "ci_low", "ci_high", "floor")
    return policy is not None and all(policy.get(k) == estimate.get(k) for k in keys)


def metrics_text(
    numbers: Mapping[str, Mapping[str, Any]],
    before: Mapping[str, Mapping[str, Any]] | None,
    narrow: bool = False,
    observation: str | None = None,
) -> Text:
    """The headline STS figures (every number whose name says STS), each with what it was
    before the last label when that changed it, its ``n`` counting ``observation``s; ``narrow``
    (under 80 columns), a gate's interval and the floor's mark said in fewer words, so that the
    figures keep to a few rows under the image. A quick look is said whole under them, in Run
    detail's words: it is what the figures are worth."""
    shown = {k: v for k, v in numbers.items() if "STS" in k} or dict(list(numbers.items())[:2])
    shown = {k: v for k, v in shown.items() if not _same_as_policy(k, v, shown)}
    out = Text()
    if not shown:
        out.append("no scores yet: give a label", style="italic")
        return out
    names = {v.get("interval_name") for v in shown.values() if interval(dict(v)) != "—"}
    # One name for every interval (a design stopped early: each figure anytime-valid at the
    # same look): said once after the figures, in few words, so that they keep to a few rows.
    shared = next(iter(names)) if len(names) == 1 and len(shown) > 1 else None
    for i, (name, estimate) in enumerate(shown.items()):
        if i:
            out.append(" · ")
        out.append(f"{name} ", style="bold")
        # Marked as Run detail marks it: a gate's interval is no quick look.
        quick = bool(quick_look(estimate)) and not estimate.get("interval_name")
        if isinstance(shared, str):
            estimate = {**estimate, "interval_name": None}
        out.append(format_estimate(estimate, narrow, observation, quick))
        old = (before or {}).get(name)
        if before is not None and old is None:
            out.append(" (new)", style="italic")
        elif old is not None and old.get("value") != estimate.get("value"):
            was = old.get("value")
            was_text = figure_text(was) if isinstance(was, int | float) else str(was)
            out.append(f" (was {was_text})", style="italic")
    if isinstance(shared, str):
        # "all" only when every figure has that interval (one with none: "the intervals");
        # the look at length where the line has room, in few words under 80 columns.
        counted = sum(interval(dict(v)) != "—" for v in shown.values())
        whose = "all" if counted == len(shown) else f"interval{'s' if counted > 1 else ''}"
        said = short_name(shared) if narrow else shared.replace(" interval, look", ", look")
        out.append(f" ({whose} {said})")
    elif names == {None}:
        # Unnamed intervals (a fixed design's, at its level): the level said once, so that no
        # figure stands with an interval of no stated level.
        levels = {level_text(float(v.get("confidence") or 0.95)) for v in shown.values()}
        if len(levels) == 1:
            counted = sum(interval(dict(v)) != "—" for v in shown.values())
            out.append(f" ({levels.pop()} interval{'s' if counted > 1 else ''})")
    for line in floor_note(shown):
        # Once, under the figures (narrow: after them): what the mark beside an interval means.
        out.append(f" · {narrow_floor_note(shown)}" if narrow else f"\n{line}", style="dim")
    for line in quick_look_said(shown):
        # Not dim, as in Run detail: it says the figures above decide nothing.
        out.append(f"\n{line}", style="yellow")
    return out

"""The Review screen's skin-tone panel: the ten Monk swatches beside the person, the automatic
tone and the reviewer's, and the run's tone figure.

Each swatch is a cell of the published sRGB colour of its step (Monk Skin Tone scale,
:data:`~diptych.core.metrics.tone.scale.MONK_SRGB`) with the step's number written in it, and
the row under the swatches says in words which is the annotator's (``auto``) and which the
reviewer's (``you``): colour is never the only way to tell them apart, and the terminal's
palette may not render the tones faithfully. The reviewer's tone is stored as a human label of
dimension ``tone`` (:class:`ToneWrite`); the figure shown is the one the pst probe publishes for
tones (the paired tone gap, else the share of Monk steps 4–7), with what it was before the
last label.

A tone given here is the reviewer's choice of person, so it is kept for agreement and never
enters the prediction-powered tone figures (:data:`CHOSEN_TONE_NOTE` says so once a screen);
the measurement mode's ``t`` measures those: its tones, given on the draw's persons in the
draw's order, are stored with their probabilities (:func:`measured_tone_figure`).

No worker and no arithmetic here: the screen hands in the item and the numbers its workers read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.widgets import Static

from diptych.core.labels import CANNOT_IDENTIFY, TONE, is_human
from diptych.core.labels.tone import MONK_LABELS, monk_label, monk_step, tone_label
from diptych.core.metrics.tone.scale import MONK_SRGB
from diptych.core.report.formatting import figure_text
from diptych.core.workspace import Workspace
from diptych.tui.review.panels import format_estimate
from diptych.tui.review.queue import ReviewItem
from diptych.tui.review.writes import LabelWrite, RemoveWrite

#: The key of each step in tone mode: 1 to 9, and 0 for 10.
TONE_KEYS: dict[str, str] = {str(k % 10): monk_label(k) for k in range(1, 11)}
#: The tone keys as a footer shows them.
TONE_KEYS_SHOWN = "1–9,0"
#: The figures shown, in order of preference (the first the run has).
TONE_FIGURES = ("tone gap paired", "tone share Monk 4–7, paired", "tone share Monk 4–7, single")
#: What the Review screen says once, on the first tone given there.
CHOSEN_TONE_NOTE = (
    "stored; a tone you choose to give is kept for agreement: the corrected tone figures take "
    "tones of a drawn sample (M, then t)"
)
#: The suffix of a prediction-powered figure's name.
_CORRECTED = ", prediction-powered"
#: Swatches per row: two rows of five fit the card's column at 60 columns.
_PER_ROW = 5
_CELL = 4


@dataclass(frozen=True)
class ToneWrite(LabelWrite):
    """The reviewer's perceived skin tone of one person (a tone label)."""

    def store(self, ws: Workspace) -> None:
        ws.labels.save(
            self.run_id, self.trial_idx, self.position, self.label,
            reviewer=self.reviewer, note=self.note, detail=self.detail, dimension=TONE,
        )  # fmt: skip


@dataclass(frozen=True)
class ToneRemoveWrite(RemoveWrite):
    """The reviewer takes their tone of one person back."""

    def store(self, ws: Workspace) -> None:
        ws.labels.remove(
            self.run_id, self.trial_idx, self.position, reviewer=self.reviewer, dimension=TONE
        )


def automatic_tone(item: ReviewItem) -> tuple[str, str, float | None] | None:
    """The first automatic annotator's tone of the person (annotator, label, confidence), the
    model's own answer last."""
    found = [t for t in item.tones if not is_human(t[0]) and tone_label(t[1]) is not None]
    found.sort(key=lambda t: t[0] == "self")
    return found[0] if found else None


def human_tone(item: ReviewItem, annotator: str | None) -> str | None:
    """The tone ``annotator`` gave the person, if any."""
    return next((label for a, label, _ in item.tones if a == annotator), None)


def tone_figure(numbers: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The name of the tone figure to show among ``numbers`` (see :data:`TONE_FIGURES`)."""
    for wanted in TONE_FIGURES:
        name = next((n for n in numbers if n.endswith(wanted)), None)
        if name is not None:
            return name
    return None


def measured_tone_figure(numbers: Mapping[str, Any], setting: str) -> str | None:
    """The prediction-powered tone figure the measurement mode shows for a draw of ``setting``:
    the paired tone gap, else the share of Monk 4–7 (as :data:`TONE_FIGURES`, corrected)."""
    wanted = [w for w in TONE_FIGURES if w.endswith(setting)]
    for figure in wanted:
        name = next((n for n in numbers if n.endswith(f"{figure}{_CORRECTED}")), None)
        if name is not None:
            return name
    return None


def _swatch(step: int) -> Text:
    ink = "#111111" if step <= 5 else "#ffffff"
    return Text(f"{step:^{_CELL}}", style=f"bold {ink} on {MONK_SRGB[step - 1]}")


def _mark(step: int, auto: int | None, mine: int | None) -> str:
    if step == auto and step == mine:
        return "both"
    if step == auto:
        return "auto"
    return "you" if step == mine else ""


def tone_text(
    item: ReviewItem,
    annotator: str | None,
    numbers: Mapping[str, Mapping[str, Any]] | None,
    before: Mapping[str, Mapping[str, Any]] | None,
    *,
    blind: bool = False,
    armed: bool = False,
) -> Text:
    """The panel: the swatches with the automatic and the reviewer's step marked in words, both
    tones in full, and the run's tone figure (hidden in blind mode, with the annotator's tone:
    both tell the reviewer what others saw)."""
    auto = None if blind else automatic_tone(item)
    mine = human_tone(item, annotator)
    auto_step = monk_step(auto[1]) if auto else None
    mine_step = monk_step(mine) if mine else None
    out = Text()
    out.append("skin tone", style="bold")
    out.append(" (Monk)")
    if armed:
        out.append(" · TONE KEYS", style="bold reverse")
    out.append("\n")
    for start in range(0, len(MONK_LABELS), _PER_ROW):
        steps = range(start + 1, start + _PER_ROW + 1)
        for step in steps:
            out.append_text(_swatch(step))
        out.append("\n")
        out.append("".join(f"{_mark(s, auto_step, mine_step):^{_CELL}}" for s in steps).rstrip())
        out.append("\n")
    if auto is not None:
        confidence = "" if auto[2] is None else f" {figure_text(auto[2])}"
        out.append("auto ", style="bold")
        out.append(f"{auto[1]}{confidence} ({auto[0]})\n")
    elif not blind:
        out.append("auto ", style="bold")
        out.append("no tone\n")
    out.append("you  ", style="bold")
    if mine is not None:
        out.append(f"{mine}{' (not on the scale)' if mine == CANNOT_IDENTIFY else ''}\n")
    else:
        out.append("no tone yet\n")
    if armed:
        out.append("1–9, 0=10 tone · c can't tell · x take back · t done\n", style="italic")
    else:
        out.append("t, then 1–9 or 0 for 10\n", style="italic")
    if blind:
        out.append("tone figure hidden in blind mode", style="italic")
        return out
    name = tone_figure(numbers or {})
    if name is None:
        out.append("no tone figure yet" if numbers is not None else "computing…", style="italic")
        return out
    estimate = (numbers or {})[name]
    out.append(name.split(": ", 1)[-1], style="bold")
    out.append(f" {format_estimate(estimate)}")
    old = (before or {}).get(name)
    if old is not None and old.get("value") != estimate.get("value"):
        was = old.get("value")
        out.append(
            f" (was {figure_text(was) if isinstance(was, int | float) else was})", style="italic"
        )
    return out


class TonePanel(Static):
    """The skin-tone panel, above the person's card."""

    DEFAULT_CSS = """
    TonePanel {
        width: 100%;
        height: auto;
        padding: 0 1;
        border-bottom: solid $primary-lighten-2;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        #: What is shown, kept so tests and hosts can read it without a screenshot.
        self.text = Text()

    def show(self, text: Text) -> None:
        if text != self.text:
            self.text = text
            self.update(text)

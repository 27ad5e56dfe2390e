"""The measurement mode's side of the Review screen: the measured figure live, what more labels
are expected to do, "enough", and the half-width the reviewer wants.

No arithmetic here beyond formatting: the status is
:func:`~diptych.core.metrics.uncertainty.ppi.stop.measure_status` of the figure a worker computed;
the labels are stored by a worker through ``ws.measurement`` (:class:`DrawnLabelWrite`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Static

from diptych.core.labels import GENDER, TONE, LabelDimension
from diptych.core.metrics.uncertainty.ppi.stop import MeasureStatus
from diptych.core.report.formatting import bounds, figure_text, fmt
from diptych.core.workspace import Workspace
from diptych.core.workspace.measurement import (
    PREDICTION_POWERED,
    MeasurementDraw,
    MeasureTarget,
)
from diptych.tui.review.tone import measured_tone_figure
from diptych.tui.review.writes import LabelWrite
from diptych.tui.widgets.whole_numbers import WholeNumbers


@dataclass(frozen=True)
class DrawnLabelWrite(LabelWrite):
    """A label of a person the measurement draw served: stored with the draw's design, the
    person's probability and its place in the draw; a perceived gender, or a skin tone."""

    dimension: LabelDimension = GENDER

    def store(self, ws: Workspace) -> None:
        ws.measurement.save_label(
            self.run_id, self.trial_idx, self.position, self.label,
            reviewer=self.reviewer, detail=self.detail, dimension=self.dimension,
        )  # fmt: skip


@dataclass
class DrawOpened(Message, namespace="review_screen"):
    """The run's measurement draw as the workspace holds it and the figure it measures; or why
    there is none (``error``)."""

    draw: MeasurementDraw | None
    target: MeasureTarget | None
    error: str | None = None


def measured_figure(numbers: Mapping[str, Any], target: MeasureTarget) -> str | None:
    """The name of the figure to show: the target's, else the first prediction-powered STS of
    the draw's setting among ``numbers`` (its tone figure, when the target is skin tone)."""
    if target.figure is not None:
        return target.figure if target.figure in numbers else None
    if target.dimension == TONE:
        return measured_tone_figure(numbers, target.setting)
    wanted = f"STS {target.setting}{PREDICTION_POWERED}"
    return next((name for name in numbers if name.endswith(wanted)), None)


def _ci(pair: tuple[float, float] | None) -> str:
    return "—" if pair is None else bounds(pair[0], pair[1])


def measure_text(
    status: MeasureStatus | None,
    draw: MeasurementDraw | None,
    labelled: int,
    waiting: str | None = None,
) -> Text:
    """The panel, a few short lines for a narrow column: the draw's progress (``labelled`` of
    its persons), the figure now and from people's labels alone, the half-width now and
    expected after more labels, the interval that may be looked at after every label, the
    gate (whether it is enough is the screen's bottom line: :func:`verdict_text`)."""
    out = Text()
    if draw is not None:
        out.append("draw ", style="bold")
        out.append(
            f"{fmt(labelled)}/{fmt(len(draw.persons))} labelled, {fmt(draw.population)} persons\n"
        )
    if status is None:
        out.append(waiting or "computing the figure…", style="italic")
        return out
    out.append(status.figure.removesuffix(PREDICTION_POWERED), style="bold")
    out.append(" · PPI\n")
    out.append("now    ", style="bold")
    out.append(f"{figure_text(status.value)} {_ci(status.ci)}\n")
    out.append("people ", style="bold")
    out.append(f"{_ci(status.labels_only)} alone\n")
    out.append("±", style="bold")
    out.append(f"{figure_text(status.half_width)} now")
    for k, v in status.after.items():
        out.append(f" · +{k}: ±{figure_text(v)}")
    out.append("\n")
    out.append("every look ", style="bold")
    out.append(_ci(status.monitored))
    if status.gate is not None:
        out.append("\ngate ", style="bold")
        out.append(f"{status.gate.describe()}: {status.decided or 'not decided'}")
    return out


def verdict_text(status: MeasureStatus) -> Text:
    """ "ENOUGH" and why, or what would make it enough."""
    out = Text()
    if status.enough is not None:
        out.append("ENOUGH", style="bold black on green")
        out.append(f" {status.enough}")
        return out
    until = ["the gate is decided"] if status.gate is not None else []
    if status.target is not None:
        until.append(f"±{figure_text(status.target)} is reached")
    out.append("not yet", style="bold")
    out.append(": enough when " + " or ".join(until) if until else ": w sets a half-width")
    return out


class MeasurePanel(Vertical):
    """The measured figure and the half-width input, beside the image."""

    DEFAULT_CSS = """
    MeasurePanel {
        height: auto;
        padding: 0 1;
        border-bottom: solid $primary-lighten-2;
    }
    MeasurePanel > #measure-figure {
        height: auto;
    }
    MeasurePanel > #measure-width-row {
        height: auto;
    }
    MeasurePanel #measure-width-label {
        width: auto;
        padding-right: 1;
    }
    MeasurePanel #measure-width {
        width: 1fr;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: What is shown, kept so tests and hosts can read it without a screenshot.
        self.text = Text()

    def compose(self) -> ComposeResult:
        yield WholeNumbers("", id="measure-figure")
        # The label stands beside the box, not in it as a placeholder: a half-width typed
        # replaced the placeholder, and "10" stood alone on its line, saying nothing.
        with Horizontal(id="measure-width-row"):
            yield Static("enough at ±", id="measure-width-label")
            yield Input(placeholder="w, Enter", id="measure-width", type="number", compact=True)

    def show(self, text: Text) -> None:
        if text != self.text:
            self.text = text
            self.query_one("#measure-figure", Static).update(text)


def half_width_given(value: str) -> float | None:
    """The reviewer's half-width, or None for an empty or unusable entry."""
    try:
        width = float(value)
    except ValueError:
        return None
    return width if math.isfinite(width) and width > 0 else None

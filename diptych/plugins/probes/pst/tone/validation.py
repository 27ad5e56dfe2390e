"""The measured checks of the skin-tone reading and of the tone intervals, as the report prints
them: ``diptych/prompts/tone_validation.yaml``, written by the benchmark
(``bench/run.py tone | python -m bench.tone.validation --write``) and checked against the
benchmark's declared figures and targets (``--check``), so that a report quotes what was
measured, with its Monte Carlo error, the version of diptych it was measured with and when.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from diptych.core.data import load_data
from diptych.core.report.formatting import figure_text

VALIDATION_FILE = "tone_validation.yaml"


class MeasuredFigure(BaseModel):
    """One benchmark figure as last measured."""

    model_config = ConfigDict(extra="forbid")
    name: str
    value: float
    unit: str
    #: Its Monte Carlo (or binomial) standard error, where the benchmark gives one.
    mc_se: float | None = None
    #: Its target, as the benchmark declares it (">= 0.9", "in 0.93..0.97"); None: reported.
    want: str | None = None
    ok: bool | None = None


class ToneValidation(BaseModel):
    """The file: the figures, when and with which diptych they were measured."""

    model_config = ConfigDict(extra="forbid")
    version: int
    measured: str
    diptych: str
    command: str
    figures: list[MeasuredFigure] = Field(default_factory=list)

    def by_name(self) -> dict[str, MeasuredFigure]:
        return {f.name: f for f in self.figures}


def tone_validation() -> ToneValidation:
    """The shipped (or a user's overriding) validation file."""
    return load_data(VALIDATION_FILE, ToneValidation)


def measured_text(figure: MeasuredFigure | None) -> str:
    """ "0.97 ± 0.01 (want ≥ 0.9)" for a table cell, in the report's one rule of digits; "not
    measured" without a figure."""
    if figure is None:
        return "not measured"
    text = figure_text(figure.value)
    if figure.mc_se is not None:
        text += f" ± {figure_text(figure.mc_se)}"
    if figure.want is not None:
        want = figure.want.replace(">=", "≥").replace("<=", "≤").replace("in ", "")
        text += f" (want {want.replace('..', '–')})"
    return text

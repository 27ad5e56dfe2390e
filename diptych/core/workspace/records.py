"""What the Workspace hands back about runs: plain records a front end prints or draws."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from diptych.core.probe import ProbeResult
from diptych.core.store import CalibrationRecord, RunRecord


@dataclass(frozen=True)
class RunSummary:
    """A run as a listing shows it: its record, its trials per outcome and its review flags."""

    run: RunRecord
    #: Trials per outcome: ``done``, ``refused``, ``failed``, ``pending``.
    counts: dict[str, int]
    #: Items the probe flagged for a reviewer to look at.
    flagged: int
    #: The agent session that made the run (listings group its runs under it); None for a
    #: run a user started.
    session: str | None = None
    #: The run's status in words (a decided run names its look and what it saved: see
    #: :mod:`diptych.core.audit.run_status`); its stored status where that says it all.
    status_text: str = ""
    #: The shortest name that names this run alone in its workspace (the id without its probe,
    #: at least 8 characters: :func:`diptych.core.run_names.short_names`); every command
    #: takes it.
    name: str = ""
    #: The run's status in short as a listing's status column shows it ("decided, bought on": a
    #: decided run bought on since; see :mod:`diptych.core.audit.run_status`); its stored
    #: status where that says it.
    listed_status: str = ""

    @property
    def said(self) -> str:
        """The status as a listing shows it."""
        return self.status_text or self.run.status

    @property
    def state(self) -> str:
        """The status in one word, as a listing's status column shows it."""
        return self.listed_status or self.run.status

    @property
    def flagged_words(self) -> str:
        """The run's review flags in words, or "" where its probe observes no people (a text
        run's figures count prompts or answers: "0 people flagged" would speak of people it
        never had)."""
        from diptych.core.errors import UnknownPluginError
        from diptych.core.plugins import probe_class

        try:
            people = probe_class(self.run.probe).observation == "person"
        except UnknownPluginError:
            people = False
        if people:
            return f"{self.flagged:,} {'person' if self.flagged == 1 else 'people'} flagged"
        return f"{self.flagged:,} flagged for review" if self.flagged else ""


@dataclass(frozen=True)
class Failure:
    """A trial that ended ``refused`` or ``failed``, with the service's or the error's message."""

    trial_idx: int
    model_id: str
    status: str
    error: str | None


@dataclass(frozen=True)
class RunDetail:
    """One run in full: outcomes overall and per model, labels per annotator, what went wrong."""

    run: RunRecord
    counts: dict[str, int]
    #: Trials per outcome for each model of the run (model id → outcome → count).
    per_model: dict[str, dict[str, int]]
    #: Stored labels per annotator id (``human:alice``, ``self``, ``faces`` ...).
    labels: dict[str, int]
    failures: list[Failure] = field(default_factory=list)
    #: Per model id, the backend builds its results came from (see diptych.core.builds).
    builds: dict[str, list[str]] = field(default_factory=dict)
    #: The run's status in words, as :attr:`RunSummary.status_text`.
    status_text: str = ""
    #: Stored perceived-skin-tone labels per annotator id (``skin-tone``, ``human:alice`` ...);
    #: :attr:`labels` counts the perceived-gender ones.
    tone_labels: dict[str, int] = field(default_factory=dict)
    #: Of a run bought on since its gates stopped it early, the look its figures read ("look 1
    #: of 4") and its perceived-gender labels per annotator on that look's trials alone;
    #: empty for any other run.
    look: str = ""
    labels_at_look: dict[str, int] = field(default_factory=dict)
    #: The run's distinct requests: fewer than its trials where trials ask the same thing
    #: (the same prompt, seed and model), which share one request and its answer.
    requests: int = 0


@dataclass(frozen=True)
class CalibrationOutcome:
    """What calibrating an annotator on the PAIRS images produced and stored."""

    #: The id the annotator's labels are stored under, which the profile is kept under too.
    annotator: str
    annotator_version: str
    #: The calibration run (one person-annotator trial per PAIRS image).
    run: RunRecord
    counts: dict[str, int]
    #: Coverage, accuracy, sensitivity and specificity per race × gender, with their counts.
    profile: dict[str, Any]
    #: The stored calibration the pst report reads.
    saved: CalibrationRecord
    #: The calibration probe's analysis of the run, for display.
    result: ProbeResult

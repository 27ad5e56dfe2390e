"""``Workspace.measurement``: the measurement draw of a run — the active review queue the
Review screen's measurement mode serves — and the figure it measures.

One draw a run: made the first time it is asked for, over the persons of the measured figure's
setting (paired or single), with the active design's probabilities for a budget of labels
(:func:`~diptych.core.metrics.uncertainty.ppi.estimate.active_probabilities`), then frozen — its
visiting order, its probabilities and its draws are kept in the workspace, so that the mode, opened
again, continues the same draw (:mod:`diptych.core.metrics.uncertainty.ppi.draw` says why that keeps
the weights valid). Each label given in it is a human label of design ``active`` with the person's
probability, the draw's id and its place in the draw.

The measured figure is the prediction-powered STS of the setting; when the run is a part of a
recorded audit with a gate on an STS figure of that part, that figure and its gate. The same draw
measures perceived skin tone (``dimension="tone"``): its persons' tone labels, given in the
draw's order, enter the prediction-powered tone gap and band shares with the same probabilities
(the tone figures read the draw's tone labels apart from its gender labels, so each
dimension's labels are a prefix of the draw of their own), and a gate on a tone figure is
measured as one on the STS is.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from diptych.core.audit import record
from diptych.core.audit.schema import parse_audit
from diptych.core.errors import InputFileError, UsageError
from diptych.core.labels import GENDER, TONE, LabelDimension, Sampling
from diptych.core.metrics.uncertainty.ppi.draw import DETAIL_KEY, DrawPlan, plan_draw
from diptych.core.metrics.uncertainty.ppi.stop import GateLimit
from diptych.core.workspace.base import Kernel, Namespace
from diptych.core.workspace.labels import Labels
from diptych.core.workspace.labels.imports import run_subjects
from diptych.core.workspace.labels.sample import annotator_uncertainties

#: The labels a draw is made for, unless the reviewer says otherwise (the expected number of
#: persons drawn; fewer when the setting has fewer persons).
DEFAULT_BUDGET = 100
#: The suffix of a prediction-powered figure's name (``occupation: STS paired`` has
#: ``occupation: STS paired, prediction-powered``).
PREDICTION_POWERED = ", prediction-powered"
_KEY = "measurement-draw:"


@dataclass(frozen=True)
class MeasureTarget:
    """The figure a measurement draw measures, and the audit gate on it, if any."""

    #: The prediction-powered figure's name; None: the first of the dimension's figures of the
    #: setting the run has (the STS; the tone gap, else the share of Monk 4–7).
    figure: str | None
    setting: str
    gate: GateLimit | None = None
    #: What the labels of the measurement are about: perceived gender or skin tone.
    dimension: LabelDimension = GENDER

    def describe(self) -> str:
        default = "STS" if self.dimension == GENDER else "tone figure"
        what = self.figure or f"the prediction-powered {default} {self.setting}"
        if self.gate is None:
            return what
        return (
            f"{what}; gate '{self.gate.label}' ({self.gate.describe()}) of audit {self.gate.audit}"
        )


@dataclass(frozen=True)
class DrawnPerson:
    """A person the draw serves: where it stands in the run and in the draw."""

    subject_id: int
    trial_idx: int
    position: str
    rank: int
    probability: float


@dataclass(frozen=True)
class MeasurementDraw:
    """A run's measurement draw as it stands: its persons in the order served, and the labels
    given in it so far."""

    run_id: str
    draw: str
    seed: int
    budget: float
    setting: str
    population: int
    created: float
    persons: tuple[DrawnPerson, ...]
    #: subject id → (annotator, label) of the human (gender) labels given in this draw.
    labels: Mapping[int, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    #: subject id → (annotator, tone label) of the human tone labels given in this draw.
    tones: Mapping[int, tuple[tuple[str, str], ...]] = field(default_factory=dict)

    def given(self, dimension: LabelDimension) -> Mapping[int, tuple[tuple[str, str], ...]]:
        """The labels given in this draw in ``dimension``."""
        return self.tones if dimension == TONE else self.labels

    @property
    def n_labelled(self) -> int:
        return sum(1 for p in self.persons if p.subject_id in self.labels)

    @property
    def frontier(self) -> DrawnPerson | None:
        """The first person served and not labelled in this draw (None: the draw is done)."""
        return next((p for p in self.persons if p.subject_id not in self.labels), None)


class Measurement(Namespace):
    """A run's measurement draw: make it or continue it, store its labels, name its figure."""

    def __init__(self, kernel: Kernel, labels: Labels) -> None:
        super().__init__(kernel)
        self._labels = labels

    def target(self, run_id: str, dimension: LabelDimension = GENDER) -> MeasureTarget:
        """The figure to measure: an STS figure (a tone figure, for ``dimension`` tone) a
        recorded audit gates for this run's part (the newest audit first), else the paired STS
        (the tone figure of the run's draw's setting, else paired)."""
        run = self._kernel.get_run(run_id)
        measured = "STS" if dimension == GENDER else "tone"
        for rec in reversed(record.list_audits(self._store)):
            part = next((p for p in rec.parts if p.run_id == run.id), None)
            if part is None:
                continue
            try:
                audit = parse_audit(rec.file_text, rec.file_path)
            except InputFileError:
                continue
            if audit.gates is None:
                continue
            for gate in audit.gates.checks:
                if gate.part != part.name or gate.no_regression is not None:
                    continue
                if measured not in gate.figure:
                    continue
                figure = gate.figure
                if not figure.endswith(PREDICTION_POWERED):
                    figure += PREDICTION_POWERED
                limit = GateLimit(
                    gate.label, gate.rule, gate.limit, gate.limit_high,
                    audit.gates.confidence, rec.name,
                )  # fmt: skip
                return MeasureTarget(figure, _setting_of(figure), limit, dimension)
        if dimension == TONE:
            kept = self._store.preference(_KEY + run.id)
            setting = str(kept["setting"]) if isinstance(kept, Mapping) else "paired"
            return MeasureTarget(None, setting, None, TONE)
        return MeasureTarget(None, "paired")

    def draw(
        self, run_id: str, *, budget: float | None = None, seed: int | None = None
    ) -> MeasurementDraw:
        """The run's measurement draw: the one made before (``budget`` and ``seed`` then
        unused), else a new one over the measured figure's setting, kept in the workspace."""
        run = self._kernel.get_run(run_id)
        kept = self._store.preference(_KEY + run.id)
        if not isinstance(kept, Mapping):
            kept = self._make(run_id, budget or DEFAULT_BUDGET, seed)
        return self._read(run.id, kept)

    def save_label(
        self,
        run_id: str,
        trial_idx: int,
        position: str,
        label: str,
        *,
        reviewer: str,
        detail: Mapping[str, Any] | None = None,
        dimension: LabelDimension = GENDER,
    ) -> int:
        """Store the reviewer's label of a person the run's draw served: design ``active``, its
        probability, the draw and the person's place in it; return the subject id. ``dimension``
        ``tone`` stores a perceived skin tone (``monk-1`` ... ``monk-10``, ``cannot_identify``)."""
        run = self._kernel.get_run(run_id)
        kept = self._store.preference(_KEY + run.id)
        if not isinstance(kept, Mapping):
            raise UsageError(f"run {run.id} has no measurement draw; open the measurement first")
        plan = _plan(kept)
        people = [tuple(p) for p in kept["people"]]
        try:
            index = people.index((trial_idx, position))
            rank = plan.order.index(index) + 1
        except ValueError:
            rank = 0
        if rank not in plan.drawn_ranks:
            raise UsageError(
                f"the {position} person of trial {trial_idx} is not drawn in the measurement of "
                f"run {run.id}; label it in the Review screen instead"
            )
        sampling = Sampling("active", plan.probability[index], str(kept["draw"]))
        return self._labels.save(
            run.id, trial_idx, position, label, reviewer=reviewer,
            detail={**dict(detail or {}), DETAIL_KEY: plan.record(rank)}, sampling=sampling,
            dimension=dimension,
        )  # fmt: skip

    # --- the kept draw ----------------------------------------------------------------------

    def _make(self, run_id: str, budget: float, seed: int | None) -> dict[str, Any]:
        from diptych.core.metrics.uncertainty.ppi.estimate import active_probabilities

        self._kernel.writing("make a measurement draw")
        run = self._kernel.get_run(run_id)
        target = self.target(run.id)
        people = [
            s for s in run_subjects(self._store, run)
            if s.status == "done" and s.setting == target.setting
        ]  # fmt: skip
        if not people:
            raise UsageError(
                f"run {run.id} has no person in a finished {target.setting} image to measure"
            )
        if not any(lab.kind == "automatic" for lab in self._store.labels(run.id)):
            raise UsageError(
                f"no automatic annotator has labelled run {run.id}: a measurement corrects one; "
                f"run 'diptych annotate {run.id} --annotator faces' first"
            )
        probability = active_probabilities(
            annotator_uncertainties(self._store, run, people), budget
        )
        seed = secrets.randbits(32) if seed is None else seed
        plan = plan_draw(probability, seed)
        kept = {
            "draw": f"measure-{time.strftime('%Y%m%d-%H%M%S')}-{seed:08x}",
            "seed": seed,
            "budget": float(budget),
            "setting": target.setting,
            "created": time.time(),
            "people": [[p.trial_idx, p.position] for p in people],
            "probability": list(plan.probability),
            "order": list(plan.order),
            "drawn": list(plan.drawn_ranks),
        }
        self._store.set_preference(_KEY + run.id, kept)
        return kept

    def _read(self, run_id: str, kept: Mapping[str, Any]) -> MeasurementDraw:
        plan = _plan(kept)
        people = [(int(t), str(p)) for t, p in kept["people"]]
        subject_of = {
            (s.trial_idx, s.position): s.subject_id
            for s in run_subjects(self._store, self._kernel.get_run(run_id))
        }
        draw = str(kept["draw"])
        persons = []
        for rank, index in plan.served():
            trial_idx, position = people[index]
            sid = subject_of.get((trial_idx, position))
            if sid is not None:
                persons.append(DrawnPerson(sid, trial_idx, position, rank, plan.probability[index]))
        given: dict[LabelDimension, dict[int, list[tuple[str, str]]]] = {GENDER: {}, TONE: {}}
        for lab in self._store.labels(run_id, dimension=None):
            s = lab.sampling
            if lab.kind == "human" and s is not None and s.draw == draw:
                of = given[lab.dimension]
                of.setdefault(lab.subject_id, []).append((lab.annotator, lab.label))
        return MeasurementDraw(
            run_id, draw, int(kept["seed"]), float(kept["budget"]), str(kept["setting"]),
            plan.population, float(kept["created"]), tuple(persons),
            {sid: tuple(v) for sid, v in given[GENDER].items()},
            {sid: tuple(v) for sid, v in given[TONE].items()},
        )  # fmt: skip


def _plan(kept: Mapping[str, Any]) -> DrawPlan:
    return DrawPlan(
        tuple(int(i) for i in kept["order"]),
        tuple(float(p) for p in kept["probability"]),
        tuple(int(r) for r in kept["drawn"]),
    )


def _setting_of(figure: str) -> str:
    return "single" if "STS single" in figure else "paired"

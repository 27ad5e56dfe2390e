"""The trials a run's last look read, for a run bought on after its gates stopped it early.

A sequential audit buys a design in the random order its part's seed fixes over the run's
distinct requests (:func:`~diptych.core.engine.purchase.purchase_order`), and a look records
how many of them had an answer or a refusal stored then (``Look.bought``). Whatever buys on
later continues in the same order (:func:`~diptych.core.audit.stopped.purchase_seed`), so the
requests the look read are those of the batches bought by then with an outcome (an answer an
earlier run stored for a later batch is read when its batch comes; a look recorded before looks
read their batches only read those too, wherever they fell in the order): the standings
read a bought-on run's figure and its pairs on them (:class:`LookView`), so that both read the
trials its decision read. A request that failed before the look and was answered since would
take the place of one the look read: the look's recorded value, made again from the rebuilt
requests, tells whether they are the look's (:func:`look_samples`); a run's pages read its
breakdowns (per identity, per group, their charts) on them likewise (:func:`look_analysis`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from diptych.core.audit.stopped import continued, looked, run_looks
from diptych.core.engine.purchase import batch_size, purchase_order
from diptych.core.labels import GENDER, LabelDimension, SubjectLabel
from diptych.core.probe import Probe, ProbeResult
from diptych.core.runview import RunView
from diptych.core.standings import DecidedInterval, FigureSample
from diptych.core.trials import Subject

if TYPE_CHECKING:
    from diptych.core.audit.sequential import PartLooks
    from diptych.core.store import ResultRecord, Store, TrialRow


def look_keys(store: Store, run_id: str) -> frozenset[str] | None:
    """The distinct requests the last look of ``run_id`` read, where the run was bought on
    since its gates stopped it early (see the module); None for any other run. Those are the
    answered requests of the batches it had bought (:func:`asked_at_look`), not those bought on
    since (nor, for a look recorded before looks read their batches only, those another run had
    answered before it began, which such a look read wherever they fell in the order)."""
    found = looked(store, run_id)
    run = store.run_with_id(run_id)
    if found is None or run is None or not continued(store, run_id, found[2]):
        return None
    looks = found[2]
    assert looks.last is not None
    results = store.run_results(run_id)
    order = purchase_order({t.key for t in store.trials(run_id)}, looks.order_seed)
    asked = set(asked_at_look(order, looks))
    answered = [
        k
        for k in order
        if k in results
        and results[k].status != "failed"
        and (k in asked or _read_beyond(looks) and results[k].finished_at < run.created_at)
    ]
    return frozenset(answered[: looks.last.bought])


def _read_beyond(looks: PartLooks) -> bool:
    """Whether the last look counted another run's answers beyond its batches: one recorded
    before looks read their batches only (it keeps no ``held``) did."""
    return looks.last is not None and looks.last.held is None


def asked_at_look(order: list[str], looks: PartLooks) -> list[str]:
    """The requests of ``order`` (the run's purchase order) in the batches bought by its last
    look: the first share of the order its batch ends at."""
    assert looks.last is not None
    return order[: batch_size(len(order), looks.last.batch / looks.batches)]


def lost_at_look(store: Store, run_id: str) -> list[str]:
    """The distinct requests the last look of a decided run read whose stored answer is gone
    since (deleted, or lost with a damaged store), in its purchase order; empty for any other
    run. Without them again the look's figures would rest on fewer trials than the look says.

    The look read ``bought`` answers: those of the batches the run bought, the first share of
    its purchase order. How many are gone is ``bought`` less the answers of those batches
    stored by the time the run was decided (one stored since, by a later run, was not read);
    which are gone, the requests of its batches with no stored outcome now (a failure then was
    not read, and is stored still). A look recorded before looks read their batches only also
    read any answer another run had stored for its other requests: such a reused answer gone
    is counted, but not named where it fell outside those batches: its request was never the
    run's to ask."""
    run = store.run_with_id(run_id)
    looks = run_looks(store, run_id) if run is not None and run.status == "decided" else None
    if run is None or looks is None or looks.last is None:
        return []
    results = store.run_results(run_id)
    order = purchase_order({t.key for t in store.trials(run_id)}, looks.order_seed)
    asked = asked_at_look(order, looks)
    counted = results if _read_beyond(looks) else {k: results[k] for k in asked if k in results}
    held = sum(
        1 for r in counted.values() if r.status != "failed" and r.finished_at <= run.updated_at
    )
    gone = looks.last.bought - held
    if gone <= 0:
        return []
    return [k for k in asked if k not in results][:gone]


def trials_at_look(store: Store, run_id: str) -> int | None:
    """How many of the run's trials its last look read (those of :func:`look_keys`), where
    it was bought on since its gates stopped it early; None for any other run."""
    keys = look_keys(store, run_id)
    if keys is None:
        return None
    return sum(1 for t in store.trials(run_id) if t.key in keys)


@dataclass
class LookView(RunView):
    """A run as one of its looks read it: its trials of the requests ``keys`` only, with their
    results, people and labels; what a probe reads of it is what it read at that look."""

    keys: frozenset[str] = field(default_factory=frozenset)

    @cached_property
    def trials(self) -> list[TrialRow]:
        return [t for t in self._store.trials(self.run.id) if t.key in self.keys]

    @cached_property
    def _indices(self) -> frozenset[int]:
        return frozenset(t.idx for t in self.trials)

    @cached_property
    def results(self) -> dict[str, ResultRecord]:
        found = self._store.run_results(self.run.id)
        return {k: r for k, r in found.items() if k in self.keys}

    @cached_property
    def subjects_by_trial(self) -> dict[int, list[Subject]]:
        every = RunView(self._store, self.run).subjects_by_trial
        return {idx: s for idx, s in every.items() if idx in self._indices}

    def labels(
        self, annotator: str | None = None, dimension: LabelDimension | None = GENDER
    ) -> list[SubjectLabel]:
        every = self._store.labels(self.run.id, annotator, dimension)
        return [lab for lab in every if lab.trial_idx in self._indices]

    def subject_rows(self) -> list[dict[str, Any]]:
        return [r for r in self._store.run_subjects(self.run.id) if r["trial_idx"] in self._indices]

    def flags(self, reason: str | None = None) -> list[dict[str, Any]]:
        return [
            f for f in self._store.flags(self.run.id, reason) if f["trial_idx"] in self._indices
        ]


class AtLook(NamedTuple):
    """What a page of a run reads beside its figures: whether the run was bought on since its
    gates stopped it early (``bought_on``), its analysis on the trials its last look read
    (``result``, None where they cannot be rebuilt) and the view that analysis read (``view``:
    the :class:`LookView`, else the run's own view), from which the page also counts its labels
    and picks its example images, so that they read the trials its figures read."""

    bought_on: bool
    result: ProbeResult | None
    view: RunView


def look_analysis(store: Store, view: RunView, probe: Probe) -> AtLook:
    """Whether ``view``'s run was bought on since its gates stopped it early, and its analysis
    on the trials its last look read (:class:`LookView`, read with ``view``'s label policy),
    whose breakdowns a page shows beside the look's figures. Its analysis is None where those
    trials cannot be rebuilt: a figure made again from them is not the value the look recorded
    (a request failed before the look and was answered since, another label policy), and the
    page says its breakdowns read all the trials. (False, None, ``view``) for any other run."""
    keys = look_keys(store, view.id)
    found = looked(store, view.id)
    if keys is None or found is None or found[2].last is None:
        return AtLook(False, None, view)
    subset = LookView(
        store,
        view.run,
        label_policy=view.label_policy,
        calibration_subset=view.calibration_subset,
        chroma_url=view.chroma_url,
        figures=view.figures,
        keys=keys,
    )
    result = probe.analyze(subset)
    recorded = found[2].last.numbers
    pairs = [
        (result.numbers[name].get("value"), number.get("value"))
        for name, number in recorded.items()
        if name in result.numbers and isinstance(number, Mapping)
    ]
    same = [_same(made, kept) for made, kept in pairs if _number(kept)]
    if same and all(same):
        return AtLook(True, result, subset)
    return AtLook(True, None, view)


#: What a page of a run bought on since its stop says where its look's trials cannot be rebuilt.
ALL_TRIALS = (
    "The run was bought on since its gates stopped it early, and the trials its look read "
    "cannot be rebuilt: its tables and charts read all its trials, with intervals that do not "
    "hold after the stop."
)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


def _same(made: Any, kept: Any) -> bool:
    """Whether ``made``, a figure made again, is ``kept``, the value its look recorded."""
    return _number(made) and abs(made - kept) <= SAME_VALUE * max(1.0, abs(made), abs(kept))


#: How near a figure made again from the rebuilt requests must come to the value its look
#: recorded, as a share of the figure's range, for them to be the look's: a look's numbers are
#: the same mean summed in another order.
SAME_VALUE = 1e-9


def look_samples(
    store: Store,
    view: RunView,
    probe: Probe,
    samples: Sequence[FigureSample],
    decided: Mapping[str, DecidedInterval],
) -> tuple[list[FigureSample], dict[str, DecidedInterval]]:
    """``samples`` of a run bought on since its gates stopped it early, each figure read on
    its looks' interval (``decided``, kind ``bought_on``) restricted to the requests its last
    look read (:func:`look_keys`), so that its figure and its pairs read the same trials. Where
    the rebuilt requests do not give the value the look recorded (a request failed before the
    look and answered since), the sample keeps all its trials and its interval is marked
    ``bought_on_all``: its pairs then read B − A as the difference of the values shown
    (:func:`~diptych.core.standings.decided.decided_difference`). A figure the look read
    without an interval (``bought_on_none``) is restricted alike, and keeps its kind where its
    trials cannot be rebuilt: it has no interval either way. Both unchanged for any other
    run."""
    if not any(d.kind in _LOOKED for d in decided.values()):
        return list(samples), dict(decided)
    keys = look_keys(store, view.id)
    looked_at: dict[tuple[str, str], FigureSample] = {}
    if keys is not None:
        subset = LookView(store, view.run, chroma_url=view.chroma_url, keys=keys)
        looked_at = {(s.model, s.figure): s for s in probe.figure_samples(subset)}
    out: list[FigureSample] = []
    marked = dict(decided)
    for sample in samples:
        d = decided.get(sample.figure)
        if d is None or d.kind not in _LOOKED:
            out.append(sample)
            continue
        found = looked_at.get((sample.model, sample.figure))
        if found is not None and _reads(found, d.value):
            out.append(found)
        else:
            out.append(sample)
            if d.kind == "bought_on":
                marked[sample.figure] = replace(d, kind="bought_on_all")
    return out, marked


#: The kinds of a figure of a run bought on past its stop whose sample is the look's trials.
_LOOKED = ("bought_on", "bought_on_none")


def _reads(sample: FigureSample, value: float) -> bool:
    """Whether ``sample``'s figure is ``value``."""
    if not sample.values:
        return False
    mean = sample.scale * math.fsum(sample.values) / len(sample.values)
    low, high = sample.bounds
    span = high - low if math.isfinite(high - low) else max(abs(value), 1.0)
    return abs(mean - value) <= SAME_VALUE * span

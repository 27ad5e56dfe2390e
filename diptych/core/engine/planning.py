"""Planning a run: its fingerprint, its trials, what is stored already, and what the rest costs.

A run is identified by its fingerprint (probe, its version and parameters, the models and
theirs): running the same thing again reuses the run and finds every finished trial stored.
Trials whose key already has a ``done`` or ``refused`` result are skipped, whichever run
produced it; a ``failed`` one is tried again, except a paid failure (an answer paid for but
unusable), which is bought again only within the run's allowance of paid retries.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from diptych._version import __version__
from diptych.core.capabilities import Capability, Model
from diptych.core.cost import Cost, computed_here, price_kind
from diptych.core.engine.pacing import PaidRetries
from diptych.core.engine.slots import ModelSlot
from diptych.core.errors import CapabilityError
from diptych.core.metrics.uncertainty.precision import PrecisionPlan
from diptych.core.probe import Probe
from diptych.core.runview import StoreLookup
from diptych.core.store import TERMINAL, RunRecord, Store, TrialRow
from diptych.core.trials import ModelRef, canonical_json, sha256_hex, trial_key

#: Trials written to the store per transaction while a plan streams in.
PLAN_CHUNK = 2000


@dataclass
class RunPlan:
    """A run's plan and, of its trials, the ones without a terminal result (one per key).

    ``trials`` holds every planned trial only where the caller had them in memory; a plan
    streamed into the store gives its counts in ``n_planned`` and ``n_cached`` instead."""

    run: RunRecord
    trials: list[TrialRow]
    pending: dict[str, TrialRow]
    statuses: dict[str, str]
    n_planned: int | None = None
    n_cached: int | None = None

    @property
    def planned(self) -> int:
        return self.n_planned if self.n_planned is not None else len(self.trials)

    @property
    def cached(self) -> int:
        if self.n_cached is not None:
            return self.n_cached
        return sum(1 for t in self.trials if self.statuses.get(t.key) in TERMINAL)


def run_fingerprint(probe: Probe, refs: Sequence[ModelRef]) -> str:
    """What makes a run the same run: the probe, its version, the parameters a user set and
    the models. Parameters left at their defaults are left out, so that a release adding a
    parameter (with a default that keeps the old behaviour) still finds the runs made before."""
    return sha256_hex(
        canonical_json(
            {
                "probe": probe.name,
                "probe_version": probe.version,
                "params": probe.params.model_dump(mode="json", exclude_defaults=True),
                "models": [[r.name, r.version, r.params] for r in refs],
            }
        )
    )


def check_capabilities(probe: Probe, models: Sequence[Model]) -> None:
    need = probe.required_capability()
    for model in models:
        if need not in model.capabilities:
            offered = ", ".join(sorted(model.capabilities))
            raise CapabilityError(
                f"probe '{probe.name}' needs a model with {need}; model '{model.name}' offers "
                f"{offered} (choose another model or another mode of the probe)"
            )


PlannedTrial = tuple[TrialRow, list[tuple[int, str, dict[str, Any]]]]


def iter_trials(run_id: str, probe: Probe, slots: Sequence[ModelSlot]) -> Iterator[PlannedTrial]:
    """Every trial of the probe for every model with its subjects, one at a time: the probe's
    plan is walked again for each model rather than held, so memory does not grow with it."""
    idx = 0
    for slot in slots:
        for spec in probe.plan():
            row = TrialRow(
                run_id=run_id,
                idx=idx,
                model_id=slot.ref.model_id,
                key=trial_key(slot.ref, spec),
                capability=str(spec.capability),
                sample=spec.sample,
                payload=spec.payload,
                meta=spec.meta,
            )
            yield row, [(idx, s.position, s.meta) for s in probe.subjects(spec)]
            idx += 1


def chunked(items: Iterable[PlannedTrial], size: int = PLAN_CHUNK) -> Iterator[list[PlannedTrial]]:
    chunk: list[PlannedTrial] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def plan_trials(
    run_id: str, probe: Probe, slots: Sequence[ModelSlot]
) -> tuple[list[TrialRow], list[tuple[int, str, dict[str, Any]]]]:
    """Every trial of the probe for every model, with its subjects, as lists; nothing is
    stored (planning a run streams them instead: see :func:`iter_trials`)."""
    rows: list[TrialRow] = []
    subjects: list[tuple[int, str, dict[str, Any]]] = []
    for row, people in iter_trials(run_id, probe, slots):
        rows.append(row)
        subjects.extend(people)
    return rows, subjects


def bind_probe(probe: Probe, store: Store, *, chroma_url: str | None = None) -> Probe:
    """``probe`` bound to the workspace of ``store``: it reads what it builds on through the
    read-only :class:`~diptych.core.runview.StoreLookup` and never sees the store itself."""
    return probe.bind(StoreLookup(store, chroma_url=chroma_url))


def store_input_blobs(store: Store, probe: Probe) -> int:
    """Put the blobs the bound ``probe`` brings along (:meth:`Probe.input_blobs`) in the store
    (one held already is kept as it is); return how many the probe named."""
    n = 0
    for data in probe.input_blobs():
        store.put_blob(data)
        n += 1
    return n


@dataclass
class Estimate:
    """What a run would do before anything is paid for (``diptych run --dry-run``)."""

    planned: int
    cached: int
    to_run: int
    #: At the declared prices, with how many of the requests to run had one (``cost.priced``)
    #: and how many not (``cost.unpriced``, of them ``cost.local`` computed on this machine).
    cost: float
    #: Requests to a service that declares no price (a model computed on this machine costs
    #: nothing and is not counted here).
    unpriced: int
    per_model: dict[str, dict[str, float]]
    #: The expected precision of the headline figures, where it was asked for
    #: (``Workspace.runs.plan(..., precision=True)``).
    precision: PrecisionPlan | None = None
    #: Stored paid failures (answers paid for but unusable) left alone: not in ``to_run``.
    paid_failed: int = 0
    #: The allowance of paid retries (``--paid-retries``) and, of it, what is left once the
    #: stored paid failures in ``to_run`` have used theirs.
    paid_retries: int = 0
    paid_retries_left: int = 0
    #: The most those left could add to ``cost``: each at the highest price of a trial to run.
    paid_retry_cost: float = 0.0


def estimate(
    store: Store, probe: Probe, models: Sequence[Model], *, paid_retries: int = 0
) -> Estimate:
    """Trials planned, already stored, and the estimated price of the rest; stores nothing.

    Stored paid failures are to run only within ``paid_retries`` (in plan order, as a run takes
    them); what is left of it is priced as the most it could add. The plan streams past in
    chunks: memory grows with the distinct requests, not the trials."""
    # Planning writes nothing: the images a probe brings along (PAIRS, stories,
    # counterfactual) are stored when a real run starts, not here.
    probe = bind_probe(probe, store)
    check_capabilities(probe, models)
    slots = [ModelSlot.of(m) for m in models]
    by_id = {s.ref.model_id: s for s in slots}
    seen: set[str] = set()
    planned = cached = 0
    unpriced, highest = 0, 0.0
    # By model: the priced requests, those of a service with no price, those computed here.
    counts = {s.ref.model_id: [0, 0, 0] for s in slots}
    kinds: dict[str, str] = {}
    allowance = PaidRetries(paid_retries)
    paid_failed: set[str] = set()
    per_model: dict[str, dict[str, float]] = {
        s.ref.model_id: {"planned": 0, "to_run": 0, "cost": 0.0} for s in slots
    }
    for chunk in chunked(iter_trials("dry-run", probe, slots)):
        statuses = store.result_statuses(t.key for t, _ in chunk)
        unusable = store.paid_failed_keys(t.key for t, _ in chunk)
        for trial, _ in chunk:
            planned += 1
            tally = per_model[trial.model_id]
            tally["planned"] += 1
            if trial.model_id not in kinds:
                # A model's kind of price, also where none of its requests is left to run.
                model = by_id[trial.model_id].model
                price = model.price(Capability(trial.capability), trial.payload)
                kinds[trial.model_id] = price_kind(model, price)
            if statuses.get(trial.key) in TERMINAL:
                cached += 1
                continue
            if trial.key in seen or trial.key in paid_failed:
                continue
            if trial.key in unusable and not allowance.take(None, None):
                paid_failed.add(trial.key)
                continue
            seen.add(trial.key)
            tally["to_run"] += 1
            model = by_id[trial.model_id].model
            price = model.price(Capability(trial.capability), trial.payload)
            if price is None and computed_here(model):
                # Computed on this machine (weights in this process): nothing is bought, and
                # nothing is priced either.
                counts[trial.model_id][2] += 1
                continue
            if price is None:
                unpriced += 1
                counts[trial.model_id][1] += 1
            else:
                counts[trial.model_id][0] += 1
                tally["cost"] += price
                highest = max(highest, price)
    left = allowance.limit - allowance.used
    for model_id, (priced, service, here) in counts.items():
        per_model[model_id]["cost"] = Cost(
            per_model[model_id]["cost"],
            priced=priced,
            unpriced=service + here,
            local=here,
            kinds={kinds[model_id]} if model_id in kinds else set(),
        )
    return Estimate(
        planned=planned,
        cached=cached,
        to_run=len(seen),
        cost=sum((per_model[m]["cost"] for m in counts), Cost()),
        unpriced=unpriced,
        per_model=per_model,
        paid_failed=len(paid_failed),
        paid_retries=allowance.limit,
        paid_retries_left=left,
        paid_retry_cost=left * highest if seen else 0.0,
    )


def find_or_create_run(
    store: Store,
    probe: Probe,
    slots: Sequence[ModelSlot],
    *,
    new: bool = False,
    run_id: str | None = None,
) -> RunRecord:
    """The stored run ``run_id``, else the run of this fingerprint, else a new one recorded
    (found and created in one transaction, so that two processes find the same run)."""
    if run_id is not None:
        return store.get_run(run_id)
    fingerprint = run_fingerprint(probe, [s.ref for s in slots])
    return _create_run(store, probe, slots, fingerprint, new)


def write_plan(store: Store, run: RunRecord, probe: Probe, slots: Sequence[ModelSlot]) -> None:
    """Stream the run's plan into the store in chunks; a plan left half-written by a killed
    planner is completed (plans are deterministic, so written chunks are kept as they are)."""
    for chunk in chunked(iter_trials(run.id, probe, slots)):
        store.add_trial_chunk(
            run.id, (t for t, _ in chunk), (s for _, people in chunk for s in people)
        )
    store.complete_plan(run.id)


def prepare_run(
    store: Store,
    probe: Probe,
    slots: Sequence[ModelSlot],
    *,
    new: bool = False,
    run_id: str | None = None,
    run: RunRecord | None = None,
    paid_retries: PaidRetries | None = None,
) -> RunPlan:
    """Find or create the run (unless given) and its recorded plan; work out what is left.

    Stored paid failures join what is left, in plan order, as far as ``paid_retries`` (None:
    none) allows; each uses one of it. The caller holds the run's lease (see :mod:`.lease`),
    so no other process plans or executes it meanwhile."""
    if run is None:
        run = find_or_create_run(store, probe, slots, new=new, run_id=run_id)
    if not store.plan_complete(run.id):
        write_plan(store, run, probe, slots)
        run = store.get_run(run.id)
    # A result whose blob was deleted or set aside as damaged is asked for again.
    if not store.read_only:
        store.drop_results_without_blobs(run.id)
    pending = {t.key: t for t in store.pending_trials(run.id)}
    if paid_retries is not None and paid_retries.used < paid_retries.limit:
        for trial in store.paid_failed_trials(run.id):
            if not paid_retries.take(None, None):
                break
            pending[trial.key] = trial
    counts = store.status_counts(run.id, live=True)
    return RunPlan(
        run=run,
        trials=[],
        pending=pending,
        statuses={},
        n_planned=sum(counts.values()),
        n_cached=counts["done"] + counts["refused"],
    )


def _create_run(
    store: Store, probe: Probe, slots: Sequence[ModelSlot], fingerprint: str, new: bool
) -> RunRecord:
    run_id = f"{probe.name}-{fingerprint[:8]}"
    if new:
        # Time for order, and random bits so that two processes asking for a new run in the
        # same millisecond get two runs (the insert keeps the first run of an id).
        run_id = f"{run_id}-{int(time.time() * 1000) % 10**8:08d}{secrets.token_hex(2)}"
    return store.create_run(
        run_id,
        find=not new,
        probe=probe.name,
        probe_version=probe.version,
        params=probe.params.model_dump(mode="json"),
        # Full parameters, so that a resume rebuilds the models exactly as they were run.
        models=[
            {
                "name": s.ref.name,
                "version": s.ref.version,
                "params": s.model.params.model_dump(mode="json"),
                "model_id": s.ref.model_id,
            }
            for s in slots
        ],
        fingerprint=fingerprint,
        diptych_version=__version__,
    )

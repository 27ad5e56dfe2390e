"""The run engine: plan -> skip what is stored -> execute the rest -> persist as results arrive.

* A run is identified by its fingerprint (probe, its version and parameters, the models and
  theirs). Running the same thing again reuses the run and finds every finished trial stored.
* Trials whose key already has a ``done`` or ``refused`` result are skipped, whichever run
  produced it; a ``failed`` one is tried again.
* Each model gets ``max_concurrency`` workers (capped by the run's ``concurrency``) and, where
  its hints say so, a rate limiter. Blocking backends run in worker threads.
* Transient faults are retried with exponential backoff and full jitter, honouring Retry-After.
* Each result is persisted the moment it arrives (blob first, then its row, one transaction),
  so a process killed at any moment loses only calls that had not finished.
* The engine never prints: it tells a :class:`Reporter`.
"""

from __future__ import annotations

import asyncio
import io
import random
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from diptych import __version__
from diptych.core.capabilities import Capability, Message, Model, Sampling
from diptych.core.errors import (
    CapabilityError,
    ModelCallError,
    PermanentModelError,
    RefusalError,
    TransientModelError,
)
from diptych.core.plugins import get_model, get_probe
from diptych.core.probe import Probe
from diptych.core.store import TERMINAL, ResultRecord, RunRecord, Store, TrialRow
from diptych.core.trials import (
    ModelRef,
    Subject,
    TrialSpec,
    canonical_json,
    sha256_hex,
    trial_key,
)

# --- reporting ------------------------------------------------------------------------------


class Reporter(Protocol):
    """How the engine tells a user interface what is happening. Every method must be cheap."""

    def run_started(self, run: RunRecord, total: int, cached: int, to_run: int) -> None: ...

    def trial_finished(self, model_id: str, status: str, error: str | None) -> None: ...

    def note(self, text: str) -> None: ...

    def run_finished(self, run: RunRecord, counts: dict[str, int]) -> None: ...


class NullReporter:
    def run_started(self, run: RunRecord, total: int, cached: int, to_run: int) -> None:
        pass

    def trial_finished(self, model_id: str, status: str, error: str | None) -> None:
        pass

    def note(self, text: str) -> None:
        pass

    def run_finished(self, run: RunRecord, counts: dict[str, int]) -> None:
        pass


# --- policies -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6
    base_delay: float = 0.5
    max_delay: float = 60.0
    #: Seconds one call may take before it counts as a transient fault (None: no limit).
    timeout: float | None = None

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        # Full jitter (AWS architecture blog): spreads retries of many workers apart.
        backoff = rng.uniform(0, min(self.max_delay, self.base_delay * 2 ** (attempt - 1)))
        return max(backoff, retry_after or 0.0)


class RateLimiter:
    """Spaces call starts at least ``60 / per_minute`` seconds apart."""

    def __init__(self, per_minute: float) -> None:
        self.interval = 60.0 / per_minute
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        async with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)


# --- models as the engine holds them --------------------------------------------------------


@dataclass
class ModelSlot:
    """A model in a run: its instance, key identity, pacing and lazy loading."""

    model: Model
    ref: ModelRef
    limiter: RateLimiter | None = None
    executor: ThreadPoolExecutor | None = None
    loaded: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @classmethod
    def of(cls, model: Model) -> ModelSlot:
        identity = model.identity_params()
        defaults = _defaults(model)
        changed = {k: v for k, v in identity.items() if k not in defaults or defaults[k] != v}
        ref = ModelRef(model.name, model.version, identity, changed)
        return cls(model=model, ref=ref)

    async def ensure_loaded(self) -> None:
        async with self.lock:
            if self.loaded:
                return
            await asyncio.to_thread(self.model.load)
            self.loaded = True

    async def call(self, method: str, *args: Any) -> Any:
        fn = getattr(self.model, method)
        if not self.model.hints.blocking:
            return await fn(*args)
        # A blocking backend (llama.cpp, torch) would stall every other trial if awaited on
        # the event loop; its coroutine runs to completion in a worker thread instead.
        if self.executor is None:
            self.executor = ThreadPoolExecutor(
                max_workers=self.model.hints.max_concurrency, thread_name_prefix=self.ref.name
            )
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, lambda: asyncio.run(fn(*args)))

    def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=True)


def _defaults(model: Model) -> dict[str, Any]:
    """The JSON form of each optional parameter's default (required ones have none)."""
    from pydantic import TypeAdapter

    out = {}
    for name, info in type(model.params).model_fields.items():
        if not info.is_required():
            default = info.get_default(call_default_factory=True)
            out[name] = TypeAdapter(Any).dump_python(default, mode="json")
    return out


def resolve_model(model: Model | str | tuple[str, Any]) -> Model:
    if isinstance(model, Model):
        return model
    if isinstance(model, str):
        return get_model(model)
    name, params = model
    return get_model(name, params)


# --- calling a model for one trial ----------------------------------------------------------


def _png(image: Any) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _load_image(ref: dict[str, Any], store: Store) -> Any:
    from PIL import Image

    if "blob" in ref:
        return Image.open(io.BytesIO(store.get_blob(ref["blob"]))).convert("RGB")
    return Image.open(ref["path"]).convert("RGB")


async def call_trial(
    slot: ModelSlot, trial: TrialRow, store: Store
) -> tuple[dict[str, Any], str | None, dict[str, Any]]:
    """Ask the model for one trial; return (output, blob sha or None, extra provenance)."""
    p = trial.payload
    cap = Capability(trial.capability)
    if cap is Capability.CHAT:
        messages = [Message.model_validate(m) for m in p["messages"]]
        sampling = Sampling.model_validate(p.get("sampling", {}))
        text = await slot.call("complete", messages, sampling, p.get("schema"))
        return {"text": text}, None, {}
    if cap is Capability.TEXT_LIKELIHOOD:
        logprobs = await slot.call("next_token_logprobs", p["prompt"], list(p["candidates"]))
        return {"logprobs": {c: float(v) for c, v in logprobs.items()}}, None, {}
    if cap is Capability.IMAGE_GENERATOR:
        images = await slot.call("generate", p["prompt"], 1, p.get("seed"), p.get("size"))
        if not images:
            raise PermanentModelError("the model returned no image")
        blobs = [store.put_blob(_png(g.image)) for g in images]
        return {"blobs": blobs}, blobs[0], dict(images[0].provenance)
    if cap is Capability.VISION_CHAT:
        pictures = [_load_image(ref, store) for ref in p["images"]]
        sampling = Sampling.model_validate(p.get("sampling", {}))
        text = await slot.call("ask", pictures, p["text"], sampling)
        return {"text": text}, None, {}
    if cap is Capability.IMAGE_TEXT_ENCODER:
        if "texts" in p:
            vectors = await slot.call("embed_texts", list(p["texts"]))
        else:
            vectors = await slot.call("embed_images", [_load_image(r, store) for r in p["images"]])
        return {"embeddings": [list(map(float, v)) for v in vectors]}, None, {}
    if cap is Capability.PERSON_ANNOTATOR:
        labels = await slot.call("annotate", _load_image(p["image"], store), list(p["subjects"]))
        return {"labels": [vars(label) for label in labels]}, None, {}
    raise PermanentModelError(f"no dispatch for capability {cap}")


# --- planning -------------------------------------------------------------------------------


@dataclass
class RunPlan:
    run: RunRecord
    trials: list[TrialRow]
    pending: dict[str, TrialRow]
    statuses: dict[str, str]

    @property
    def cached(self) -> int:
        return sum(1 for t in self.trials if self.statuses.get(t.key) in TERMINAL)


def run_fingerprint(probe: Probe, refs: Sequence[ModelRef]) -> str:
    return sha256_hex(
        canonical_json(
            {
                "probe": probe.name,
                "probe_version": probe.version,
                "params": probe.params.model_dump(mode="json"),
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


def plan_trials(
    run_id: str, probe: Probe, slots: Sequence[ModelSlot]
) -> tuple[list[TrialRow], list[tuple[int, str, dict[str, Any]]]]:
    """Every trial of the probe for every model, with its subjects; nothing is stored."""
    specs = list(probe.plan())
    rows: list[TrialRow] = []
    subjects: list[tuple[int, str, dict[str, Any]]] = []
    for slot in slots:
        for spec in specs:
            idx = len(rows)
            rows.append(
                TrialRow(
                    run_id=run_id,
                    idx=idx,
                    model_id=slot.ref.model_id,
                    key=trial_key(slot.ref, spec),
                    capability=str(spec.capability),
                    sample=spec.sample,
                    payload=spec.payload,
                    meta=spec.meta,
                )
            )
            subjects.extend((idx, s.position, s.meta) for s in probe.subjects(spec))
    return rows, subjects


@dataclass
class Estimate:
    """What a run would do before anything is paid for (``diptych run --dry-run``)."""

    planned: int
    cached: int
    to_run: int
    cost: float
    unpriced: int
    per_model: dict[str, dict[str, float]]


def estimate(store: Store, probe: Probe, models: Sequence[Model]) -> Estimate:
    """Trials planned, already stored, and the estimated price of the rest; stores nothing."""
    probe = probe.bind(store)
    check_capabilities(probe, models)
    slots = [ModelSlot.of(m) for m in models]
    rows, _ = plan_trials("dry-run", probe, slots)
    statuses = store.result_statuses(t.key for t in rows)
    by_id = {s.ref.model_id: s for s in slots}
    seen: set[str] = set()
    cost, unpriced = 0.0, 0
    per_model: dict[str, dict[str, float]] = {
        s.ref.model_id: {"planned": 0, "to_run": 0, "cost": 0.0} for s in slots
    }
    for trial in rows:
        tally = per_model[trial.model_id]
        tally["planned"] += 1
        if statuses.get(trial.key) in TERMINAL or trial.key in seen:
            continue
        seen.add(trial.key)
        tally["to_run"] += 1
        price = by_id[trial.model_id].model.price(Capability(trial.capability), trial.payload)
        if price is None:
            unpriced += 1
        else:
            cost += price
            tally["cost"] += price
    cached = sum(1 for t in rows if statuses.get(t.key) in TERMINAL)
    return Estimate(
        planned=len(rows),
        cached=cached,
        to_run=len(seen),
        cost=cost,
        unpriced=unpriced,
        per_model=per_model,
    )


def prepare_run(
    store: Store,
    probe: Probe,
    slots: Sequence[ModelSlot],
    *,
    new: bool = False,
    run_id: str | None = None,
) -> RunPlan:
    """Find or create the run and its recorded plan; work out what is left to do."""
    refs = [s.ref for s in slots]
    fingerprint = run_fingerprint(probe, refs)
    if run_id is not None:
        run: RunRecord | None = store.get_run(run_id)
    else:
        run = None if new else store.find_run(fingerprint)
    if run is None:
        base = f"{probe.name}-{fingerprint[:8]}"
        new_id = base
        if new:
            new_id = f"{base}-{int(time.time() * 1000) % 10**8:08d}"
        run = store.create_run(
            new_id,
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
    trials = store.trials(run.id)
    if not trials:
        rows, subjects = plan_trials(run.id, probe, slots)
        store.add_trials(run.id, rows, subjects)
        trials = rows
        run = store.get_run(run.id)
    statuses = store.result_statuses(t.key for t in trials)
    pending: dict[str, TrialRow] = {}
    for t in trials:
        if statuses.get(t.key) not in TERMINAL and t.key not in pending:
            pending[t.key] = t
    return RunPlan(run=run, trials=trials, pending=pending, statuses=statuses)


# --- execution ------------------------------------------------------------------------------


async def _run_one(
    slot: ModelSlot,
    trial: TrialRow,
    store: Store,
    retry: RetryPolicy,
    reporter: Reporter,
    rng: random.Random,
) -> str:
    started = time.time()
    attempts = 0
    output: dict[str, Any] | None = None
    blob: str | None = None
    extra: dict[str, Any] = {}
    error: str | None = None
    while True:
        attempts += 1
        try:
            if slot.limiter is not None:
                await slot.limiter.wait()
            call = call_trial(slot, trial, store)
            if retry.timeout is not None:
                output, blob, extra = await asyncio.wait_for(call, retry.timeout)
            else:
                output, blob, extra = await call
            status = "done"
        except (TransientModelError, TimeoutError) as fault:
            retry_after = getattr(fault, "retry_after", None)
            if attempts < retry.max_attempts:
                delay = retry.delay(attempts, retry_after, rng)
                reporter.note(f"{slot.ref.model_id}: {fault or 'timed out'}; retry in {delay:.1f}s")
                await asyncio.sleep(delay)
                continue
            status, error = "failed", f"gave up after {attempts} attempts: {fault or 'timeout'}"
        except RefusalError as refusal:
            status, error = "refused", str(refusal)
        except ModelCallError as fault:
            status, error = "failed", f"{type(fault).__name__}: {fault}"
        # A model plugin's own bug on one input must not lose the rest of a long run: it is
        # stored as this trial's failure, with its type and message, and the trial is retried
        # on the next resume.
        except Exception as fault:  # noqa: BLE001
            status, error = "failed", f"{type(fault).__name__}: {fault}"
        break
    provenance = {**slot.model.provenance(), **extra}
    store.save_result(
        ResultRecord(
            key=trial.key,
            model_id=slot.ref.model_id,
            model_version=slot.ref.version,
            capability=trial.capability,
            status=status,
            output=output if status == "done" else None,
            blob=blob,
            error=error,
            attempts=attempts,
            started_at=started,
            finished_at=time.time(),
            provenance=provenance,
        )
    )
    reporter.trial_finished(slot.ref.model_id, status, error)
    return status


@dataclass
class Budget:
    """The ``--max-cost`` guard: a trial starts only if its estimated price still fits.

    The price is reserved when the call starts and kept whatever the outcome, so the guard errs
    on the side of spending less than allowed, never more.
    """

    limit: float
    spent: float = 0.0
    exhausted: bool = False

    def reserve(self, price: float | None) -> bool:
        if self.exhausted:
            return False
        cost = price or 0.0
        if self.spent + cost > self.limit + 1e-9:
            self.exhausted = True
            return False
        self.spent += cost
        return True


#: The batched method a model may offer per capability (used when ``hints.batch_size`` > 1).
BATCH_METHODS = {
    Capability.IMAGE_GENERATOR: "generate_batch",
    Capability.VISION_CHAT: "ask_batch",
}


def _batchable(slot: ModelSlot, capability: str) -> bool:
    method = BATCH_METHODS.get(Capability(capability))
    return method is not None and slot.model.hints.batch_size > 1 and hasattr(slot.model, method)


def _batch_group(trial: TrialRow) -> Any:
    """Trials that may share one batched call: same capability, and for images the same size."""
    if trial.capability == Capability.IMAGE_GENERATOR:
        return (trial.capability, trial.payload.get("size"))
    return (trial.capability,)


def _take_batch(slot: ModelSlot, queue: list[TrialRow]) -> list[TrialRow]:
    """Up to ``batch_size`` queued trials that can share one batched call."""
    first = queue.pop()
    batch = [first]
    if not _batchable(slot, first.capability):
        return batch
    group = _batch_group(first)
    for trial in reversed(queue[:]):
        if len(batch) == slot.model.hints.batch_size:
            break
        if _batch_group(trial) == group:
            queue.remove(trial)
            batch.append(trial)
    return batch


async def _call_batch(
    slot: ModelSlot, batch: list[TrialRow], store: Store
) -> list[tuple[dict[str, Any], str | None, dict[str, Any]]]:
    """One batched call; per trial the same (output, blob, provenance) as ``call_trial``."""
    capability = Capability(batch[0].capability)
    if capability is Capability.IMAGE_GENERATOR:
        images = await slot.call(
            "generate_batch",
            [t.payload["prompt"] for t in batch],
            [t.payload.get("seed") for t in batch],
            batch[0].payload.get("size"),
        )
        out: list[tuple[dict[str, Any], str | None, dict[str, Any]]] = []
        for image in images:
            blob = store.put_blob(_png(image.image))
            out.append(({"blobs": [blob]}, blob, dict(image.provenance)))
        return out
    requests = [
        ([_load_image(ref, store) for ref in t.payload["images"]], t.payload["text"]) for t in batch
    ]
    samplings = [Sampling.model_validate(t.payload.get("sampling", {})) for t in batch]
    answers = await slot.call("ask_batch", requests, samplings)
    # The model's provenance describes the whole batch; each answer records its own seed.
    return [
        ({"text": text}, None, {"seeds": [s.seed]} if s.seed is not None else {})
        for text, s in zip(answers, samplings, strict=True)
    ]


async def _run_batch(
    slot: ModelSlot, batch: list[TrialRow], store: Store, reporter: Reporter
) -> bool:
    """One batched call for several trials; False if it failed as a whole (the caller then
    runs each trial alone, with the usual retries and outcomes)."""
    started = time.time()
    try:
        outcomes = await _call_batch(slot, batch, store)
    # Whatever went wrong with the batch, each trial gets its own chance in the caller.
    except Exception:  # noqa: BLE001
        return False
    if len(outcomes) != len(batch):
        return False
    for trial, (output, blob, extra) in zip(batch, outcomes, strict=True):
        store.save_result(
            ResultRecord(
                key=trial.key,
                model_id=slot.ref.model_id,
                model_version=slot.ref.version,
                capability=trial.capability,
                status="done",
                output=output,
                blob=blob,
                error=None,
                attempts=1,
                started_at=started,
                finished_at=time.time(),
                provenance={**slot.model.provenance(), **extra, "batch_size": len(batch)},
            )
        )
        reporter.trial_finished(slot.ref.model_id, "done", None)
    return True


async def execute(
    store: Store,
    plan: RunPlan,
    slots: Sequence[ModelSlot],
    *,
    reporter: Reporter,
    retry: RetryPolicy,
    concurrency: int = 16,
    seed: int | None = None,
    budget: Budget | None = None,
) -> None:
    """Run every pending trial of the plan; return when all have a stored outcome (or the
    budget would be exceeded by the next one)."""
    rng = random.Random(seed)
    by_model: dict[str, list[TrialRow]] = {}
    for trial in plan.pending.values():
        by_model.setdefault(trial.model_id, []).append(trial)

    async def worker(slot: ModelSlot, queue: list[TrialRow]) -> None:
        while queue:
            batch = _take_batch(slot, queue)
            if budget is not None:
                price = sum(
                    slot.model.price(Capability(t.capability), t.payload) or 0.0 for t in batch
                )
                if not budget.reserve(price):
                    queue.extend(reversed(batch))
                    return
            if len(batch) > 1 and await _run_batch(slot, batch, store, reporter):
                continue
            for trial in batch:
                await _run_one(slot, trial, store, retry, reporter, rng)

    # Models load before any worker starts: a load failure is then one clear error, not an
    # exception group raised out of the task group.
    for slot in slots:
        if by_model.get(slot.ref.model_id):
            await slot.ensure_loaded()
    async with asyncio.TaskGroup() as group:
        for slot in slots:
            queue = list(reversed(by_model.get(slot.ref.model_id, [])))
            if not queue:
                continue
            hints = slot.model.hints
            if hints.rate_limit_per_min:
                slot.limiter = RateLimiter(hints.rate_limit_per_min)
            for _ in range(max(1, min(hints.max_concurrency, concurrency, len(queue)))):
                group.create_task(worker(slot, queue))


def derive_self_labels(store: Store, run: RunRecord, probe: Probe) -> int:
    """Store the labels a probe reads off its models' own answers, for every finished trial
    that has none yet. Idempotent, so a resumed run catches up on what a kill skipped."""
    rows = store.subjects_missing_label(run.id, probe.self_annotator)
    if not rows:
        return 0
    # A probe labels a trial's subjects together (a story names both people), so each trial
    # is rebuilt with all its subjects, in plan order, and only the missing labels are kept.
    missing: dict[int, dict[str, int]] = {}
    for row in rows:
        missing.setdefault(row["trial_idx"], {})[row["position"]] = row["subject_id"]
    subjects = store.subjects_by_trial(run.id)
    trials = {t.idx: t for t in store.trials(run.id) if t.idx in missing}
    results = store.run_results(run.id)
    out: list[tuple[int, str, str, float | None, dict[str, Any]]] = []
    for idx, wanted in missing.items():
        trial = trials[idx]
        spec = TrialSpec(
            Capability(trial.capability),
            trial.payload,
            sample=trial.sample,
            meta=trial.meta,
            subjects=tuple(Subject(pos, meta) for pos, meta in subjects[idx]),
        )
        output = results[trial.key].output or {}
        for label in probe.self_labels(spec, output, trial.key):
            if label.position in wanted:
                out.append(
                    (
                        wanted[label.position],
                        probe.self_annotator,
                        label.label,
                        label.confidence,
                        label.detail,
                    )
                )
    return store.save_annotations(out)


def refresh_flags(store: Store, run_id: str, probe: Probe) -> int:
    """Recompute and store the probe's review flags for the run."""
    flags = probe.review_flags(store, run_id)
    return store.replace_flags(
        run_id, ((f.trial_idx, f.position, f.reason, f.detail) for f in flags)
    )


def final_status(counts: dict[str, int], budget: Budget | None = None) -> str:
    if counts["pending"]:
        return "over-budget" if budget is not None and budget.exhausted else "interrupted"
    return "incomplete" if counts["failed"] else "complete"


async def run_async(
    store: Store,
    probe: Probe,
    models: Sequence[Model],
    *,
    reporter: Reporter | None = None,
    retry: RetryPolicy | None = None,
    concurrency: int = 16,
    new: bool = False,
    run_id: str | None = None,
    max_cost: float | None = None,
) -> RunRecord:
    reporter = reporter or NullReporter()
    budget = Budget(max_cost) if max_cost is not None else None
    probe = probe.bind(store)
    check_capabilities(probe, models)
    slots = [ModelSlot.of(m) for m in models]
    plan = prepare_run(store, probe, slots, new=new, run_id=run_id)
    reporter.run_started(plan.run, len(plan.trials), plan.cached, len(plan.pending))
    store.set_run_status(plan.run.id, "running")
    try:
        await execute(
            store,
            plan,
            slots,
            reporter=reporter,
            retry=retry or RetryPolicy(),
            concurrency=concurrency,
            budget=budget,
        )
    finally:
        # Runs on success, Ctrl-C (cancellation) and errors alike: the status reflects what is
        # stored, and labels are derived for every result that made it.
        for slot in slots:
            slot.close()
            await slot.model.aclose()
        derive_self_labels(store, plan.run, probe)
        refresh_flags(store, plan.run.id, probe)
        counts = store.status_counts(plan.run.id)
        store.set_run_status(plan.run.id, final_status(counts, budget))
        if budget is not None and budget.exhausted:
            reporter.note(
                f"stopped before exceeding --max-cost ${budget.limit:.2f}: "
                f"${budget.spent:.2f} committed, {counts['pending']} trials left"
            )
    run = store.get_run(plan.run.id)
    reporter.run_finished(run, counts)
    return run


def run_probe(
    store: Store,
    probe: Probe | str,
    models: Sequence[Model | str | tuple[str, Any]],
    *,
    probe_params: dict[str, Any] | Sequence[str] | None = None,
    reporter: Reporter | None = None,
    retry: RetryPolicy | None = None,
    concurrency: int = 16,
    new: bool = False,
    run_id: str | None = None,
    max_cost: float | None = None,
) -> RunRecord:
    """Run (or resume) ``probe`` against ``models`` and return the run's record."""
    if isinstance(probe, str):
        probe = get_probe(probe, probe_params)
    resolved = [resolve_model(m) for m in models]
    return asyncio.run(
        run_async(
            store,
            probe,
            resolved,
            reporter=reporter,
            retry=retry,
            concurrency=concurrency,
            new=new,
            run_id=run_id,
            max_cost=max_cost,
        )
    )


def probe_and_models_of(run: RunRecord) -> tuple[Probe, list[Model]]:
    """Rebuild a run's probe and models from what the run recorded."""
    probe = get_probe(run.probe, run.params)
    models = [get_model(m["name"], m["params"]) for m in run.models]
    return probe, models


def resume_run(
    store: Store,
    run_id: str,
    *,
    reporter: Reporter | None = None,
    retry: RetryPolicy | None = None,
    concurrency: int = 16,
) -> RunRecord:
    run = store.get_run(run_id)
    probe, models = probe_and_models_of(run)
    return run_probe(
        store,
        probe,
        models,
        reporter=reporter,
        retry=retry,
        concurrency=concurrency,
        run_id=run.id,
    )

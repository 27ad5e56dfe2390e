"""The Ray executor: trials of local models in Ray actors; the driver alone writes the store.

* A model is *local* when its hints say so (``local`` or ``blocking``: weights on the machine
  that runs it) and no trial of it has a price. Its trials go to a pool of Ray actors
  (:class:`~diptych.core.engine.executors.worker.TrialWorker`): one per GPU of the cluster
  (``num_gpus=1`` each) where it has GPUs, else up to one per CPU, or ``workers`` of them.
  Each actor builds and loads the model once and takes batches of ``batch_size`` trials.
  Local models run one after another, so that one model's pool has the GPUs to itself.
* Paid and service models stay on this process's own paced path (the local executor), at the
  same time: their requests are claimed and sent from here, so no Ray retry can pay twice.
* This process persists every result as it comes back (blob, then row, one transaction). A
  result that arrives twice — Ray re-runs the tasks of an actor it restarts, and a batch whose
  actor died is sent again to its replacement — is stored once.
* Cancelling the run (Ctrl-C, a front end's stop) kills the actors; what they had not sent back
  is left pending for the next resume, as with the local executor.

``ray`` is imported only here, and only when the executor runs: without it, the run stops with
:class:`MissingDependencyError` naming the ``ray`` extra.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Coroutine, Sequence
from typing import Any

from diptych.core.capabilities import Capability
from diptych.core.engine.execution import CLAIM_POLL_S, claim_batch, take_batch
from diptych.core.engine.executors.local import LocalExecutor
from diptych.core.engine.executors.worker import (
    BatchResult,
    TrialWorker,
    input_blobs,
    plugin_setup,
    referenced_blobs,
)
from diptych.core.engine.options import RunOptions
from diptych.core.engine.pacing import Budget, PaidRetries
from diptych.core.engine.planning import RunPlan
from diptych.core.engine.reporting import Reporter
from diptych.core.engine.slots import ModelSlot
from diptych.core.errors import DiptychError, MissingDependencyError, ModelLoadError
from diptych.core.store import Lease, Store, TrialRow

#: Actors of a CPU-only cluster per model when ``workers`` is not given (each takes a CPU).
MAX_CPU_WORKERS = 4
#: Times Ray restarts a dead actor (re-running its unfinished tasks) before the driver
#: replaces it; and times the driver replaces one actor before leaving its trials pending.
RAY_RESTARTS = 1
MAX_REPLACEMENTS = 3


def _ray() -> Any:
    try:
        import ray
    except ImportError as error:
        raise MissingDependencyError("ray", "ray", "the Ray executor") from error
    return ray


async def _together(jobs: Sequence[Coroutine[Any, Any, None]]) -> None:
    """Run the jobs at once; the first to fail stops the others and is raised as itself (a
    model that cannot load is one clear error, not an exception group)."""
    try:
        async with asyncio.TaskGroup() as group:
            for job in jobs:
                group.create_task(job)
    except BaseExceptionGroup as errors:
        if len(errors.exceptions) == 1:
            raise errors.exceptions[0] from None
        raise


def runs_on_ray(slot: ModelSlot, trials: Sequence[TrialRow]) -> bool:
    """Whether the model's trials go to Ray: a local model none of whose trials has a price."""
    model = slot.model
    if not (model.hints.local or model.hints.blocking):
        return False
    return all(model.price(Capability(t.capability), t.payload) is None for t in trials)


class RayExecutor:
    """Local-model trials in Ray actors, everything else as with the local executor."""

    name = "ray"

    def __init__(self, address: str | None = None, workers: int | None = None) -> None:
        self.address = address
        self.workers = workers

    async def execute(
        self,
        store: Store,
        plan: RunPlan,
        slots: Sequence[ModelSlot],
        options: RunOptions,
        *,
        reporter: Reporter,
        budget: Budget | None = None,
        lease: Lease | None = None,
        paid_retries: PaidRetries | None = None,
    ) -> None:
        by_model: dict[str, list[TrialRow]] = {}
        for trial in plan.pending.values():
            by_model.setdefault(trial.model_id, []).append(trial)
        remote = [
            s
            for s in slots
            if by_model.get(s.ref.model_id) and runs_on_ray(s, by_model[s.ref.model_id])
        ]
        remote_ids = {s.ref.model_id for s in remote}
        here = [s for s in slots if s.ref.model_id not in remote_ids]
        here_plan = dataclasses.replace(
            plan,
            pending={k: t for k, t in plan.pending.items() if t.model_id not in remote_ids},
        )
        jobs = []
        if here_plan.pending:
            jobs.append(
                LocalExecutor().execute(
                    store,
                    here_plan,
                    here,
                    options,
                    reporter=reporter,
                    budget=budget,
                    lease=lease,
                    paid_retries=paid_retries,
                )
            )
        if remote:
            jobs.append(self._on_ray(store, plan, remote, by_model, options, reporter, lease))
        await _together(jobs)

    async def _on_ray(
        self,
        store: Store,
        plan: RunPlan,
        slots: Sequence[ModelSlot],
        by_model: dict[str, list[TrialRow]],
        options: RunOptions,
        reporter: Reporter,
        lease: Lease | None,
    ) -> None:
        ray = _ray()
        started = not ray.is_initialized()
        if started:
            # RAY_ADDRESS (or ``address``) joins a running cluster; without either, Ray starts
            # a local instance for this run and it is shut down at the end.
            ray.init(
                address=self.address,
                include_dashboard=False,
                log_to_driver=False,
                logging_level=logging.WARNING,
            )
        try:
            for slot in slots:
                pool = _Pool(ray, store, plan, slot, options, reporter, lease, self.workers)
                await pool.drain(by_model[slot.ref.model_id])
        finally:
            if started:
                ray.shutdown()


class ResultSink:
    """The driver's end of a model's batches: each result persisted once, blob then row, and
    reported once, however often it arrives."""

    def __init__(self, store: Store, model_id: str, reporter: Reporter) -> None:
        self.store = store
        self.model_id = model_id
        self.reporter = reporter
        self.stored: set[str] = set()

    def persist(self, result: BatchResult) -> int:
        """Store and report the batch's results not stored yet; how many were."""
        records, blobs, notes = result
        for text in notes:
            self.reporter.note(text)
        fresh = 0
        for record in records:
            if record.key in self.stored:
                continue
            for sha in referenced_blobs(record):
                if sha not in blobs:
                    continue  # an input blob the worker referred to: stored already
                if self.store.put_blob(blobs[sha]) != sha:
                    raise DiptychError(f"blob {sha} from a Ray worker does not match its sha256")
            self.store.save_result(record)
            self.stored.add(record.key)
            self.reporter.trial_finished(self.model_id, record.status, record.error)
            fresh += 1
        return fresh


class _Pool:
    """One local model's actors and the driver's side of their batches."""

    def __init__(
        self,
        ray: Any,
        store: Store,
        plan: RunPlan,
        slot: ModelSlot,
        options: RunOptions,
        reporter: Reporter,
        lease: Lease | None,
        workers: int | None,
    ) -> None:
        self.ray = ray
        self.store = store
        self.slot = slot
        self.options = options
        self.reporter = reporter
        self.lease = lease
        self.run_id = plan.run.id
        self.sink = ResultSink(store, slot.ref.model_id, reporter)
        hints = slot.model.hints
        #: Batches one actor works on at once (its model's own limit, the run's cap).
        self.per_actor = max(1, min(hints.max_concurrency, options.concurrency))
        resources = ray.cluster_resources()
        gpus = int(resources.get("GPU", 0))
        cpus = max(1, int(resources.get("CPU", 1)))
        if gpus:
            self.size = workers or gpus
            self.resources: dict[str, float] = {"num_gpus": 1}
        else:
            self.size = workers or min(cpus, MAX_CPU_WORKERS)
            # A fractional CPU when more actors are asked than there are CPUs: every actor
            # then starts, rather than some waiting forever for a CPU.
            self.resources = {"num_cpus": min(1.0, cpus / self.size)}
        self.actor_class = ray.remote(TrialWorker)
        model = slot.model
        self.init_args = (
            type(model).name,
            model.params.model_dump(mode="json"),
            plugin_setup(type(model).name),
            options.retry,
            options.seed,
        )
        self.actors: dict[int, Any] = {}
        self.generation: dict[int, int] = {}
        self.replacements: dict[int, int] = {}

    def _spawn(self, index: int) -> Any:
        generation = self.generation.get(index, -1) + 1
        self.generation[index] = generation
        actor = self.actor_class.options(
            name=f"diptych:{self.run_id}:{self.slot.ref.model_id}:{index}.{generation}",
            max_concurrency=self.per_actor,
            max_restarts=RAY_RESTARTS,
            max_task_retries=RAY_RESTARTS,
            **self.resources,
        ).remote(*self.init_args)
        self.actors[index] = actor
        return actor

    async def _ready(self, actor: Any) -> None:
        """Wait for an actor to load its model; a load failure is raised as the model's own."""
        try:
            version = await actor.ready.remote()
        except self.ray.exceptions.RayTaskError as error:
            cause = getattr(error, "cause", None)
            if isinstance(cause, DiptychError):
                raise cause from None
            model_id = self.slot.ref.model_id
            raise ModelLoadError(f"{model_id} failed to load on Ray: {error}") from None
        if version != self.slot.ref.version:
            raise ModelLoadError(
                f"{self.slot.ref.model_id} is version {version} on a Ray worker but "
                f"{self.slot.ref.version} here: install the same model on every node"
            )

    async def drain(self, trials: list[TrialRow]) -> None:
        queue = list(reversed(trials))
        size = max(1, min(self.size, len(queue)))
        try:
            for index in range(size):
                self._spawn(index)
            await asyncio.gather(*(self._ready(a) for a in self.actors.values()))
            while queue:
                held: list[TrialRow] = []
                # One more batch per actor than it works on at once: the next one waits in
                # the actor, so it never idles while a result travels back.
                await _together(
                    [
                        self._lane(index, queue, held)
                        for index in range(size)
                        for _ in range(self.per_actor + 1)
                    ]
                )
                queue = held
                if queue:
                    await asyncio.sleep(CLAIM_POLL_S)
        finally:
            # Done, failed or cancelled alike: the actors (and the GPU memory they hold) go.
            for actor in self.actors.values():
                self.ray.kill(actor)

    async def _lane(self, index: int, queue: list[TrialRow], held: list[TrialRow]) -> None:
        ray = self.ray
        while queue:
            if index not in self.actors:
                return
            batch = [t for t in take_batch(self.slot, queue) if t.key not in self.sink.stored]
            batch = claim_batch(self.store, self.lease, self.slot, batch, held, self.reporter)
            if not batch:
                continue
            actor, generation = self.actors[index], self.generation[index]
            try:
                result: BatchResult = await actor.run.remote(batch, input_blobs(batch, self.store))
            except ray.exceptions.RayActorError:
                # Ray gave up restarting the actor (or it was killed for good): its batch goes
                # back to the queue, and the actor is replaced a few times before its trials
                # are left pending for a resume.
                queue.extend(reversed(batch))
                if self.generation[index] == generation:
                    self._replace(index)
                continue
            self.sink.persist(result)

    def _replace(self, index: int) -> None:
        model_id = self.slot.ref.model_id
        self.replacements[index] = self.replacements.get(index, 0) + 1
        if self.replacements[index] > MAX_REPLACEMENTS:
            self.reporter.note(f"{model_id}: Ray worker {index} keeps dying; giving up on it")
            self.actors.pop(index, None)
            return
        self.reporter.note(f"{model_id}: Ray worker {index} died; starting another")
        self._spawn(index)

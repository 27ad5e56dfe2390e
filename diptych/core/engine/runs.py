"""Running a probe against models: plan, skip what is stored, execute the rest, finish.

The entry points a front end (through the Workspace) calls. Every one takes a
:class:`RunOptions`; the keyword arguments ``retry``, ``concurrency``, ``new``, ``run_id`` and
``max_cost`` are kept for callers written before it and override the options they name.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from diptych.core.audit.stopped import purchase_seed
from diptych.core.builds import builds_by_model, check_build
from diptych.core.capabilities import Model
from diptych.core.cost import cost_text
from diptych.core.engine.execution import MAYBE_PAID, PAID_UNUSABLE, paid
from diptych.core.engine.executors import execute
from diptych.core.engine.finishing import finish_run, finish_sharing
from diptych.core.engine.lease import holding
from diptych.core.engine.options import RunOptions
from diptych.core.engine.pacing import RetryPolicy
from diptych.core.engine.persisting import check_free_space
from diptych.core.engine.planning import (
    RunPlan,
    bind_probe,
    check_capabilities,
    find_or_create_run,
    prepare_run,
    store_input_blobs,
)
from diptych.core.engine.purchase import in_purchase_order
from diptych.core.engine.reporting import NullReporter, Reporter, warn
from diptych.core.engine.slots import ModelSlot, resolve_model
from diptych.core.errors import StoreFullError
from diptych.core.plugins import get_model, get_probe
from diptych.core.probe import Probe
from diptych.core.store import RunRecord, Store


async def run_async(
    store: Store,
    probe: Probe,
    models: Sequence[Model],
    *,
    options: RunOptions | None = None,
    reporter: Reporter | None = None,
    retry: RetryPolicy | None = None,
    concurrency: int | None = None,
    new: bool | None = None,
    run_id: str | None = None,
    max_cost: float | None = None,
) -> RunRecord:
    """Run (or resume) ``probe`` against ``models`` on the running event loop.

    Cancelling it (Ctrl-C, SIGTERM, a front end's stop) abandons the calls in flight, never
    half-stores one, gives the run's lease back and still finishes the run: status, self labels
    and flags match what was stored, and it can be resumed at once."""
    options = (options or RunOptions()).updated(
        retry=retry, concurrency=concurrency, new=new, run_id=run_id, max_cost=max_cost
    )
    reporter = reporter or NullReporter()
    budget = options.budget()
    paid_retries = options.paid_retry_allowance()
    probe = bind_probe(probe, store)
    check_capabilities(probe, models)
    slots = [ModelSlot.of(m) for m in models]
    record = find_or_create_run(store, probe, slots, new=options.new, run_id=options.run_id)
    # The lease comes before the plan: a second process on this run stops (or waits) here,
    # before it has planned, counted or sent anything.
    async with holding(store, record.id, wait=options.wait, reporter=reporter) as lease:
        # The images the probe brings along go in before any trial that names them is asked.
        store_input_blobs(store, probe)
        plan = prepare_run(store, probe, slots, run=record, paid_retries=paid_retries)
        # A run an audit bought in a random order (batch by batch, until decided) is bought
        # on in the same order by whatever continues it: a resume, a plain run of its design.
        seed = options.order_seed
        if seed is None:
            seed = purchase_seed(store, plan.run.id)
        if seed is not None:
            plan = in_purchase_order(store, plan, seed, options.order_share)
        if options.only_keys is not None:
            plan = replace(plan, pending={k: t for k, t in plan.pending.items()
                                          if k in options.only_keys})  # fmt: skip
        by_id = {slot.ref.model_id: slot for slot in slots}
        if plan.cached and plan.pending:
            check_builds(store, plan, by_id, options, reporter)
        check_free_space(
            store.path, [t for t in plan.pending.values() if paid(by_id[t.model_id], t)]
        )
        reporter.run_started(plan.run, plan.planned, plan.cached, len(plan.pending))
        # What the run was before this execution: a run left on purpose (decided by its
        # gates) that is stopped before anything new is stored stays what it was.
        left = store.status_counts(plan.run.id, live=True)["pending"]
        started = (store.get_run(plan.run.id).status, left)
        store.set_run_status(plan.run.id, "running")
        stopped: BaseException | None = None
        try:
            await execute(
                store,
                plan,
                slots,
                options,
                reporter=reporter,
                budget=budget,
                lease=lease,
                paid_retries=paid_retries,
            )
        except BaseException as error:
            stopped = error
            raise
        finally:
            # Runs on success, Ctrl-C (cancellation) and errors alike: the status reflects
            # what is stored, and labels are derived for every result that made it.
            for slot in slots:
                # A stop abandons the calls in flight (nothing of them is stored): waiting for
                # a local model's generation to end would hold a quitting front end for it,
                # and closing the model would pull it from under the call still running.
                if not slot.close(abandon=stopped is not None):
                    await slot.model.aclose()
            try:
                # A batch of a sequential audit asked for a share of the design only: the
                # rest is left on purpose, not by a stop.
                part = options.order_share is not None or options.only_keys is not None
                asked = set(plan.pending) if part else None
                run = finish_run(
                    store, plan.run.id, probe=probe, budget=budget, asked=asked, started=started
                )
                # What it stored may be all another stopped run was waiting for.
                finish_sharing(store, run.id)
                counts = store.status_counts(run.id)
            except StoreFullError:
                # The disk is still full: the error that stopped the run says what to do.
                if stopped is None:
                    raise
            else:
                maybe_paid = maybe_paid_count(store, run.id) if counts.get("failed") else 0
                if maybe_paid:
                    warn(
                        reporter,
                        f"{maybe_paid} requests got no answer after they were sent: they "
                        f"{MAYBE_PAID} without an answer stored (resume the run to ask again)",
                    )
                unusable = len(store.paid_failed_trials(run.id)) if counts.get("failed") else 0
                if unusable:
                    warn(
                        reporter,
                        f"{unusable} trials' answers were {PAID_UNUSABLE}: stored as failed with "
                        "the reason and cost, and not bought again by a resume unless asked "
                        f"(resume the run with --paid-retries {unusable} to buy them again)",
                    )
                for slot in slots:
                    if slot.halted is not None and counts["pending"]:
                        warn(
                            reporter,
                            f"{slot.ref.model_id}: {slot.halted} (its trials not yet sent "
                            "are left pending)",
                        )
                if budget is not None and budget.exhausted:
                    reporter.note(
                        f"stopped before exceeding --max-cost {cost_text(budget.limit)}: "
                        f"{cost_text(budget.spent)} committed, {counts['pending']:,} trials left"
                    )
    reporter.run_finished(run, counts)
    return run


def maybe_paid_count(store: Store, run_id: str) -> int:
    """The run's failed trials whose last request may have been carried out (and paid)."""
    return sum(
        1
        for result in store.run_results(run_id).values()
        if result.status == "failed" and (result.error or "").startswith(MAYBE_PAID)
    )


def run_probe(
    store: Store,
    probe: Probe | str,
    models: Sequence[Model | str | tuple[str, Any]],
    *,
    probe_params: dict[str, Any] | Sequence[str] | None = None,
    options: RunOptions | None = None,
    reporter: Reporter | None = None,
    retry: RetryPolicy | None = None,
    concurrency: int | None = None,
    new: bool | None = None,
    run_id: str | None = None,
    max_cost: float | None = None,
) -> RunRecord:
    """Run (or resume) ``probe`` against ``models`` and return the run's record."""
    if isinstance(probe, str):
        probe = get_probe(probe, probe_params)
    resolved = [resolve_model(m) for m in models]
    options = (options or RunOptions()).updated(
        retry=retry, concurrency=concurrency, new=new, run_id=run_id, max_cost=max_cost
    )
    return asyncio.run(run_async(store, probe, resolved, options=options, reporter=reporter))


def probe_and_models_of(run: RunRecord) -> tuple[Probe, list[Model]]:
    """Rebuild a run's probe and models from what the run recorded."""
    probe = get_probe(run.probe, run.params)
    models = [get_model(m["name"], m["params"]) for m in run.models]
    return probe, models


def resume_run(
    store: Store,
    run_id: str,
    *,
    options: RunOptions | None = None,
    reporter: Reporter | None = None,
    retry: RetryPolicy | None = None,
    concurrency: int | None = None,
    max_cost: float | None = None,
) -> RunRecord:
    """Finish the stored run ``run_id`` with the probe and models it recorded, without redoing
    any trial that has a stored result."""
    run = store.get_run(run_id)
    probe, models = probe_and_models_of(run)
    options = (options or RunOptions()).updated(
        retry=retry, concurrency=concurrency, max_cost=max_cost, run_id=run.id
    )
    return run_probe(store, probe, models, options=options, reporter=reporter)


def check_builds(
    store: Store,
    plan: RunPlan,
    by_id: dict[str, ModelSlot],
    options: RunOptions,
    reporter: Reporter,
) -> None:
    """Before a stored run gets more results: warn (or refuse, ``same_build``) where a model
    would add them from another backend build than its stored ones came from."""
    recorded = builds_by_model(store.run_results(plan.run.id).values())
    waiting = {t.model_id for t in plan.pending.values()}
    for model_id in sorted(waiting & recorded.keys()):
        text = check_build(
            model_id,
            by_id[model_id].model.build(),
            recorded[model_id],
            same_build=options.same_build,
        )
        if text is not None:
            warn(reporter, text)

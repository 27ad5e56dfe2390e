"""Calling one trial (or one batch) of a plan: retried where transient, then persisted.

The pieces every executor shares (:mod:`diptych.core.engine.executors`):

* transient faults are retried with exponential backoff and full jitter, honouring Retry-After
  up to the run's cap (a longer wait fails the trial and leaves the model's others for a resume);
* an answer paid for but unusable is stored as a paid failure, bought again only within the
  run's allowance of paid retries;
* each result is persisted the moment it arrives (blob first, then its row, one transaction),
  so a process killed at any moment loses only calls that had not finished; a full disk holds
  the answers in memory until there is room (:mod:`diptych.core.engine.persisting`);
* each paid request is claimed before it is sent (the exactly-once gate of a run's lease).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Hashable
from dataclasses import replace
from typing import Any, cast

from diptych.core.capabilities import Capability
from diptych.core.cost import cost_text
from diptych.core.engine.dispatch import Outcome, batched_method, call_batch, call_trial
from diptych.core.engine.pacing import Budget, PaidRetries, RetryPolicy
from diptych.core.engine.persisting import DiskRoom, HeldBlobs, persist
from diptych.core.engine.reporting import Reporter
from diptych.core.engine.slots import ModelSlot, pool_shut, stopped_by
from diptych.core.errors import (
    ModelCallError,
    PaidFailureError,
    RefusalError,
    RunStoppedError,
    StoreFullError,
    TransientModelError,
)
from diptych.core.store import Lease, ResultRecord, Store, TrialRow


def _record(
    slot: ModelSlot,
    trial: TrialRow,
    status: str,
    outcome: Outcome | None,
    *,
    error: str | None,
    attempts: int,
    started: float,
    provenance: dict[str, Any] | None = None,
) -> ResultRecord:
    output, blob, extra = outcome if outcome is not None else (None, None, {})
    return ResultRecord(
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
        provenance={**slot.model.provenance(), **extra, **(provenance or {})},
    )


#: How a stored failure says its request may have been carried out (and paid for) anyway.
MAYBE_PAID = "may have been paid"


def _maybe_charged(fault: BaseException) -> bool:
    """Whether the failed request may have reached the service and been carried out: a
    timeout after it was sent, or a connection dropped after sending."""
    if isinstance(fault, TransientModelError):
        return fault.maybe_charged
    return isinstance(fault, TimeoutError)


#: How a stored failure says the service was paid for an answer that could not be used.
PAID_UNUSABLE = "paid for, unusable"


def _dollars(costs: list[float | None]) -> str:
    known = [c for c in costs if c is not None]
    if not known:
        return "cost not known"
    text = cost_text(sum(known))
    return text if len(known) == len(costs) else f"{text} and {len(costs) - len(known)} unpriced"


def _unusable_provenance(costs: list[float | None], failed: bool) -> dict[str, Any]:
    """What a result records of the unusable answers paid for on its way: how many, what they
    cost (None: no price known), and whether the stored outcome is one (a paid failure, which
    a resume leaves alone unless given paid retries)."""
    known = [c for c in costs if c is not None]
    out: dict[str, Any] = {
        "paid_unusable": len(costs),
        "paid_unusable_cost_usd": sum(known) if known else None,
    }
    if failed:
        out["paid_failure"] = True
    return out


def _fault_reason(fault: BaseException, timeout: float | None) -> str:
    """Why a call failed, never empty: a timeout (whose exception has no message) says so."""
    if isinstance(fault, TimeoutError) and not str(fault):
        return f"timed out after {timeout:g} s" if timeout is not None else "timed out"
    return str(fault) or type(fault).__name__


async def attempt_trial(
    slot: ModelSlot,
    trial: TrialRow,
    store: Store,
    retry: RetryPolicy,
    reporter: Reporter,
    rng: random.Random,
    paid_retries: PaidRetries | None = None,
    budget: Budget | None = None,
) -> ResultRecord:
    """Call the model for one trial, retrying transient faults; the terminal outcome as a
    record, not yet stored (the caller persists it: here, or on the driver of a Ray run).

    An answer paid for but unusable is asked again only while ``paid_retries`` (none: no
    retry) has one left whose price fits ``budget``."""
    started = time.time()
    attempts = 0
    maybe_paid = 0
    unusable: list[float | None] = []
    outcome: Outcome | None = None
    error: str | None = None
    while True:
        attempts += 1
        try:
            if slot.limiter is not None:
                await slot.limiter.wait()
            call = call_trial(slot, trial, store)
            if retry.timeout is not None:
                outcome = await asyncio.wait_for(call, retry.timeout)
            else:
                outcome = await call
            status = "done"
        except (TransientModelError, TimeoutError) as fault:
            retry_after = getattr(fault, "retry_after", None)
            reason = _fault_reason(fault, retry.timeout)
            too_long = retry.over_cap(retry_after)
            if too_long is not None:
                # Obeying would hang the run; the service's other answers would say the same,
                # so no further request goes to this model in this execution.
                slot.halt(too_long)
                status, error = "failed", f"{reason}; {too_long}"
                break
            if _maybe_charged(fault) and paid(slot, trial):
                maybe_paid += 1
                if not retry.retry_maybe_paid:
                    reporter.note(f"{slot.ref.model_id}: {reason}; {MAYBE_PAID}, not sent again")
                    status = "failed"
                    error = (
                        f"{MAYBE_PAID}: {reason}; not sent again so as not to pay twice "
                        "(resume the run to ask again)"
                    )
                    break
            if attempts < retry.max_attempts:
                delay = retry.delay(attempts, retry_after, rng)
                reporter.note(f"{slot.ref.model_id}: {reason}; retry in {delay:.1f}s")
                await asyncio.sleep(delay)
                continue
            status, error = "failed", f"gave up after {attempts} attempts: {reason}"
        except RefusalError as refusal:
            status, error = "refused", str(refusal)
        except PaidFailureError as fault:
            price = slot.model.price(Capability(trial.capability), trial.payload)
            unusable.append(fault.cost if fault.cost is not None else price)
            if (
                paid_retries is not None
                and attempts < retry.max_attempts
                and paid_retries.take(budget, price)
            ):
                reporter.note(
                    f"{slot.ref.model_id}: {fault}; {PAID_UNUSABLE}, bought again (paid retry "
                    f"{paid_retries.used} of {paid_retries.limit})"
                )
                continue
            status = "failed"
            error = (
                f"{PAID_UNUSABLE} ({_dollars(unusable)}): {fault}; not bought again "
                "(resume the run with --paid-retries N to buy it again)"
            )
        except ModelCallError as fault:
            status, error = "failed", f"{type(fault).__name__}: {fault}"
        except (StoreFullError, RunStoppedError):
            raise  # not this trial's fault: the run stops, and resumes once there is room
        # A model plugin's own bug on one input must not lose the rest of a long run: it is
        # stored as this trial's failure, with its type and message, and the trial is retried
        # on the next resume.
        except Exception as fault:  # noqa: BLE001
            if pool_shut(fault):
                # A plugin's own thread pool closed by the process's exit: a stop, not a
                # failure of this trial, which stays pending.
                raise stopped_by(fault) from fault
            status, error = "failed", f"{type(fault).__name__}: {fault}"
        break
    extra: dict[str, Any] = {"maybe_paid": maybe_paid} if maybe_paid else {}
    if unusable:
        failed = status == "failed" and (error or "").startswith(PAID_UNUSABLE)
        extra.update(_unusable_provenance(unusable, failed))
    return _record(
        slot,
        trial,
        status,
        outcome,
        error=error,
        attempts=attempts,
        started=started,
        provenance=extra or None,
    )


def carry_unusable(record: ResultRecord, earlier: ResultRecord | None) -> ResultRecord:
    """``record`` with the unusable answers an earlier attempt at the trial paid for added to
    its own, so that what was paid stays counted when the row is replaced."""
    before = earlier.provenance.get("paid_unusable", 0) if earlier is not None else 0
    if not before or earlier is None:
        return record
    own = record.provenance.get("paid_unusable", 0)
    costs = [earlier.provenance.get("paid_unusable_cost_usd"), None]
    if own:
        costs[1] = record.provenance.get("paid_unusable_cost_usd")
    known = [c for c in costs if isinstance(c, int | float)]
    provenance = {
        **record.provenance,
        "paid_unusable": before + own,
        "paid_unusable_cost_usd": sum(known) if known else None,
    }
    return replace(record, provenance=provenance)


async def run_trial(
    slot: ModelSlot,
    trial: TrialRow,
    store: Store,
    retry: RetryPolicy,
    reporter: Reporter,
    rng: random.Random,
    room: DiskRoom | None = None,
    budget: Budget | None = None,
    paid_retries: PaidRetries | None = None,
) -> str:
    """One trial called, stored and reported; its status. What the call makes is held in
    memory until its row is written (through ``room`` when the disk may fill); what it cost,
    where the service said, replaces its estimate in ``budget``."""
    held = HeldBlobs(store)
    record = await attempt_trial(
        slot, trial, cast(Store, held), retry, reporter, rng, paid_retries, budget
    )
    if paid(slot, trial):
        record = carry_unusable(record, store.result(trial.key))
    cost = record.provenance.get("cost_usd")
    if budget is not None and isinstance(cost, int | float):
        budget.settle(slot.model.price(Capability(trial.capability), trial.payload), cost)
    await persist(store, record, held.kept, room)
    reporter.trial_finished(slot.ref.model_id, record.status, record.error)
    return record.status


def take_batch(slot: ModelSlot, queue: list[TrialRow]) -> list[TrialRow]:
    """Up to ``batch_size`` queued trials that can share one batched call."""
    first = queue.pop()
    batch = [first]
    batched = batched_method(slot, first.capability)
    if batched is None:
        return batch

    def group(trial: TrialRow) -> Hashable:
        return (trial.capability, batched.group(trial))

    wanted = group(first)
    for trial in reversed(queue[:]):
        if len(batch) == slot.model.hints.batch_size:
            break
        if group(trial) == wanted:
            queue.remove(trial)
            batch.append(trial)
    return batch


async def attempt_batch(
    slot: ModelSlot, batch: list[TrialRow], store: Store
) -> list[ResultRecord] | None:
    """One batched call for several trials, their records not yet stored; None if it failed
    as a whole (the caller then runs each trial alone, with the usual retries and outcomes)."""
    started = time.time()
    try:
        outcomes = await call_batch(slot, batch, store)
    except (StoreFullError, RunStoppedError):
        raise
    # Whatever went wrong with the batch, each trial gets its own chance in the caller.
    except Exception as fault:  # noqa: BLE001
        if pool_shut(fault):
            raise stopped_by(fault) from fault
        return None
    if len(outcomes) != len(batch):
        return None
    return [
        _record(
            slot,
            trial,
            "done",
            outcome,
            error=None,
            attempts=1,
            started=started,
            provenance={"batch_size": len(batch)},
        )
        for trial, outcome in zip(batch, outcomes, strict=True)
    ]


async def run_batch(
    slot: ModelSlot,
    batch: list[TrialRow],
    store: Store,
    reporter: Reporter,
    room: DiskRoom | None = None,
) -> bool:
    """One batched call, each result stored and reported; False if it failed as a whole."""
    held = HeldBlobs(store)
    records = await attempt_batch(slot, batch, cast(Store, held))
    if records is None:
        return False
    for record in records:
        await persist(store, record, held.kept, room)
        reporter.trial_finished(slot.ref.model_id, "done", None)
    return True


#: Seconds between two looks at trials whose paid request another live process is sending.
CLAIM_POLL_S = 0.5


def paid(slot: ModelSlot, trial: TrialRow) -> bool:
    """Whether the trial's request is one to send at most once: its model declares a price for
    it, or the model is a service rather than a backend run in this process (local backends
    declare ``blocking``; a service's price may simply be unknown to its plugin)."""
    model = slot.model
    return (
        not model.hints.blocking
        or model.price(Capability(trial.capability), trial.payload) is not None
    )


def claim_batch(
    store: Store,
    lease: Lease | None,
    slot: ModelSlot,
    batch: list[TrialRow],
    held: list[TrialRow],
    reporter: Reporter,
) -> list[TrialRow]:
    """The trials of the batch this process may send: each paid one is claimed first (the
    exactly-once gate); one another live process is sending goes to ``held``, one whose result
    another process stored meanwhile is reported and dropped."""
    if lease is None:
        return batch
    mine = []
    for trial in batch:
        if not paid(slot, trial):
            mine.append(trial)
            continue
        outcome = store.claim(trial.key, lease)
        if outcome == "claimed":
            mine.append(trial)
        elif outcome == "held":
            held.append(trial)
        else:
            stored = store.result(trial.key)
            reporter.trial_finished(slot.ref.model_id, stored.status if stored else "done", None)
    return mine

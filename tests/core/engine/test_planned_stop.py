"""A run asked for a share of its design (a batch of a sequential audit) stops on purpose:
``partial`` once that share has its outcomes, ``interrupted`` only when a stop (a cancel, a
fault) leaves some of the share unbought; finishing it again keeps why it stopped, and a resume
buys the rest."""

from __future__ import annotations

import asyncio

import pytest

from diptych.core.engine import RunOptions, finish_run, run_async, run_probe
from diptych.core.engine.finishing import final_status
from diptych.core.plugins import get_probe
from diptych.core.store import Store
from diptych.testing import ScriptedLikelihood, ScriptedParams
from tests.core.engine.test_runs import Stalling

COUNTS = {"done": 10, "refused": 0, "failed": 0, "pending": 30}


def test_trials_left_are_partial_only_when_every_trial_asked_for_has_an_outcome() -> None:
    assert final_status(COUNTS) == "interrupted"
    assert final_status(COUNTS, batch_bought=True) == "partial"
    assert final_status({**COUNTS, "pending": 0}, batch_bought=True) == "complete"
    assert final_status({**COUNTS, "pending": 0, "failed": 1}) == "incomplete"


def test_a_share_bought_in_full_is_partial_and_keeps_it_until_a_resume(
    scripted: None, store: Store
) -> None:
    model = ScriptedLikelihood(ScriptedParams(max_concurrency=1))
    options = RunOptions(concurrency=1, order_seed=3, order_share=0.25)
    run = run_probe(store, "scripted", [model], probe_params={"n": 40}, options=options)
    assert run.status == "partial" and store.status_counts(run.id) == COUNTS
    # Finished again with nothing new (a reader's `finish`, a rerun's clean-up): still partial.
    assert finish_run(store, run.id).status == "partial"
    store.set_run_status(run.id, "decided")
    assert finish_run(store, run.id).status == "decided"
    # A resume (no share) buys the rest on purpose.
    rest = ScriptedLikelihood(ScriptedParams(max_concurrency=1))
    done = run_probe(store, "scripted", [rest], probe_params={"n": 40},
                     options=RunOptions(concurrency=1, run_id=run.id))  # fmt: skip
    assert rest.calls == 30 and done.status == "complete"


def test_a_share_cut_short_by_a_cancel_is_interrupted(scripted: None, store: Store) -> None:
    model = Stalling(answered=4, max_concurrency=1)
    probe = get_probe("scripted", {"n": 40})
    options = RunOptions(concurrency=1, order_seed=3, order_share=0.25)

    async def go() -> None:
        task = asyncio.create_task(run_async(store, probe, [model], options=options))
        await model.stalled.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    run = store.list_runs()[0]
    # Four of the ten asked for were bought: the stop, not the plan, left the other six.
    assert store.status_counts(run.id)["done"] == 4
    assert run.status == "interrupted"


def _decided_then_resumed(store: Store, answered: int) -> str:
    """A quarter of a 40-trial design bought and decided by its gates, then resumed by a model
    that answers ``answered`` calls and stalls, and the resume cancelled there."""
    first = ScriptedLikelihood(ScriptedParams(max_concurrency=1))
    options = RunOptions(concurrency=1, order_seed=3, order_share=0.25)
    run = run_probe(store, "scripted", [first], probe_params={"n": 40}, options=options)
    store.set_run_status(run.id, "decided")
    model = Stalling(answered=answered, max_concurrency=1)
    probe = get_probe("scripted", {"n": 40})

    async def go() -> None:
        resume = RunOptions(concurrency=1, run_id=run.id)
        task = asyncio.create_task(run_async(store, probe, [model], options=resume))
        await model.stalled.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    return run.id


def test_a_decided_run_resumed_and_cancelled_before_buying_anything_stays_decided(
    scripted: None, store: Store
) -> None:
    run_id = _decided_then_resumed(store, answered=0)
    assert store.status_counts(run_id, live=True) == COUNTS
    assert store.get_run(run_id).status == "decided"


def test_a_decided_run_that_bought_more_before_its_cancel_is_interrupted(
    scripted: None, store: Store
) -> None:
    run_id = _decided_then_resumed(store, answered=3)
    # Three of the thirty left were bought: the rest waits for a resume, not for nothing.
    assert store.status_counts(run_id)["done"] == 13
    assert store.get_run(run_id).status == "interrupted"

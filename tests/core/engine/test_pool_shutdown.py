"""A process shutting down while a run buys (its model's thread pool closed, or every pool closed
by the interpreter's exit) stops the run as an interruption: no trial is stored as failed with
the pool's refusal, the trials not sent stay pending, and a resume asks exactly those."""

from __future__ import annotations

import concurrent.futures.thread as pools
from typing import Any

import pytest

from diptych.core.engine import run_probe
from diptych.core.engine.slots import ModelSlot
from diptych.core.errors import RunStoppedError
from diptych.core.store import Store
from diptych.testing import ScriptedLikelihood, ScriptedParams

N = 30


def blocking_model() -> ScriptedLikelihood:
    """The scripted likelihood model as a backend computed in this process: its calls go to a
    thread pool of its own, one at a time."""
    model = ScriptedLikelihood(ScriptedParams(max_concurrency=1))
    model.hints.blocking = True
    return model


class ShutsDownAfter:
    """A Reporter that shuts the pools down (``how``) once ``after`` trials have finished."""

    def __init__(self, slots: list[ModelSlot], how: str, monkeypatch: pytest.MonkeyPatch) -> None:
        self.slots, self.how, self.monkeypatch = slots, how, monkeypatch
        self.finished = 0

    def __getattr__(self, name: str) -> Any:  # every other Reporter call is ignored
        return lambda *args, **kwargs: None

    def trial_finished(self, model_id: str, status: str, error: str | None) -> None:
        self.finished += 1
        if self.finished != 3:
            return
        if self.how == "closed":
            for slot in self.slots:
                assert slot.executor is not None
                slot.executor.shutdown(wait=False)
        else:
            # What the interpreter's exit does to every pool of concurrent.futures.
            self.monkeypatch.setattr(pools, "_shutdown", True)


@pytest.mark.parametrize("how", ["closed", "interpreter"])
def test_a_pool_shut_down_mid_run_interrupts_it_and_fails_no_trial(
    scripted: None, store: Store, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    slots: list[ModelSlot] = []
    made = ModelSlot.of

    def kept(model: Any) -> ModelSlot:
        slot = made(model)
        slots.append(slot)
        return slot

    monkeypatch.setattr(ModelSlot, "of", staticmethod(kept))
    reporter = ShutsDownAfter(slots, how, monkeypatch)
    with pytest.raises(RunStoppedError, match="shutting down.*resume the run"):
        run_probe(store, "scripted", [blocking_model()], probe_params={"n": N}, reporter=reporter)
    monkeypatch.undo()
    (run,) = store.list_runs()
    counts = store.status_counts(run.id)
    assert store.get_run(run.id).status == "interrupted"
    assert counts["failed"] == 0 and counts["refused"] == 0
    assert counts["done"] >= 3 and counts["pending"] == N - counts["done"] > 0
    # The pending trials are asked again, each once, by a resume.
    model = blocking_model()
    again = run_probe(store, "scripted", [model], probe_params={"n": N})
    assert again.id == run.id and again.status == "complete"
    assert model.calls == counts["pending"]

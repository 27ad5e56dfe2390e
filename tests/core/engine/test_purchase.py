"""Buying a run in a random order fixed by a seed: a share of it at a time, the rest later in
the same order (the batches of ``audit run --until-decided``)."""

from __future__ import annotations

import hashlib

import pytest

from diptych.core.engine import RunOptions, run_probe
from diptych.core.engine.purchase import batch_size, purchase_order
from diptych.core.store import Store
from diptych.testing import ScriptedLikelihood, ScriptedParams


def test_the_order_is_the_sha256_of_seed_and_key_and_batches_end_at_the_design() -> None:
    keys = [f"k{i}" for i in range(7)]
    want = sorted(keys, key=lambda k: hashlib.sha256(f"5:{k}".encode()).hexdigest())
    assert purchase_order(keys, 5) == want
    assert purchase_order(reversed(keys), 5) == want  # type: ignore[arg-type]
    assert purchase_order(keys, 6) != want
    # Ten equal batches of 1,640 requests: 164 each, the tenth ending at the last request;
    # shares that do not divide it round up, so no request falls between two batches.
    assert [batch_size(1640, k / 10) for k in (1, 2, 10)] == [164, 328, 1640]
    assert [batch_size(7, k / 3) for k in (1, 2, 3)] == [3, 5, 7]
    assert batch_size(7, None) == 7


def _prompts(store: Store, run_id: str, seed: int) -> list[str]:
    """The run's prompts in the order ``seed`` fixes over its trial keys."""
    by_key = {t.key: t.payload["prompt"] for t in store.trials(run_id)}
    return [by_key[k] for k in purchase_order(list(by_key), seed)]


def test_a_share_buys_the_first_of_the_order_and_the_rest_follows_it(
    scripted: None, store: Store
) -> None:
    first = ScriptedLikelihood(ScriptedParams(max_concurrency=1))
    options = RunOptions(concurrency=1, order_seed=3, order_share=0.25)
    run = run_probe(store, "scripted", [first], probe_params={"n": 40}, options=options)
    order = _prompts(store, run.id, 3)
    # A quarter of 40, asked one at a time in the order: exactly its first ten requests.
    assert [h["prompt"] for h in first.history] == order[:10]
    assert store.status_counts(run.id) == {"done": 10, "refused": 0, "failed": 0, "pending": 30}
    # The same share again buys nothing; half buys the next ten, in order.
    again = ScriptedLikelihood(ScriptedParams(max_concurrency=1))
    run_probe(store, "scripted", [again], probe_params={"n": 40}, options=options)
    assert again.calls == 0
    half = ScriptedLikelihood(ScriptedParams(max_concurrency=1))
    run_probe(store, "scripted", [half], probe_params={"n": 40},
              options=RunOptions(concurrency=1, order_seed=3, order_share=0.5))  # fmt: skip
    assert [h["prompt"] for h in half.history] == order[10:20]
    # Without a share, the rest of the design in the same order.
    rest = ScriptedLikelihood(ScriptedParams(max_concurrency=1))
    done = run_probe(store, "scripted", [rest], probe_params={"n": 40},
                     options=RunOptions(concurrency=1, order_seed=3))  # fmt: skip
    assert [h["prompt"] for h in rest.history] == order[20:]
    assert done.status == "complete"


def test_a_share_needs_a_seed_and_lies_in_zero_to_one() -> None:
    with pytest.raises(ValueError, match="order_share needs order_seed"):
        RunOptions(order_share=0.5)
    with pytest.raises(ValueError, match="order_share must be in"):
        RunOptions(order_seed=1, order_share=0.0)

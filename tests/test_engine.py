from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from diptych.core.capabilities import Capability
from diptych.core.engine import RateLimiter, RetryPolicy, run_async, run_probe
from diptych.core.errors import CapabilityError, RefusalError, TransientModelError
from diptych.core.plugins import get_probe
from diptych.core.store import Store
from diptych.testing import ScriptedChat, ScriptedLikelihood, ScriptedParams

FAST = RetryPolicy(max_attempts=4, base_delay=0.001, max_delay=0.01)


def likelihood(**params: Any) -> ScriptedLikelihood:
    return ScriptedLikelihood(ScriptedParams(**params))


def test_every_trial_runs_once_and_a_rerun_calls_nothing(scripted: None, store: Store) -> None:
    model = likelihood()
    run = run_probe(store, "scripted", [model], probe_params={"n": 50})
    assert run.status == "complete"
    assert model.calls == 50
    prompts = sorted(h["prompt"] for h in model.history)
    assert prompts == sorted(f"request {i}" for i in range(50))

    again = likelihood()
    rerun = run_probe(store, "scripted", [again], probe_params={"n": 50})
    assert rerun.id == run.id and again.calls == 0
    assert store.status_counts(run.id) == {"done": 50, "refused": 0, "failed": 0, "pending": 0}


def test_results_are_shared_across_runs_by_key(scripted: None, store: Store) -> None:
    run_probe(store, "scripted", [likelihood()], probe_params={"n": 10})
    model = likelihood()
    bigger = run_probe(store, "scripted", [model], probe_params={"n": 15})
    # Only the five requests never asked before are paid for.
    assert model.calls == 5
    assert store.status_counts(bigger.id)["done"] == 15


def test_deterministic_samples_share_one_call(scripted: None, store: Store) -> None:
    model = likelihood()
    run = run_probe(store, "scripted", [model], probe_params={"n": 4, "samples": 3})
    assert run.n_trials == 12 and model.calls == 4
    chat = ScriptedChat(ScriptedParams())
    run_probe(store, "scripted", [chat], probe_params={"n": 4, "samples": 3, "capability": "chat"})
    # Chat answers depend on sampling, so every sample is its own request.
    assert chat.calls == 12


def test_transient_faults_are_retried(scripted: None, store: Store) -> None:
    model = likelihood()
    model.enqueue(TransientModelError("429", retry_after=0.0), TransientModelError("503"))
    run = run_probe(store, "scripted", [model], probe_params={"n": 3}, retry=FAST)
    assert run.status == "complete"
    assert model.calls == 5
    attempts = sorted(r.attempts for r in store.run_results(run.id).values())
    assert attempts == [1, 1, 3] or attempts == [1, 2, 2]


def test_giving_up_stores_failed_and_a_rerun_retries_it(scripted: None, store: Store) -> None:
    model = likelihood(max_concurrency=1)
    model.enqueue(*[TransientModelError("down")] * 4)
    run = run_probe(store, "scripted", [model], probe_params={"n": 2}, retry=FAST)
    assert run.status == "incomplete"
    failed = [r for r in store.run_results(run.id).values() if r.status == "failed"]
    assert len(failed) == 1 and "gave up after 4 attempts" in (failed[0].error or "")

    fixed = likelihood()
    rerun = run_probe(store, "scripted", [fixed], probe_params={"n": 2}, retry=FAST)
    assert fixed.calls == 1 and rerun.status == "complete"


def test_refusals_are_terminal_and_not_asked_again(scripted: None, store: Store) -> None:
    model = likelihood(max_concurrency=1)
    model.enqueue(RefusalError("content policy: request refused"))
    run = run_probe(store, "scripted", [model], probe_params={"n": 3}, retry=FAST)
    results = store.run_results(run.id).values()
    refused = [r for r in results if r.status == "refused"]
    assert len(refused) == 1 and refused[0].error == "content policy: request refused"
    assert run.status == "complete"
    again = likelihood()
    run_probe(store, "scripted", [again], probe_params={"n": 3})
    assert again.calls == 0


def test_a_plugin_bug_fails_one_trial_not_the_run(scripted: None, store: Store) -> None:
    model = likelihood(max_concurrency=1)
    model.enqueue(KeyError("oops"))
    run = run_probe(store, "scripted", [model], probe_params={"n": 3}, retry=FAST)
    errors = [r.error for r in store.run_results(run.id).values() if r.status == "failed"]
    assert errors == ["KeyError: 'oops'"]


def test_concurrency_is_bounded_per_model(scripted: None, store: Store) -> None:
    in_flight = 0
    peak = 0

    class Counting(ScriptedLikelihood):
        async def next_token_logprobs(self, prompt: str, candidates: Any) -> dict[str, float]:
            nonlocal in_flight, peak
            in_flight += 1
            peak = max(peak, in_flight)
            await asyncio.sleep(0.005)
            in_flight -= 1
            return {c: -1.0 for c in candidates}

    model = Counting(ScriptedParams(max_concurrency=3))
    run_probe(store, "scripted", [model], probe_params={"n": 30}, concurrency=16)
    assert peak == 3
    peak = 0
    run_probe(
        store,
        "scripted",
        [Counting(ScriptedParams(max_concurrency=8, version="2"))],
        probe_params={"n": 30},
        concurrency=2,
    )
    assert peak == 2


def test_retry_after_is_honoured() -> None:
    import random

    policy = RetryPolicy(base_delay=0.001, max_delay=0.01)
    assert policy.delay(1, 2.5, random.Random(0)) == 2.5
    delays = [policy.delay(10, None, random.Random(i)) for i in range(50)]
    assert all(0 <= d <= 0.01 for d in delays) and len(set(delays)) > 1


def test_rate_limiter_spaces_calls() -> None:
    async def go() -> float:
        limiter = RateLimiter(per_minute=6000)  # one call per 10 ms
        start = time.monotonic()
        for _ in range(11):
            await limiter.wait()
        return time.monotonic() - start

    assert asyncio.run(go()) >= 0.099


def test_capability_mismatch_is_refused_before_anything_runs(scripted: None, store: Store) -> None:
    with pytest.raises(CapabilityError, match="needs a model with text_likelihood"):
        run_probe(store, "pst-text", [ScriptedChat(ScriptedParams())])
    assert store.list_runs() == []


def test_cancellation_keeps_what_finished(scripted: None, store: Store) -> None:
    model = likelihood(latency=0.01, max_concurrency=2)
    probe = get_probe("scripted", {"n": 200})

    async def go() -> None:
        task = asyncio.create_task(run_async(store, probe, [model]))
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    run = store.list_runs()[0]
    counts = store.status_counts(run.id)
    assert run.status == "interrupted"
    assert 0 < counts["done"] < 200 and counts["done"] + counts["pending"] == 200
    finished_before = counts["done"]
    resumed_model = likelihood()
    run_probe(store, probe, [resumed_model])
    assert resumed_model.calls == 200 - finished_before
    assert Capability.TEXT_LIKELIHOOD in resumed_model.capabilities


@pytest.mark.parametrize(
    ("capability", "model_name", "method"),
    [
        ("chat", "scripted-chat", "complete"),
        ("text_likelihood", "scripted-likelihood", "next_token_logprobs"),
        ("image_generator", "scripted-images", "generate"),
    ],
)
def test_each_scripted_capability_runs_through_the_engine(
    scripted: None, store: Store, capability: str, model_name: str, method: str
) -> None:
    from diptych.core.plugins import get_model

    model = get_model(model_name)
    run = run_probe(store, "scripted", [model], probe_params={"n": 3, "capability": capability})
    assert run.status == "complete"
    assert [h["method"] for h in model.history] == [method] * 3  # type: ignore[attr-defined]
    results = list(store.run_results(run.id).values())
    if capability == "image_generator":
        # Images are stored as content-addressed PNG blobs.
        assert all(store.get_blob(r.blob or "").startswith(b"\x89PNG") for r in results)


def test_dry_run_estimate_counts_and_prices(scripted: None, store: Store) -> None:
    from diptych.core.engine import estimate
    from diptych.core.plugins import get_model

    probe = get_probe("scripted", {"n": 10, "samples": 2, "capability": "image_generator"})
    model = get_model("scripted-images", {"price_per_call": 0.04})
    before = estimate(store, probe, [model])
    assert (before.planned, before.cached, before.to_run) == (20, 0, 20)
    assert before.cost == pytest.approx(0.80) and before.unpriced == 0
    assert store.list_runs() == []  # a dry run stores nothing

    run_probe(
        store,
        get_probe("scripted", {"n": 4, "capability": "image_generator"}),
        [get_model("scripted-images", {"price_per_call": 0.04})],
    )
    after = estimate(store, probe, [model])
    # The four stored images (sample 0 of requests 0-3) are neither run nor paid for again.
    assert (after.cached, after.to_run) == (4, 16) and after.cost == pytest.approx(0.64)
    unpriced = estimate(store, probe, [get_model("scripted-images")])
    assert unpriced.unpriced == 16 and unpriced.cost == 0


def test_max_cost_stops_before_the_budget_is_exceeded(scripted: None, store: Store) -> None:
    from diptych.core.plugins import get_model

    model = get_model("scripted-images", {"price_per_call": 0.04, "max_concurrency": 4})
    probe = get_probe("scripted", {"n": 20, "capability": "image_generator"})
    run = run_probe(store, probe, [model], max_cost=0.30)
    counts = store.status_counts(run.id)
    # $0.30 buys 7 images at $0.04 (0.28); the 8th would exceed it.
    assert model.calls == 7 and counts["done"] == 7 and counts["pending"] == 13  # type: ignore[attr-defined]
    assert run.status == "over-budget"
    more = get_model("scripted-images", {"price_per_call": 0.04})
    finished = run_probe(store, probe, [more], max_cost=1.0)
    assert more.calls == 13 and finished.status == "complete"  # type: ignore[attr-defined]


def test_image_trials_are_batched_with_a_seed_each(scripted: None, store: Store) -> None:
    from diptych.core.plugins import get_model

    model = get_model("scripted-images", {"batch_size": 4, "max_concurrency": 1})
    run = run_probe(
        store, get_probe("scripted", {"n": 10, "capability": "image_generator"}), [model]
    )
    calls = [h["method"] for h in model.history]  # type: ignore[attr-defined]
    assert calls == ["generate_batch"] * 3  # 4 + 4 + 2
    results = store.run_results(run.id).values()
    assert len(results) == 10 and all(r.status == "done" for r in results)
    assert sorted(r.provenance["batch_size"] for r in results) == [2, 2] + [4] * 8


def test_vision_chat_trials_are_batched_with_their_own_sampling(
    scripted: None, store: Store
) -> None:
    from PIL import Image

    from diptych.core.capabilities import Sampling
    from diptych.testing import ScriptedVisionChat

    class Batching(ScriptedVisionChat):
        async def ask_batch(self, requests: Any, sampling: Any) -> list[str]:
            self.history.append({"method": "ask_batch", "n": len(requests)})
            return [
                f"{text} seed={s.seed}" for (_, text), s in zip(requests, sampling, strict=True)
            ]

    image = Image.new("RGB", (4, 4))
    import io

    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    sha = store.put_blob(buffer.getvalue())

    model = Batching(ScriptedParams(batch_size=3, max_concurrency=1))
    probe = get_probe("scripted", {"n": 5, "capability": "vision_chat"})
    # The scripted probe's vision payload carries only a prompt: give each trial an image.
    specs = [
        type(s)(
            s.capability,
            {
                "images": [{"blob": sha}],
                "text": s.payload["prompt"],
                "sampling": Sampling(seed=i).model_dump(),
            },
            s.sample,
            s.meta,
        )
        for i, s in enumerate(probe.plan())
    ]
    probe.plan = lambda: iter(specs)  # type: ignore[method-assign]
    run = run_probe(store, probe, [model])
    assert [h["n"] for h in model.history] == [3, 2]
    texts = sorted(r.output["text"] for r in store.run_results(run.id).values())  # type: ignore[index]
    assert texts == [f"request {i} seed={i}" for i in range(5)]

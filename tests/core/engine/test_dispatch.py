"""Dispatch: one row per capability, each run through the engine, batched where offered."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Sequence
from typing import Any

import pytest

from diptych.core.capabilities import Capability, LikelihoodRequest, Model, ModelHints, Sampling
from diptych.core.engine import BATCH_METHODS, DISPATCH, ModelSlot, call_trial, run_probe
from diptych.core.errors import PermanentModelError
from diptych.core.plugins import get_model, get_probe
from diptych.core.store import Store, TrialRow
from diptych.testing import ScriptedLikelihood, ScriptedParams, ScriptedVisionChat


def test_every_capability_has_a_row() -> None:
    assert set(DISPATCH) == set(Capability)
    # The batched methods are the table's, named as the capability protocols name them.
    assert BATCH_METHODS == {
        Capability.TEXT_LIKELIHOOD: "next_token_logprobs_batch",
        Capability.IMAGE_GENERATOR: "generate_batch",
        Capability.VISION_CHAT: "ask_batch",
    }


class PiecewiseLikelihood(Model):
    """A likelihood model that takes whole requests: it records each call's requests."""

    name = "piecewise-likelihood"
    capabilities = frozenset({Capability.TEXT_LIKELIHOOD})

    def __init__(self, batch_size: int) -> None:
        super().__init__()
        self.hints = ModelHints(batch_size=batch_size, max_concurrency=1)
        self.calls: list[list[LikelihoodRequest]] = []

    async def next_token_logprobs(self, prompt: str, candidates: Sequence[str]) -> dict[str, float]:
        raise AssertionError("a model with the batched method is asked through it")

    async def next_token_logprobs_batch(
        self, requests: Sequence[LikelihoodRequest]
    ) -> list[dict[str, float]]:
        self.calls.append(list(requests))
        return [
            {c: -float(len(r.segments[-1]) + i) for i, c in enumerate(r.candidates)}
            for r in requests
        ]


@pytest.mark.parametrize("batch_size", [1, 4])
def test_likelihood_trials_reach_the_model_with_their_pieces(store: Store, batch_size: int) -> None:
    model = PiecewiseLikelihood(batch_size)
    subset = {"masculine": ["carpenter"], "feminine": ["nurse"]}
    run = run_probe(store, "pst-text", [model], probe_params=subset)
    assert run.status == "complete"
    # 4 paired prompts and 2 single ones; one trial alone goes the batched road too.
    assert [len(c) for c in model.calls] == ([4, 2] if batch_size == 4 else [1] * 6)
    first = model.calls[0][0]
    assert first.segments[-1] == "carpenter on the left says that"
    assert first.siblings == (first.segments[-1], "nurse on the right says that")
    outputs = [r.output for r in store.run_results(run.id).values()]
    assert {"logprobs": {" he": -31.0, " she": -32.0}} in outputs


def test_a_trial_of_an_unknown_capability_fails_permanently(store: Store) -> None:
    slot = ModelSlot.of(ScriptedLikelihood(ScriptedParams()))
    trial = TrialRow(
        run_id="r", idx=0, model_id="m", key="k", capability="telepathy", sample=0,
        payload={}, meta={},
    )  # fmt: skip
    with pytest.raises(PermanentModelError, match="no dispatch for capability telepathy"):
        asyncio.run(call_trial(slot, trial, store))


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
    model = get_model(model_name)
    run = run_probe(store, "scripted", [model], probe_params={"n": 3, "capability": capability})
    assert run.status == "complete"
    assert [h["method"] for h in model.history] == [method] * 3  # type: ignore[attr-defined]
    results = list(store.run_results(run.id).values())
    if capability == "image_generator":
        # Images are stored as content-addressed PNG blobs.
        assert all(store.get_blob(r.blob or "").startswith(b"\x89PNG") for r in results)


def test_image_trials_are_batched_with_a_seed_each(scripted: None, store: Store) -> None:
    model = get_model("scripted-images", {"batch_size": 4, "max_concurrency": 1})
    run = run_probe(
        store, get_probe("scripted", {"n": 10, "capability": "image_generator"}), [model]
    )
    calls = [h["method"] for h in model.history]  # type: ignore[attr-defined]
    assert calls == ["generate_batch"] * 3  # 4 + 4 + 2
    results = store.run_results(run.id).values()
    assert len(results) == 10 and all(r.status == "done" for r in results)
    assert sorted(r.provenance["batch_size"] for r in results) == [2, 2] + [4] * 8


def png_bytes() -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (4, 4)).save(buffer, format="PNG")
    return buffer.getvalue()


def test_vision_chat_trials_are_batched_with_their_own_sampling(
    scripted: None, store: Store
) -> None:
    class Batching(ScriptedVisionChat):
        async def ask_batch(self, requests: Any, sampling: Any) -> list[str]:
            self.history.append({"method": "ask_batch", "n": len(requests)})
            return [
                f"{text} seed={s.seed}" for (_, text), s in zip(requests, sampling, strict=True)
            ]

    sha = store.put_blob(png_bytes())

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


def test_a_model_without_the_batched_method_is_called_one_trial_at_a_time(
    scripted: None, store: Store
) -> None:
    # batch_size > 1 but no ask_batch: the table's batched row is not used.
    model = ScriptedVisionChat(ScriptedParams(batch_size=3, max_concurrency=1))
    sha = store.put_blob(png_bytes())
    probe = get_probe("scripted", {"n": 4, "capability": "vision_chat"})
    specs = [
        type(s)(
            s.capability,
            {"images": [{"blob": sha}], "text": s.payload["prompt"]},
            s.sample,
            s.meta,
        )
        for s in probe.plan()
    ]
    probe.plan = lambda: iter(specs)  # type: ignore[method-assign]
    run = run_probe(store, probe, [model])
    assert run.status == "complete"
    assert [h["method"] for h in model.history] == ["ask"] * 4

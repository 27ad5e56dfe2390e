"""How the engine calls a model for a trial: one row per capability.

Each :class:`Dispatch` row says how to ask a model with that capability for one trial and, where
the capability has a batched method, how to ask for several at once. Adding a capability to the
engine is adding a row to :data:`DISPATCH`.

Every call gives an :data:`Outcome` per trial: the output stored with the result, the sha of the
blob holding its main artefact (an image) or None, and provenance to add to the model's own.
"""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from diptych.core.capabilities import Capability, LikelihoodRequest, Message, Sampling
from diptych.core.engine.slots import ModelSlot
from diptych.core.errors import PermanentModelError
from diptych.core.store import Store, TrialRow

Outcome = tuple[dict[str, Any], str | None, dict[str, Any]]
CallOne = Callable[[ModelSlot, dict[str, Any], Store], Awaitable[Outcome]]
CallMany = Callable[[ModelSlot, Sequence[TrialRow], Store], Awaitable[list[Outcome]]]

#: The method of a likelihood model that takes whole requests, with their planned split.
LIKELIHOOD_BATCH = "next_token_logprobs_batch"


def _png(image: Any) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _load_image(ref: dict[str, Any], store: Store) -> Any:
    from PIL import Image

    if "blob" in ref:
        return Image.open(io.BytesIO(store.get_blob(ref["blob"]))).convert("RGB")
    return Image.open(ref["path"]).convert("RGB")


def _sampling(payload: dict[str, Any]) -> Sampling:
    return Sampling.model_validate(payload.get("sampling", {}))


# --- one trial per call -----------------------------------------------------------------------


async def _complete(slot: ModelSlot, p: dict[str, Any], store: Store) -> Outcome:
    messages = [Message.model_validate(m) for m in p["messages"]]
    text = await slot.call("complete", messages, _sampling(p), p.get("schema"))
    return {"text": text}, None, {}


def _likelihood_request(payload: dict[str, Any]) -> LikelihoodRequest:
    try:
        return LikelihoodRequest.from_payload(payload)
    except ValueError as error:
        raise PermanentModelError(str(error)) from None


def _logprobs_output(logprobs: Mapping[str, float]) -> dict[str, Any]:
    return {"logprobs": {c: float(v) for c, v in logprobs.items()}}


async def _next_token_logprobs(slot: ModelSlot, p: dict[str, Any], store: Store) -> Outcome:
    request = _likelihood_request(p)
    # A model that honours the planned split answers one trial on the same road as a batch of
    # them, so that a trial retried alone stores the value it would have had in its batch.
    if hasattr(slot.model, LIKELIHOOD_BATCH):
        (logprobs,) = await slot.call(LIKELIHOOD_BATCH, [request])
    else:
        logprobs = await slot.call("next_token_logprobs", request.prompt, list(request.candidates))
    return _logprobs_output(logprobs), None, {}


async def _generate(slot: ModelSlot, p: dict[str, Any], store: Store) -> Outcome:
    images = await slot.call("generate", p["prompt"], 1, p.get("seed"), p.get("size"))
    if not images:
        raise PermanentModelError("the model returned no image")
    blobs = [store.put_blob(_png(g.image)) for g in images]
    return {"blobs": blobs}, blobs[0], dict(images[0].provenance)


async def _ask(slot: ModelSlot, p: dict[str, Any], store: Store) -> Outcome:
    pictures = [_load_image(ref, store) for ref in p["images"]]
    text = await slot.call("ask", pictures, p["text"], _sampling(p))
    return {"text": text}, None, {}


async def _embed(slot: ModelSlot, p: dict[str, Any], store: Store) -> Outcome:
    if "texts" in p:
        vectors = await slot.call("embed_texts", list(p["texts"]))
    else:
        vectors = await slot.call("embed_images", [_load_image(r, store) for r in p["images"]])
    return {"embeddings": [list(map(float, v)) for v in vectors]}, None, {}


async def _annotate(slot: ModelSlot, p: dict[str, Any], store: Store) -> Outcome:
    labels = await slot.call("annotate", _load_image(p["image"], store), list(p["subjects"]))
    stored = [
        {
            "position": x.position,
            "label": x.label,
            "confidence": x.confidence,
            "detail": x.detail,
            "dimension": x.dimension,
        }
        for x in labels
    ]
    return {"labels": stored}, None, {}


# --- several trials per call ------------------------------------------------------------------


async def _generate_batch(
    slot: ModelSlot, batch: Sequence[TrialRow], store: Store
) -> list[Outcome]:
    images = await slot.call(
        "generate_batch",
        [t.payload["prompt"] for t in batch],
        [t.payload.get("seed") for t in batch],
        batch[0].payload.get("size"),
    )
    out: list[Outcome] = []
    for image in images:
        blob = store.put_blob(_png(image.image))
        out.append(({"blobs": [blob]}, blob, dict(image.provenance)))
    return out


async def _ask_batch(slot: ModelSlot, batch: Sequence[TrialRow], store: Store) -> list[Outcome]:
    requests = [
        ([_load_image(ref, store) for ref in t.payload["images"]], t.payload["text"]) for t in batch
    ]
    samplings = [_sampling(t.payload) for t in batch]
    answers = await slot.call("ask_batch", requests, samplings)
    # The model's provenance describes the whole batch; each answer records its own seed.
    return [
        ({"text": text}, None, {"seeds": [s.seed]} if s.seed is not None else {})
        for text, s in zip(answers, samplings, strict=True)
    ]


async def _next_token_logprobs_batch(
    slot: ModelSlot, batch: Sequence[TrialRow], store: Store
) -> list[Outcome]:
    requests = [_likelihood_request(t.payload) for t in batch]
    answers = await slot.call(LIKELIHOOD_BATCH, requests)
    return [(_logprobs_output(logprobs), None, {}) for logprobs in answers]


def _same_size(trial: TrialRow) -> Hashable:
    # One batched diffusion call renders every image at one size.
    return trial.payload.get("size")


def _any(trial: TrialRow) -> Hashable:
    return None


# --- the table --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Batched:
    """A capability's batched method: its name on the model, how to call it, and which trials
    may share one call (those whose ``group`` is equal)."""

    method: str
    call: CallMany
    group: Callable[[TrialRow], Hashable] = _any


@dataclass(frozen=True)
class Dispatch:
    """How the engine calls a model with one capability."""

    call: CallOne
    batched: Batched | None = None


DISPATCH: Mapping[Capability, Dispatch] = {
    Capability.CHAT: Dispatch(_complete),
    Capability.TEXT_LIKELIHOOD: Dispatch(
        _next_token_logprobs, Batched(LIKELIHOOD_BATCH, _next_token_logprobs_batch)
    ),
    Capability.IMAGE_GENERATOR: Dispatch(
        _generate, Batched("generate_batch", _generate_batch, _same_size)
    ),
    Capability.VISION_CHAT: Dispatch(_ask, Batched("ask_batch", _ask_batch)),
    Capability.IMAGE_TEXT_ENCODER: Dispatch(_embed),
    Capability.PERSON_ANNOTATOR: Dispatch(_annotate),
}

#: The batched method a model may offer per capability (used when ``hints.batch_size`` > 1).
BATCH_METHODS: Mapping[Capability, str] = {
    cap: row.batched.method for cap, row in DISPATCH.items() if row.batched is not None
}


def dispatch_of(capability: str) -> Dispatch:
    try:
        return DISPATCH[Capability(capability)]
    except (KeyError, ValueError):
        raise PermanentModelError(f"no dispatch for capability {capability}") from None


async def call_trial(slot: ModelSlot, trial: TrialRow, store: Store) -> Outcome:
    """Ask the model for one trial; return (output, blob sha or None, extra provenance)."""
    return await dispatch_of(trial.capability).call(slot, trial.payload, store)


def batched_method(slot: ModelSlot, capability: str) -> Batched | None:
    """The batched method to use for this model's trials of ``capability``, or None when the
    capability has none, the model does not offer it, or its hints ask for one at a time."""
    batched = dispatch_of(capability).batched
    if batched is None or slot.model.hints.batch_size <= 1:
        return None
    return batched if hasattr(slot.model, batched.method) else None


async def call_batch(slot: ModelSlot, batch: Sequence[TrialRow], store: Store) -> list[Outcome]:
    """One batched call; per trial the same (output, blob, provenance) as :func:`call_trial`."""
    batched = dispatch_of(batch[0].capability).batched
    if batched is None:
        raise PermanentModelError(f"no batched call for capability {batch[0].capability}")
    return await batched.call(slot, batch, store)

"""The base of the vision-chat plugins built on ``transformers`` (``llava``, ``blip-vqa``):
loading, batching, sampling and provenance.

Its parts are shared private modules: :mod:`._placement` (device and dtype),
:mod:`._checkpoint` (local directories and cached hub ids, and their versions),
:mod:`._seeded_sampling` (per-request seeds in a batch) and :mod:`._transformers_loading`.

Nothing here imports torch or transformers at module level: listing plugins and computing
trial keys must stay cheap, and the core's import-hygiene test loads every plugin module.
"""

from __future__ import annotations

import copy
from collections.abc import Hashable, Sequence
from typing import Any, ClassVar

from pydantic import Field

from diptych.core.capabilities import Capability, Model, Sampling
from diptych.core.errors import PermanentModelError
from diptych.plugins.models._checkpoint import cache_dir_param, revision_param
from diptych.plugins.models._placement import Device, DType, device_param, dtype_param
from diptych.plugins.models._seeded_sampling import MAX_SEED, SeededSampling, fresh_seed
from diptych.plugins.models._transformers_loading import (
    CheckpointModel,
    load_checkpoint,
    non_sampling_settings,
)

#: One vision-chat request: the images and the text asked about them.
Request = tuple[list[Any], str]


class TransformersVisionChat(CheckpointModel):
    """Base of vision-chat plugins on transformers: subclasses say how to load and prompt.

    Loading reads the checkpoint straight into the resolved device and dtype. ``ask_batch``
    groups requests that can share a forward pass (:meth:`_group_key`), runs up to
    ``batch_size`` of them at once, and gives each its own sampling settings and seed; under
    greedy decoding a request's answer is the one it gets alone, and under sampling it is the
    one its seed gives alone (up to floating-point rounding between batch shapes). Generation
    is synchronous: ``hints.blocking`` has the engine call it from a worker thread, one call at
    a time; a lock guards the model for callers that bypass the engine.
    """

    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.VISION_CHAT})
    #: Batch size and where the weights are read from change speed, not answers (see the
    #: class docstring). ``device`` and ``dtype`` stay in the key as the user wrote them;
    #: what ``auto`` became on this machine is in every result's provenance.
    operational_params: ClassVar[frozenset[str]] = frozenset(
        {"batch_size", "allow_download", "cache_dir"}
    )
    #: The pip extra that installs what the plugin needs.
    extra: ClassVar[str] = "transformers"

    class Params(Model.Params):
        model: str = Field(
            description="Hugging Face hub id (read from the local cache) or a "
            "model directory written by save_pretrained."
        )
        revision: str | None = revision_param()
        device: Device = device_param()
        dtype: DType = dtype_param()
        batch_size: int = Field(default=8, ge=1, description="Requests per forward pass.")
        allow_download: bool = Field(
            default=False, description="Let transformers download a hub model that is not cached."
        )
        cache_dir: str | None = cache_dir_param()

    def __init__(self, params: TransformersVisionChat.Params | None = None) -> None:
        super().__init__(params)
        assert isinstance(self.params, TransformersVisionChat.Params)
        self._params: TransformersVisionChat.Params = self.params
        self._last_seeds: list[int | None] = []

    # --- identity -------------------------------------------------------------------------

    def provenance(self) -> dict[str, Any]:
        facts = super().provenance()
        if self._last_seeds:
            # The engine calls a blocking model one request at a time and reads provenance
            # right after, so these are the seeds of the answer stored with them -- including
            # one drawn fresh for a request that named none, which can then be replayed.
            facts["seeds"] = list(self._last_seeds)
        return facts

    # --- what subclasses provide ----------------------------------------------------------

    def _load_parts(
        self, transformers: Any, source: str, options: dict[str, Any], weights: dict[str, Any]
    ) -> tuple[Any, Any]:
        """(processor, model) read from ``source``: ``options`` go to every from_pretrained,
        ``weights`` (dtype, device map) to the model's."""
        raise NotImplementedError

    def _encode(self, processor: Any, requests: Sequence[Request]) -> Any:
        """The model inputs (a BatchFeature of torch tensors) for a batch of requests."""
        raise NotImplementedError

    def _new_tokens(self, output: Any, inputs: Any) -> Any:
        """The generated tokens of ``generate``'s output, one row per request."""
        raise NotImplementedError

    def _room(self, inputs: Any) -> int:
        """How many tokens the model can still generate after these inputs."""
        raise NotImplementedError

    def _stop_ids(self) -> set[int]:
        """Token ids that end an answer."""
        raise NotImplementedError

    def _generation_options(self, config: Any) -> dict[str, Any]:
        """``generate``'s arguments for a prepared generation config (default: just it)."""
        return {"generation_config": config}

    def _check(self, request: Request) -> None:
        """Raise PermanentModelError for a request the model cannot answer."""

    def _group_key(self, processor: Any, request: Request) -> Hashable:
        """Requests with equal keys may share a forward pass (default: all may)."""
        return None

    # --- loading --------------------------------------------------------------------------

    def _loaded(self) -> Any:
        """The model, loaded on first use; call with ``self._lock`` held."""
        if self._model is not None:
            return self._model
        loaded = load_checkpoint(
            self._checkpoint, self._params, self._load_parts, owner=self.name, extra=self.extra
        )
        self._torch, self._processor, self._model = loaded.torch, loaded.processor, loaded.model
        self._device, self._dtype = loaded.device, loaded.dtype
        self._facts = self._describe(
            loaded.model, loaded.processor, loaded.transformers, loaded.torch
        )
        return loaded.model

    def _describe(
        self, model: Any, processor: Any, transformers: Any, torch: Any
    ) -> dict[str, Any]:
        """What every answer of this model shares, recorded with each of them."""
        return {
            **self._source_facts(model),
            "processor": type(processor).__name__,
            "device": self._device,
            "dtype": self._dtype,
            # What the checkpoint's own generation config adds (repetition penalty ...):
            # it applies to every answer; the sampling settings themselves are the trial's.
            "generation_config": non_sampling_settings(model.generation_config),
            "transformers": str(transformers.__version__),
            "torch": str(torch.__version__),
        }

    # --- answering ------------------------------------------------------------------------

    async def ask(self, images: Sequence[Any], text: str, sampling: Sampling) -> str:
        """The model's answer to ``text`` about ``images``."""
        [answer] = self._answer([(list(images), text)], [sampling])
        return answer

    async def ask_batch(
        self, requests: Sequence[tuple[Sequence[Any], str]], sampling: Sampling | Sequence[Sampling]
    ) -> list[str]:
        """One answer per (images, text) request, in order, ``batch_size`` per forward pass.

        ``sampling`` is shared by every request or given per request (so that the samples of
        one prompt, which differ only in seed, can share a batch). Each answer equals what
        ``ask`` gives for that request and sampling alone.
        """
        rows: list[Request] = [(list(images), text) for images, text in requests]
        if isinstance(sampling, Sampling):
            samplings = [sampling] * len(rows)
        else:
            samplings = list(sampling)
            if len(samplings) != len(rows):
                raise PermanentModelError(
                    f"ask_batch got {len(rows)} requests and {len(samplings)} sampling "
                    "settings; give one per request, or one for all"
                )
        return self._answer(rows, samplings)

    def _answer(self, requests: list[Request], samplings: list[Sampling]) -> list[str]:
        for request in requests:
            self._check(request)
        seeds: list[int | None] = []
        for s in samplings:
            if s.temperature <= 0:
                seeds.append(None)  # greedy: no randomness to seed
            elif s.seed is None:
                seeds.append(fresh_seed())
            elif 0 <= s.seed <= MAX_SEED:
                seeds.append(s.seed)
            else:
                raise PermanentModelError(f"seed {s.seed} is outside 0 .. 2**64-1")
        answers = [""] * len(requests)
        with self._lock:
            self._loaded()
            processor = self._processor
            groups: dict[Hashable, list[int]] = {}
            for index, request in enumerate(requests):
                groups.setdefault(self._group_key(processor, request), []).append(index)
            size = self._params.batch_size
            for members in groups.values():
                for start in range(0, len(members), size):
                    chunk = members[start : start + size]
                    texts = self._generate(
                        [requests[i] for i in chunk],
                        [samplings[i] for i in chunk],
                        [seeds[i] for i in chunk],
                    )
                    for i, text in zip(chunk, texts, strict=True):
                        answers[i] = text
            self._last_seeds = seeds
        return answers

    def _generate(
        self, requests: list[Request], samplings: list[Sampling], seeds: list[int | None]
    ) -> list[str]:
        """One forward pass over a chunk of requests; call with ``self._lock`` held."""
        torch, model, processor = self._torch, self._model, self._processor
        try:
            inputs = self._encode(processor, requests)
        # The processor's complaints (an image it cannot read, image tokens that do not
        # match the images) are about this request, which can never succeed as sent.
        except (ValueError, TypeError, OSError) as exc:
            raise PermanentModelError(f"{self.name} cannot take this request: {exc}") from exc
        inputs = _placed(torch, inputs, self._device, getattr(torch, self._dtype))
        room = self._room(inputs)
        if room < 1:
            raise PermanentModelError(
                f"the request fills {self.name}'s whole context; shorten the text"
            )
        limit = min(max(s.max_tokens for s in samplings), room)
        config = copy.deepcopy(model.generation_config)
        # Sampling is SeededSampling's job (see there); generate itself decodes greedily.
        config.do_sample = False
        config.num_beams = 1
        for key in ("temperature", "top_p", "top_k", "min_p", "typical_p"):
            if hasattr(config, key):
                setattr(config, key, None)
        config.max_new_tokens = limit
        if config.pad_token_id is None:
            config.pad_token_id = _pad_id(processor)
        kwargs = self._generation_options(config)
        if any(seed is not None for seed in seeds):
            from transformers import LogitsProcessorList

            rows = [
                (s.temperature, s.top_p, seed) for s, seed in zip(samplings, seeds, strict=True)
            ]
            kwargs["logits_processor"] = LogitsProcessorList([SeededSampling(torch, rows)])
        try:
            with torch.inference_mode():
                output = model.generate(**inputs, **kwargs)
        except torch.OutOfMemoryError as exc:
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
            raise PermanentModelError(
                f"out of {self._device} memory answering {len(requests)} request(s) at once: "
                "lower batch_size, or the images' size, or max_tokens"
            ) from exc
        new = self._new_tokens(output, inputs).tolist()
        stops = self._stop_ids()
        answers: list[str] = []
        for tokens, sampling in zip(new, samplings, strict=True):
            # A row may run on past its own limit or end (its batch-mates kept generating):
            # cut it where it would have stopped alone.
            tokens = tokens[: sampling.max_tokens]
            for position, token in enumerate(tokens):
                if token in stops:
                    tokens = tokens[:position]
                    break
            answers.append(processor.decode(tokens, skip_special_tokens=True).strip())
        return answers


def _placed(torch: Any, inputs: Any, device: str, dtype: Any) -> dict[str, Any]:
    """The processor's tensors on the model's device; floating ones (pixel values) in its
    dtype, which the processor leaves at float32 whatever the model's."""
    placed: dict[str, Any] = {}
    for key, value in inputs.items():
        if isinstance(value, torch.Tensor):
            if torch.is_floating_point(value):
                value = value.to(device=device, dtype=dtype)
            else:
                value = value.to(device=device)
        placed[key] = value
    return placed


def _pad_id(processor: Any) -> int | None:
    tokenizer = getattr(processor, "tokenizer", processor)
    pad = getattr(tokenizer, "pad_token_id", None)
    return pad if pad is not None else getattr(tokenizer, "eos_token_id", None)

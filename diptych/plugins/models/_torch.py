"""What the in-process torch model plugins share (diffusers, llava, blip-vqa).

* :func:`resolve_placement` -- the device and dtype to run on, decided before any weights
  are read, so that half-precision weights are loaded as such rather than converted.
* Hub checkpoints: :class:`Checkpoint` names the weights a ``model`` parameter points at (a
  local ``save_pretrained`` directory, or a hub id read from the local cache only unless
  downloads are allowed) and gives them a version that changes when they do.
* :class:`SeededSampling` -- sampling for ``transformers``' ``generate`` in which every row of
  a batch draws from its own CPU generator, so that an answer depends on its request and seed
  alone: not on its batch-mates, nor on the device.
* :class:`TransformersVisionChat` -- the base of the vision-chat plugins built on
  ``transformers`` (``llava``, ``blip-vqa``): loading, batching, sampling and provenance.

Nothing here imports torch or transformers at module level: listing plugins and computing
trial keys must stay cheap, and the core's import-hygiene test loads every plugin module.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import importlib.metadata
import importlib.util
import math
import re
import secrets
import threading
from collections.abc import Hashable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field

from diptych.core.capabilities import Capability, Model, ModelHints, Sampling
from diptych.core.errors import (
    MissingDependencyError,
    ModelLoadError,
    ParameterError,
    PermanentModelError,
)

Device = Literal["auto", "cuda", "mps", "cpu"]
DType = Literal["auto", "float16", "bfloat16", "float32"]

#: A full git commit id, as the hub cache names its snapshot folders.
COMMIT = re.compile(r"^[0-9a-f]{40}$")

_MIB = 1 << 20
_MAX_SEED = 2**64 - 1  # torch.Generator.manual_seed takes an unsigned 64-bit seed
_WEIGHT_SUFFIXES = frozenset({".safetensors", ".bin", ".ckpt", ".pt", ".pth", ".msgpack"})
#: Files hashed whole: configs, vocabularies, tokenizers -- and chat templates, which decide
#: the prompt a chat model actually sees.
_CONFIG_SUFFIXES = frozenset({".json", ".txt", ".model", ".jinja"})


# --- placement ------------------------------------------------------------------------------


def resolve_placement(device: str, dtype: str, *, cuda: bool, mps: bool) -> tuple[str, str]:
    """The device and dtype to run on, given what was asked and what torch sees.

    ``auto`` prefers CUDA, then MPS, then the CPU. float16 is the auto dtype on CUDA only: it
    halves memory there, while on MPS and the CPU it is slow or imprecise in places.
    """
    if device == "auto":
        device = "cuda" if cuda else "mps" if mps else "cpu"
    elif device == "cuda" and not cuda:
        raise ModelLoadError(
            "device=cuda was asked for but torch sees no CUDA GPU (a CPU-only torch build, or "
            "no driver); use device=auto or device=cpu"
        )
    elif device == "mps" and not mps:
        raise ModelLoadError(
            "device=mps was asked for but torch sees no Apple GPU; use device=auto or device=cpu"
        )
    if dtype == "auto":
        dtype = "float16" if device == "cuda" else "float32"
    return device, dtype


def placement_for(torch: Any, device: str, dtype: str) -> tuple[str, str]:
    """:func:`resolve_placement` with what this process's torch sees."""
    return resolve_placement(
        device,
        dtype,
        cuda=bool(torch.cuda.is_available()),
        mps=bool(torch.backends.mps.is_available()),
    )


def import_torch(owner: str) -> Any:
    """The torch module, or a ModelLoadError that says how to install it."""
    try:
        import torch
    except ImportError as exc:
        # torch is not in any extra on purpose (its CPU and CUDA builds differ), so the
        # usual "pip install 'diptych[...]'" advice would be wrong here.
        raise ModelLoadError(
            f"The {owner} model needs PyTorch: pip install torch (the build for your GPU is "
            "listed at https://pytorch.org)"
        ) from exc
    return torch


def package_version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def release(version: str) -> tuple[int, ...]:
    """``(major, minor)`` of a version string such as ``4.56.0.dev0``."""
    return tuple(int(x) for x in re.findall(r"\d+", version)[:2])


# --- checkpoints ----------------------------------------------------------------------------


def directory_fingerprint(directory: Path) -> str:
    """A short hash of what decides a local model's answers.

    Every config, vocabulary and template file is hashed whole; each weight file by its size
    and first MiB, which holds its header and the start of its tensors -- enough to tell
    fine-tunes apart without reading gigabytes on every start. Files up to one folder deep
    count (a diffusers pipeline keeps its components in folders); hidden ones do not.
    """
    digest = hashlib.sha256()
    files = sorted(
        f
        for f in [*directory.glob("*"), *directory.glob("*/*")]
        if f.is_file() and not any(part.startswith(".") for part in f.relative_to(directory).parts)
    )
    for file in files:
        relative = file.relative_to(directory).as_posix()
        if file.suffix in _CONFIG_SUFFIXES:
            digest.update(f"{relative}\0".encode())
            digest.update(file.read_bytes())
        elif file.suffix in _WEIGHT_SUFFIXES:
            with file.open("rb") as handle:
                head = handle.read(_MIB)
            digest.update(f"{relative}\0{file.stat().st_size}\0".encode())
            digest.update(head)
    return digest.hexdigest()[:16]


def commit_of(snapshot: Path | None) -> str | None:
    # The hub cache keeps each revision under snapshots/<commit>/.
    if snapshot is not None and COMMIT.match(snapshot.name):
        return snapshot.name
    return None


def download_command(model: str, revision: str | None) -> str:
    # huggingface_hub 1.0 replaced the huggingface-cli command with hf.
    major = package_version("huggingface_hub").split(".")[0]
    cli = "hf" if major.isdigit() and int(major) >= 1 else "huggingface-cli"
    suffix = f" --revision {revision}" if revision else ""
    return f"{cli} download {model}{suffix}"


class Checkpoint:
    """The weights a ``model`` parameter names: a local directory or a cached hub id.

    Resolved when a plugin is built (cheaply: a few ``stat`` calls and, for a local directory,
    hashing its configs and the heads of its weight files), so that the version -- part of
    every trial key -- is known before anything is loaded.
    """

    def __init__(
        self,
        model: str,
        *,
        revision: str | None,
        cache_dir: str | None,
        marker: str,
        owner: str,
    ) -> None:
        self.model = model
        self.revision = revision
        self.cache_dir = cache_dir
        self.owner = owner
        self.local_dir = self._local_dir(model, marker)
        if self.local_dir is not None and revision is not None:
            raise ParameterError(
                f"model '{owner}': revision applies to hub ids, but {model!r} is a local "
                "directory; drop revision"
            )
        # The cached snapshot a hub id resolves to now (None when not cached): its commit
        # pins the version, and load() refuses early and clearly when it is missing.
        self.snapshot = None if self.local_dir is not None else self._cached_snapshot(marker)

    def _local_dir(self, model: str, marker: str) -> Path | None:
        return local_model_dir(model, marker, self.owner)

    def _cached_snapshot(self, marker: str) -> Path | None:
        try:
            from huggingface_hub import try_to_load_from_cache
        except ImportError:  # transformers (and with it huggingface_hub) absent: load() says so
            return None
        try:
            found = try_to_load_from_cache(
                self.model, marker, cache_dir=self.cache_dir, revision=self.revision
            )
        except ValueError as exc:  # huggingface_hub's HFValidationError: not a repo id
            raise ModelLoadError(
                f"The {self.owner} model {self.model!r} is neither a model directory nor a hub "
                "id (owner/name)"
            ) from exc
        return Path(found).parent if isinstance(found, str) else None

    @property
    def source(self) -> str:
        """What to hand ``from_pretrained``."""
        return str(self.local_dir) if self.local_dir is not None else self.model

    @property
    def commit(self) -> str | None:
        return commit_of(self.snapshot)

    def version(self) -> str:
        if self.local_dir is not None:
            return f"{self.local_dir.name}:{directory_fingerprint(self.local_dir)}"
        commit = self.commit
        revision = self.revision or "main"
        if commit is None and COMMIT.match(revision):
            commit = revision
        # A branch name alone ("main") is what a model had when it was cached; once cached,
        # the commit it resolved to says exactly which weights answered.
        return f"{self.model}@{commit or revision}"

    def check_available(self, allow_download: bool) -> None:
        """Refuse, in one line and without touching the network, weights that are not here."""
        if self.local_dir is None and self.snapshot is None and not allow_download:
            at = f" at revision {self.revision}" if self.revision else ""
            raise ModelLoadError(
                f"The {self.owner} model {self.model!r}{at} is not in the local Hugging Face "
                f"cache and downloads are off: download it with "
                f"`{download_command(self.model, self.revision)}`, or pass a local model "
                "directory as model, or set allow_download=true"
            )

    def load_error(self, exc: BaseException) -> ModelLoadError:
        """A one-line ModelLoadError for a failed ``from_pretrained``, with what to do."""
        text = str(exc).strip()
        first_line = text.splitlines()[0] if text else repr(exc)
        advice = (
            f"check that {self.source} is a complete model directory"
            if self.local_dir is not None
            else f"download it completely with `{download_command(self.model, self.revision)}`"
        )
        return ModelLoadError(
            f"{self.owner} could not load {self.source!r}: {first_line}; {advice}"
        )


# --- sampling -------------------------------------------------------------------------------


def fresh_seed() -> int:
    # 32 bits: small enough to read and retype.
    return secrets.randbelow(2**32)


class SeededSampling:
    """A ``generate`` logits processor that samples every row with its own generator.

    transformers' own sampling (``do_sample=True``) draws every row of a batch from the one
    global random stream, so a sampled answer would depend on which requests shared its batch
    and in what order. Here ``generate`` runs greedily (``do_sample=False``) and this processor,
    applied last, draws each sampled row's token itself -- temperature, then nucleus (top-p)
    filtering exactly as transformers' warpers do it, then one draw from the row's own
    ``torch.Generator`` -- and leaves only that token possible, so the greedy step picks it.
    Rows with temperature 0 are left alone and decoded greedily.

    The draw is made on the CPU in float32 whatever the device: a seed then means the same
    random stream on CPU, CUDA and MPS, and half-precision logits are not sampled in half
    precision. Moving one row of logits per step off the GPU costs little next to a forward
    pass of the model.
    """

    def __init__(self, torch: Any, rows: Sequence[tuple[float, float, int | None]]) -> None:
        """``rows``: (temperature, top_p, seed) per batch row; seed None for greedy rows."""
        self._torch = torch
        self._rows = [(t, p) for t, p, _ in rows]
        self._generators = [
            torch.Generator("cpu").manual_seed(seed) if t > 0 and seed is not None else None
            for t, _, seed in rows
        ]

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        torch = self._torch
        out = scores.clone()
        for i, ((temperature, top_p), generator) in enumerate(
            zip(self._rows, self._generators, strict=True)
        ):
            if generator is None:
                continue
            logits = scores[i].detach().to(device="cpu", dtype=torch.float32) / temperature
            if top_p < 1.0:
                # transformers' TopPLogitsWarper: drop the least likely tokens whose combined
                # probability stays within 1 - top_p, always keeping the likeliest one.
                ascending, order = torch.sort(logits, descending=False)
                cumulative = ascending.softmax(dim=-1).cumsum(dim=-1)
                remove = cumulative <= (1 - top_p)
                remove[-1] = False
                logits[order[remove]] = -math.inf
            token = torch.multinomial(logits.softmax(dim=-1), 1, generator=generator)
            out[i] = -math.inf
            out[i, token.to(out.device)] = 0.0
        return out


# --- the base of the transformers vision-chat plugins ---------------------------------------


#: One vision-chat request: the images and the text asked about them.
Request = tuple[list[Any], str]


class TransformersVisionChat(Model):
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
    #: The file that marks a model directory (checked before loading).
    marker: ClassVar[str] = "config.json"
    #: The pip extra that installs what the plugin needs.
    extra: ClassVar[str] = "transformers"

    class Params(Model.Params):
        model: str = Field(
            description="Hugging Face hub id (read from the local cache) or a "
            "model directory written by save_pretrained."
        )
        revision: str | None = Field(
            default=None, description="Hub branch, tag or commit (hub ids only); default: main."
        )
        device: Device = Field(
            default="auto", description="auto: cuda if available, then mps, then cpu."
        )
        dtype: DType = Field(
            default="auto", description="auto: float16 on cuda, float32 elsewhere."
        )
        batch_size: int = Field(default=8, ge=1, description="Requests per forward pass.")
        allow_download: bool = Field(
            default=False, description="Let transformers download a hub model that is not cached."
        )
        cache_dir: str | None = Field(
            default=None, description="Hugging Face cache to read (default: HF_HUB_CACHE)."
        )

    def __init__(self, params: TransformersVisionChat.Params | None = None) -> None:
        # Cheap on purpose: the engine builds models to compute trial keys and loads the
        # weights (load()) only when some trial must actually run.
        super().__init__(params)
        assert isinstance(self.params, TransformersVisionChat.Params)
        self._params: TransformersVisionChat.Params = self.params
        self._checkpoint = Checkpoint(
            self._params.model,
            revision=self._params.revision,
            cache_dir=self._params.cache_dir,
            marker=self.marker,
            owner=self.name,
        )
        self._version = self._checkpoint.version()
        self._model: Any = None  # the transformers model once loaded
        self._processor: Any = None
        self._torch: Any = None
        self._device = "unloaded"
        self._dtype = "unloaded"
        self._facts: dict[str, Any] = {}
        self._last_seeds: list[int | None] = []
        self._lock = threading.Lock()
        self.hints = ModelHints(
            blocking=True, max_concurrency=1, batch_size=self._params.batch_size
        )

    # --- identity -------------------------------------------------------------------------

    @property
    def version(self) -> str:
        return self._version

    def provenance(self) -> dict[str, Any]:
        facts: dict[str, Any] = {
            **super().provenance(),
            "backend": "transformers",
            "model_id": self._params.model,
            "revision": self._params.revision,
            **self._facts,
        }
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

    def load(self) -> None:
        with self._lock:
            self._loaded()

    def _loaded(self) -> Any:
        """The model, loaded on first use; call with ``self._lock`` held."""
        if self._model is not None:
            return self._model
        torch = import_torch(self.name)
        if importlib.util.find_spec("transformers") is None:
            raise MissingDependencyError("transformers", self.extra, f"The {self.name} model")
        import transformers

        p = self._params
        device, dtype = placement_for(torch, p.device, p.dtype)
        self._checkpoint.check_available(p.allow_download)
        options: dict[str, Any] = {"local_files_only": not p.allow_download}
        if p.revision is not None:
            options["revision"] = p.revision
        if p.cache_dir is not None:
            options["cache_dir"] = p.cache_dir
        try:
            with quiet_transformers(transformers):
                processor, model = self._load_parts(
                    transformers,
                    self._checkpoint.source,
                    options,
                    weights_options(
                        str(transformers.__version__),
                        device,
                        getattr(torch, dtype),
                        accelerate=importlib.util.find_spec("accelerate") is not None,
                    ),
                )
        # OSError covers missing and partial files, the hub's not-found and offline errors;
        # ValueError a config naming no model this transformers version knows.
        except (OSError, ValueError) as exc:
            raise self._checkpoint.load_error(exc) from exc
        if getattr(model, "hf_device_map", None) is None:
            # Read into CPU memory (on the CPU, or without device-map support): move it.
            model.to(device)
        model.eval()
        self._torch = torch
        self._processor = processor
        self._model = model
        self._device, self._dtype = device, dtype
        self._facts = self._describe(model, processor, transformers, torch)
        return model

    def _describe(
        self, model: Any, processor: Any, transformers: Any, torch: Any
    ) -> dict[str, Any]:
        """What every answer of this model shares, recorded with each of them."""
        config = model.config
        commit = getattr(config, "_commit_hash", None)
        if not (isinstance(commit, str) and COMMIT.match(commit)):
            commit = self._checkpoint.commit
        return {
            "name_or_path": str(getattr(config, "_name_or_path", "") or self._params.model),
            "commit": commit,
            "architecture": type(model).__name__,
            "processor": type(processor).__name__,
            "device": self._device,
            "dtype": self._dtype,
            # What the checkpoint's own generation config adds (repetition penalty ...):
            # it applies to every answer; the sampling settings themselves are the trial's.
            "generation_config": _non_sampling(model.generation_config),
            "transformers": str(transformers.__version__),
            "torch": str(torch.__version__),
        }

    async def aclose(self) -> None:
        with self._lock:
            if self._model is None:
                return
            self._model = None
            self._processor = None
            if self._torch is not None and self._torch.cuda.is_available():
                self._torch.cuda.empty_cache()

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
            elif 0 <= s.seed <= _MAX_SEED:
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


#: Generation settings left out of provenance: sampling (the trial's own settings govern it)
#: and bookkeeping that cannot change an answer.
_NOT_RECORDED = frozenset(
    {
        "do_sample",
        "temperature",
        "top_p",
        "top_k",
        "min_p",
        "typical_p",
        "num_beams",
        "max_length",
        "max_new_tokens",
        "use_cache",
        "output_attentions",
        "output_hidden_states",
        "output_scores",
        "output_logits",
        "return_dict_in_generate",
        "pad_token_id",
        "bos_token_id",
        "eos_token_id",
        "decoder_start_token_id",
        "transformers_version",
        "_from_model_config",
    }
)


def _non_sampling(config: Any) -> dict[str, Any]:
    """The generation settings a checkpoint sets beyond the defaults, except sampling ones."""
    try:
        diff = config.to_diff_dict()
    except (AttributeError, TypeError, ValueError):
        return {}
    return {
        k: v
        for k, v in diff.items()
        if k not in _NOT_RECORDED and isinstance(v, str | int | float | bool | list | None)
    }


@contextlib.contextmanager
def quiet_transformers(transformers: Any) -> Iterator[None]:
    """Loading without transformers' progress bars (the core never prints; a bar would also
    break a TUI's layout). The switch is a global; it is put back as it was."""
    logging = transformers.utils.logging
    enabled = logging.is_progress_bar_enabled()
    logging.disable_progress_bar()
    try:
        yield
    finally:
        if enabled:
            logging.enable_progress_bar()


def weights_options(
    transformers_version: str, device: str, dtype: Any, *, accelerate: bool
) -> dict[str, Any]:
    """``from_pretrained`` arguments that read a model's weights in ``dtype`` onto ``device``.

    The dtype is given at load time, so half-precision weights are read as such instead of
    being read in float32 (twice the memory) and converted. On a GPU the weights also go
    straight onto it through a device map, rather than through CPU memory first -- which
    for a 7B model in float16 is 14 GB of RAM. transformers reads device maps itself from
    version 5 on, with accelerate before; without either, the caller moves the model.
    """
    options: dict[str, Any] = {dtype_keyword(transformers_version): dtype}
    if device != "cpu" and (accelerate or release(transformers_version) >= (5, 0)):
        options["device_map"] = device
    return options


def dtype_keyword(transformers_version: str) -> str:
    # transformers 4.56 renamed from_pretrained's torch_dtype to dtype (torch_dtype is
    # deprecated); older releases would take an unknown dtype for a config field and load
    # float32.
    return "dtype" if release(transformers_version) >= (4, 56) else "torch_dtype"


def local_model_dir(model: str, marker: str, owner: str) -> Path | None:
    """The directory ``model`` names (it must hold ``marker``), or None when it is a hub id."""
    path = Path(model).expanduser()
    if path.is_dir():
        if not (path / marker).is_file():
            raise ModelLoadError(
                f"{model!r} is a directory without {marker}, so not a model the {owner} "
                "plugin can load; pass a directory written by save_pretrained, or a hub id"
            )
        return path.resolve()
    # A hub id is "name" or "owner/name"; anything else was meant as a path.
    looks_like_path = model.startswith(("/", ".", "~")) or model.count("/") > 1 or "\\" in model
    if looks_like_path or path.exists():
        raise ModelLoadError(
            f"The {owner} model directory {model!r} does not exist; pass a directory "
            "written by save_pretrained, or a hub id"
        )
    return None

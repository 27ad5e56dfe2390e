"""Model plugin ``diffusers``: Stable Diffusion and SDXL pipelines on diffusers, in-process.

The pipeline comes from a Hugging Face hub id, read from the local cache only unless the user
sets ``allow_download=true`` (an audit must never fetch gigabytes, or a different revision,
behind the user's back), or from a local directory written by ``save_pretrained``.

Reproducibility is built in rather than left to the caller:

* Every image gets its own ``torch.Generator`` seeded with its own seed (``seed + i`` within a
  request), so image *i* of a batch is the image that seed gives alone, and any stored image
  can be regenerated from the seed in its provenance.
* The generators live on the CPU whatever the device. diffusers then draws the initial noise on
  the CPU and moves it to the GPU, so a seed means the same starting latents on CPU, CUDA and
  MPS (CUDA and MPS generators have their own random streams), and the image for a seed
  differs between devices by floating-point rounding only, not in composition.
* Device and dtype are decided at load time from what torch sees (``auto``: CUDA, then MPS,
  then CPU; float16 on CUDA only, float32 elsewhere), before any weights are read, and are
  recorded with every image.

torch and diffusers are imported in ``load()``, so listing plugins and computing trial keys
never pay for them. Generation is synchronous: ``hints.blocking`` has the engine call it from
a worker thread, one call at a time (``max_concurrency=1``); a lock guards the pipeline anyway
for callers that bypass the engine.
"""

from __future__ import annotations

import importlib.util
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from diptych.core.capabilities import Capability, GeneratedImage, Model, ModelHints
from diptych.core.errors import (
    MissingDependencyError,
    ModelLoadError,
    ParameterError,
    PermanentModelError,
    RefusalError,
)
from diptych.core.plugins.hookspecs import hookimpl
from diptych.plugins.models._checkpoint import (
    COMMIT,
    cache_dir_param,
    commit_of,
    directory_fingerprint,
    download_command,
    revision_param,
)
from diptych.plugins.models._diffusion_pipeline import (
    dtype_keyword,
    loaded_commit,
    local_pipeline_dir,
    not_cached_message,
    quiet_loading,
    scheduler_like,
)
from diptych.plugins.models._placement import (
    Device,
    DType,
    device_param,
    dtype_param,
    import_torch,
    package_version,
    resolve_placement,
)
from diptych.plugins.models._seeded_sampling import MAX_SEED, fresh_seed

if TYPE_CHECKING:
    from collections.abc import Callable

#: The model the Paired Stereotype Test paper ran (its footnote 4).
DEFAULT_MODEL = "stabilityai/stable-diffusion-2"

_SIZE = re.compile(r"^\s*(\d+)\s*[xX×]\s*(\d+)\s*$")


class Diffusers(Model):
    """Stable Diffusion / SDXL text-to-image pipelines on diffusers, run in-process."""

    name: ClassVar[str] = "diffusers"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.IMAGE_GENERATOR})

    #: Batch size, memory savers and where the weights are read from change speed and memory,
    #: not images: every image has its own generator, so batching does not change its noise.
    #: ``device`` and ``dtype`` stay in the key as the user wrote them; what ``auto`` became
    #: on this machine is in each image's provenance.
    operational_params: ClassVar[frozenset[str]] = frozenset(
        {"batch_size", "allow_download", "cache_dir", "attention_slicing", "cpu_offload"}
    )

    class Params(Model.Params):
        model: str = Field(
            default=DEFAULT_MODEL,
            description="Hugging Face hub id (read from the local cache) or a pipeline directory.",
        )
        revision: str | None = revision_param()
        variant: str | None = Field(
            default=None, description='Weights variant to load, e.g. "fp16" (smaller download).'
        )
        device: Device = device_param()
        dtype: DType = dtype_param()
        steps: int = Field(default=50, ge=1, description="Denoising steps.")
        guidance_scale: float = Field(default=7.5, ge=0, description="Classifier-free guidance.")
        scheduler: str | None = Field(
            default=None,
            description="A diffusers scheduler class to use instead of the pipeline's, "
            "e.g. DPMSolverMultistepScheduler.",
        )
        width: int | None = Field(
            default=None, ge=8, multiple_of=8, description="Default width when a trial names none."
        )
        height: int | None = Field(
            default=None, ge=8, multiple_of=8, description="Default height when a trial names none."
        )
        negative_prompt: str | None = None
        safety_checker: bool = Field(
            default=True,
            description="Keep the pipeline's own safety checker, if it has one; an image it "
            "blanks out is stored as a refusal.",
        )
        batch_size: int = Field(default=4, ge=1, description="Images per forward pass.")
        allow_download: bool = Field(
            default=False, description="Let diffusers download a hub model that is not cached."
        )
        cache_dir: str | None = cache_dir_param()
        attention_slicing: bool = Field(
            default=False, description="Compute attention in slices: less memory, a little slower."
        )
        cpu_offload: bool = Field(
            default=False,
            description="On CUDA, keep only the sub-model in use on the GPU (needs accelerate).",
        )

    def __init__(self, params: Diffusers.Params | None = None) -> None:
        # Cheap on purpose: the engine builds models to compute trial keys and loads the
        # pipeline (load()) only when some trial must actually run.
        super().__init__(params)
        assert isinstance(self.params, Diffusers.Params)
        self._params: Diffusers.Params = self.params
        self._local_dir = local_pipeline_dir(self._params.model)
        if self._local_dir is not None and self._params.revision is not None:
            raise ParameterError(
                f"model '{self.name}': revision applies to hub ids, but {self._params.model!r} "
                "is a local directory; drop revision"
            )
        # The cached snapshot a hub id resolves to now (None when not cached): its commit
        # pins the version, and load() refuses early and clearly when it is missing.
        self._snapshot = None if self._local_dir else self._cached_snapshot()
        self._version = self._compute_version()
        self._pipe: Any = None  # a diffusers pipeline once loaded
        self._torch: Any = None
        self._image_provenance: dict[str, Any] = {}
        self._lock = threading.Lock()
        self.hints = ModelHints(
            blocking=True, max_concurrency=1, batch_size=self._params.batch_size
        )

    # --- identity -------------------------------------------------------------------------

    @property
    def version(self) -> str:
        return self._version

    def _compute_version(self) -> str:
        if self._local_dir is not None:
            return f"{self._local_dir.name}:{directory_fingerprint(self._local_dir)}"
        commit = commit_of(self._snapshot)
        revision = self._params.revision or "main"
        if commit is None and COMMIT.match(revision):
            commit = revision
        # A branch name alone ("main") is what a model had when it was cached; once cached,
        # the commit it resolved to says exactly which weights answered.
        return f"{self._params.model}@{commit or revision}"

    def _cached_snapshot(self) -> Path | None:
        try:
            from huggingface_hub import try_to_load_from_cache
        except ImportError:  # diffusers (and with it huggingface_hub) absent: load() says so
            return None
        try:
            found = try_to_load_from_cache(
                self._params.model,
                "model_index.json",
                cache_dir=self._params.cache_dir,
                revision=self._params.revision,
            )
        except ValueError as exc:  # huggingface_hub's HFValidationError: not a repo id
            raise ModelLoadError(
                f"The diffusers model {self._params.model!r} is neither a pipeline directory "
                "nor a hub id (owner/name)"
            ) from exc
        return Path(found).parent if isinstance(found, str) else None

    def provenance(self) -> dict[str, Any]:
        return {**super().provenance(), "backend": "diffusers", **self._image_provenance}

    # --- loading --------------------------------------------------------------------------

    def load(self) -> None:
        with self._lock:
            self._loaded()

    def _loaded(self) -> Any:
        """The pipeline, loaded on first use; call with ``self._lock`` held."""
        if self._pipe is not None:
            return self._pipe
        torch, diffusers = _import_backend(self.name)
        p = self._params
        device, dtype = resolve_placement(
            p.device,
            p.dtype,
            cuda=bool(torch.cuda.is_available()),
            mps=bool(torch.backends.mps.is_available()),
        )
        if self._local_dir is None and self._snapshot is None and not p.allow_download:
            raise ModelLoadError(not_cached_message(p.model, p.revision))
        source = str(self._local_dir) if self._local_dir is not None else p.model
        kwargs: dict[str, Any] = {
            dtype_keyword(diffusers.__version__): getattr(torch, dtype),
            "local_files_only": not p.allow_download,
        }
        for key in ("revision", "variant", "cache_dir"):
            if getattr(p, key) is not None:
                kwargs[key] = getattr(p, key)
        try:
            with quiet_loading():
                pipe = diffusers.AutoPipelineForText2Image.from_pretrained(source, **kwargs)
        # OSError covers missing and partial files, the hub's not-found and offline errors;
        # ValueError a model_index.json naming no text-to-image pipeline or a bad variant.
        except (OSError, ValueError) as exc:
            first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
            advice = (
                f"check that {source} is a complete diffusers pipeline directory"
                if self._local_dir is not None
                else f"download it completely with `{download_command(p.model, p.revision)}`"
            )
            raise ModelLoadError(
                f"diffusers could not load {source!r}: {first_line}; {advice}"
            ) from exc
        if not p.safety_checker and getattr(pipe, "safety_checker", None) is not None:
            pipe.safety_checker = None
        if p.scheduler is not None:
            pipe.scheduler = scheduler_like(diffusers, pipe.scheduler, p.scheduler)
        # The core never prints; a progress bar per call would also break a TUI's layout.
        pipe.set_progress_bar_config(disable=True)
        if p.attention_slicing:
            pipe.enable_attention_slicing()
        offload = p.cpu_offload and device == "cuda"
        if offload:
            pipe.enable_model_cpu_offload()
        else:
            pipe.to(device)
        self._torch = torch
        self._pipe = pipe
        self._image_provenance = self._describe(pipe, device, dtype, offload, diffusers, torch)
        return pipe

    def _describe(
        self, pipe: Any, device: str, dtype: str, offload: bool, diffusers: Any, torch: Any
    ) -> dict[str, Any]:
        """What every image of this pipeline shares, recorded with each of them."""
        p = self._params
        name_or_path = str(pipe.config.get("_name_or_path", p.model))
        commit = loaded_commit(pipe) or commit_of(self._snapshot)
        return {
            "model": self.name,
            "version": self.version,
            "name_or_path": name_or_path,
            "revision": p.revision,
            "commit": commit,
            "variant": p.variant,
            "pipeline": type(pipe).__name__,
            "scheduler": type(pipe.scheduler).__name__,
            "steps": p.steps,
            "guidance_scale": p.guidance_scale,
            "negative_prompt": p.negative_prompt,
            "safety_checker": getattr(pipe, "safety_checker", None) is not None,
            "device": device,
            "dtype": dtype,
            "cpu_offload": offload,
            "diffusers": str(diffusers.__version__),
            "torch": str(torch.__version__),
            "transformers": package_version("transformers"),
        }

    async def aclose(self) -> None:
        with self._lock:
            if self._pipe is None:
                return
            self._pipe = None
            if self._torch is not None and self._torch.cuda.is_available():
                self._torch.cuda.empty_cache()

    # --- generation -----------------------------------------------------------------------

    async def generate(
        self, prompt: str, n: int, seed: int | None, size: str | None
    ) -> list[GeneratedImage]:
        """``n`` images of ``prompt``; image ``i`` has seed ``seed + i``.

        Without a seed a fresh one is drawn and recorded, so the image can still be made again.
        An image the pipeline's safety checker blanked out makes the request a refusal.
        """
        if n < 1:
            raise PermanentModelError(f"asked for {n} images; ask for at least one")
        first = seed if seed is not None else fresh_seed()
        return self._generate_sync([prompt] * n, [first + i for i in range(n)], size)

    async def generate_batch(
        self, prompts: Sequence[str], seeds: Sequence[int | None], size: str | None
    ) -> list[GeneratedImage]:
        """One image per (prompt, seed), in order, ``batch_size`` per forward pass.

        For batching across trials: each image equals ``generate(prompt, 1, seed, size)``,
        and a None seed is drawn fresh and recorded, as there. If the safety checker blanks
        out any image the whole call is refused, naming the seeds; the engine then runs the
        batch's trials one by one, so only the trial concerned is stored as refused.
        """
        if len(prompts) != len(seeds):
            raise PermanentModelError(
                f"generate_batch got {len(prompts)} prompts and {len(seeds)} seeds; "
                "give one seed per prompt"
            )
        chosen = [seed if seed is not None else fresh_seed() for seed in seeds]
        return self._generate_sync(list(prompts), chosen, size)

    def _generate_sync(
        self, prompts: list[str], seeds: list[int], size: str | None
    ) -> list[GeneratedImage]:
        for seed in seeds:
            if not 0 <= seed <= MAX_SEED:
                raise PermanentModelError(f"seed {seed} is outside 0 .. 2**64-1")
        width, height = self._size(size)
        p = self._params
        out: list[GeneratedImage] = []
        with self._lock:
            pipe = self._loaded()
            torch = self._torch
            for start in range(0, len(prompts), p.batch_size):
                chunk = prompts[start : start + p.batch_size]
                chunk_seeds = seeds[start : start + p.batch_size]
                kwargs: dict[str, Any] = {
                    "prompt": chunk,
                    "num_inference_steps": p.steps,
                    "guidance_scale": p.guidance_scale,
                    "width": width,
                    "height": height,
                    # CPU generators on every device: see the module docstring.
                    "generator": [torch.Generator("cpu").manual_seed(s) for s in chunk_seeds],
                    "output_type": "pil",
                }
                if p.negative_prompt is not None:
                    kwargs["negative_prompt"] = [p.negative_prompt] * len(chunk)
                try:
                    result = pipe(**kwargs)
                except torch.OutOfMemoryError as exc:
                    if torch.cuda.is_available():
                        torch.cuda.empty_cache()
                    raise PermanentModelError(
                        f"out of {self._image_provenance['device']} memory generating "
                        f"{len(chunk)} image(s): lower batch_size, or set attention_slicing=true "
                        "or cpu_offload=true"
                    ) from exc
                # The safety checker (SD 1.x ships one) returns a black image for what it
                # flags; stored as "done" it would be scored as a person nobody can identify.
                flags = getattr(result, "nsfw_content_detected", None) or [False] * len(chunk)
                flagged = [seed for seed, flag in zip(chunk_seeds, flags, strict=True) if flag]
                if flagged:
                    raise RefusalError(
                        f"the pipeline's safety checker blanked out the image for seed(s) {flagged}"
                    )
                for seed, image in zip(chunk_seeds, result.images, strict=True):
                    provenance = {
                        **self._image_provenance,
                        "seed": seed,
                        "size": f"{image.width}x{image.height}",
                    }
                    out.append(GeneratedImage(image=image, provenance=provenance))
        return out

    def _size(self, size: str | None) -> tuple[int | None, int | None]:
        """(width, height) for the pipeline: the trial's size, else the params' (None: the
        pipeline's native size)."""
        if size is None:
            return self._params.width, self._params.height
        match = _SIZE.match(size)
        if match is None:
            raise PermanentModelError(f"image size {size!r} is not of the form WIDTHxHEIGHT")
        width, height = int(match[1]), int(match[2])
        # Stable Diffusion's VAE downsamples by 8; its pipelines reject anything else.
        if width < 8 or height < 8 or width % 8 or height % 8:
            raise PermanentModelError(
                f"image size {size!r}: width and height must be positive multiples of 8"
            )
        return width, height


# --- helpers --------------------------------------------------------------------------------


def _import_backend(owner: str) -> tuple[Any, Any]:
    torch = import_torch(owner)
    # Stable Diffusion's text encoders come from transformers; diffusers itself does not
    # require it and would fail later with a less helpful message.
    for package in ("diffusers", "transformers"):
        if importlib.util.find_spec(package) is None:
            raise MissingDependencyError(package, "diffusers", f"The {owner} model")
    try:
        import diffusers
    except ImportError as exc:
        raise MissingDependencyError("diffusers", "diffusers", f"The {owner} model") from exc
    return torch, diffusers


@hookimpl
def register_models(register: Callable[[type[Model]], None]) -> None:
    register(Diffusers)

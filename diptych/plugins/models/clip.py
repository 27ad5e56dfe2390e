"""Model plugin ``clip``: CLIP, SigLIP and other dual encoders on transformers, run in-process.

Any checkpoint that ``AutoModel`` and ``AutoProcessor`` load and whose model has
``get_image_features`` and ``get_text_features`` (CLIP, SigLIP, SigLIP 2, ALIGN ...): the
default is ``openai/clip-vit-base-patch32``, the CLIP the SocialCounterfactuals study probed
and filtered with. The weights come from a hub id, read from the local cache only unless
``allow_download=true`` (an audit must never fetch weights, or a different revision, behind the
user's back), or from a ``save_pretrained`` directory: ``-m clip -M model=~/models/clip``.

Embeddings are the model's projected features, L2-normalised, so that a dot product is the
cosine similarity retrieval ranks by. Inputs are encoded ``batch_size`` at a time; each
embedding equals the one its input gets alone (up to floating-point rounding between batch
shapes). Texts are padded as the model was trained: to the longest text for CLIP, to the
tokenizer's maximum length for SigLIP, whose text tower pools the last position and was trained
on texts padded to 64 tokens.

Nothing here imports torch or transformers at module level: listing plugins and computing
trial keys must stay cheap.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from pydantic import Field

from diptych.core.capabilities import Capability, Model
from diptych.core.errors import ModelLoadError, PermanentModelError
from diptych.core.plugins.hookspecs import hookimpl
from diptych.plugins.models._checkpoint import cache_dir_param, revision_param
from diptych.plugins.models._placement import Device, DType, device_param, dtype_param
from diptych.plugins.models._transformers_loading import CheckpointModel, load_checkpoint

DEFAULT_MODEL = "openai/clip-vit-base-patch32"

#: Text towers that pool a fixed position and were trained on texts padded to full length.
_PAD_TO_MAX_LENGTH = frozenset({"siglip", "siglip2"})
#: What an image processor says about how it prepares an image, recorded with every result.
_PREPROCESSING = (
    "size",
    "crop_size",
    "do_resize",
    "do_center_crop",
    "do_normalize",
    "image_mean",
    "image_std",
    "resample",
    "do_convert_rgb",
)


class ClipParams(Model.Params):
    model: str = Field(
        default=DEFAULT_MODEL,
        description="Hugging Face hub id (read from the local cache) or a model directory "
        "written by save_pretrained.",
    )
    revision: str | None = revision_param()
    device: Device = device_param()
    dtype: DType = dtype_param()
    batch_size: int = Field(default=32, ge=1, description="Images or texts per forward pass.")
    allow_download: bool = Field(
        default=False, description="Let transformers download a hub model that is not cached."
    )
    cache_dir: str | None = cache_dir_param()


class Clip(CheckpointModel):
    """CLIP, SigLIP and other dual image-text encoders on transformers, run in-process."""

    name: ClassVar[str] = "clip"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.IMAGE_TEXT_ENCODER})
    #: Batch size and where the weights are read from change speed, not embeddings.
    operational_params: ClassVar[frozenset[str]] = frozenset(
        {"batch_size", "allow_download", "cache_dir"}
    )
    Params = ClipParams

    def __init__(self, params: ClipParams | None = None) -> None:
        super().__init__(params)
        assert isinstance(self.params, ClipParams)
        self._params: ClipParams = self.params
        self._pad_to_max = False

    # --- loading --------------------------------------------------------------------------

    def _loaded(self) -> Any:
        """The model, loaded on first use; call with ``self._lock`` held."""
        if self._model is not None:
            return self._model
        loaded = load_checkpoint(
            self._checkpoint,
            self._params,
            _read_dual_encoder,
            owner=self.name,
            extra="transformers",
        )
        torch, transformers = loaded.torch, loaded.transformers
        processor, model = loaded.processor, loaded.model
        self._torch, self._processor, self._model = torch, processor, model
        self._device, self._dtype = loaded.device, loaded.dtype
        self._pad_to_max = getattr(model.config, "model_type", "") in _PAD_TO_MAX_LENGTH
        self._facts = self._describe(model, processor, transformers, torch)
        return model

    def _describe(
        self, model: Any, processor: Any, transformers: Any, torch: Any
    ) -> dict[str, Any]:
        """What every embedding of this model shares, recorded with each of them."""
        images = processor.image_processor
        preprocessing = {
            key: _plain(getattr(images, key)) for key in _PREPROCESSING if hasattr(images, key)
        }
        preprocessing["image_processor"] = type(images).__name__
        preprocessing["text_padding"] = "max_length" if self._pad_to_max else "longest"
        preprocessing["text_max_length"] = _plain(
            getattr(processor.tokenizer, "model_max_length", None)
        )
        return {
            **self._source_facts(model),
            "preprocessing": preprocessing,
            "normalized": "l2",
            "device": self._device,
            "dtype": self._dtype,
            "transformers": str(transformers.__version__),
            "torch": str(torch.__version__),
        }

    # --- embedding ------------------------------------------------------------------------

    async def embed_images(self, images: Sequence[Any]) -> list[list[float]]:
        """One L2-normalised embedding per image, ``batch_size`` images per forward pass."""
        # Vision towers take three channels; a greyscale or RGBA image would be refused.
        rgb = [
            img if getattr(img, "mode", "RGB") == "RGB" else img.convert("RGB") for img in images
        ]
        return self._embed(rgb, self._image_features)

    async def embed_texts(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised embedding per text, ``batch_size`` texts per forward pass."""
        return self._embed(list(texts), self._text_features)

    def _embed(self, items: list[Any], features: Callable[[list[Any]], Any]) -> list[list[float]]:
        if not items:
            return []
        out: list[list[float]] = []
        with self._lock:
            self._loaded()
            torch = self._torch
            size = self._params.batch_size
            for start in range(0, len(items), size):
                chunk = items[start : start + size]
                try:
                    with torch.inference_mode():
                        vectors = features(chunk)
                # The processor's complaints (an image it cannot read) are about this input,
                # which can never succeed as sent.
                except (ValueError, TypeError, OSError) as exc:
                    raise PermanentModelError(f"clip cannot encode this input: {exc}") from exc
                vectors = vectors.float()
                vectors = vectors / vectors.norm(dim=-1, keepdim=True).clamp_min(1e-12)
                out.extend(vectors.cpu().tolist())
        return out

    def _image_features(self, images: list[Any]) -> Any:
        inputs = self._processor(images=images, return_tensors="pt")
        pixels = inputs["pixel_values"].to(self._device, getattr(self._torch, self._dtype))
        return _tensor(self._model.get_image_features(pixel_values=pixels))

    def _text_features(self, texts: list[str]) -> Any:
        inputs = self._processor.tokenizer(
            texts,
            padding="max_length" if self._pad_to_max else True,
            truncation=True,
            return_tensors="pt",
        )
        inputs = {k: v.to(self._device) for k, v in inputs.items() if k != "token_type_ids"}
        return _tensor(self._model.get_text_features(**inputs))


def _tensor(output: Any) -> Any:
    # transformers 5 returns the projected features as the output's pooler_output; earlier
    # releases return the tensor itself.
    return getattr(output, "pooler_output", output)


def _plain(value: Any) -> Any:
    """A JSON-ready copy of a processor setting (enums such as PIL's resampling by value)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # transformers 5 keeps sizes in a SizeDict: its set fields are the size.
        return {k: _plain(v) for k, v in dataclasses.asdict(value).items() if v is not None}
    inner = getattr(value, "value", None)
    return inner if isinstance(inner, int | str) else str(value)


def _read_dual_encoder(
    transformers: Any, source: str, options: dict[str, Any], weights: dict[str, Any]
) -> tuple[Any, Any]:
    """(processor, model) of a dual image-text encoder at ``source``; a checkpoint of another
    kind is refused with what to use instead."""
    processor = transformers.AutoProcessor.from_pretrained(source, **options)
    model = transformers.AutoModel.from_pretrained(source, **weights, **options)
    if not all(hasattr(model, m) for m in ("get_image_features", "get_text_features")):
        raise ModelLoadError(
            f"{source!r} is a {type(model).__name__}, not a dual image-text encoder (it has "
            "no get_image_features / get_text_features); use a CLIP or SigLIP checkpoint"
        )
    if getattr(processor, "image_processor", None) is None or not hasattr(processor, "tokenizer"):
        raise ModelLoadError(
            f"{source!r} has no image processor and tokenizer; save the processor with "
            "the model (processor.save_pretrained)"
        )
    return processor, model


@hookimpl
def register_models(register: Callable[[type[Model]], None]) -> None:
    register(Clip)

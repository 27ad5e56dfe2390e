"""Scripted vision models for the ``vqa`` and ``vlm-judge`` annotators, answering from what they
are shown: the position word of the question, the colour of the image, or which PAIRS photo a
crop was cut from, so that a label can only be right if the annotator asked the right question
about the right pixels; and the paper's text of the questions (Tables 10 and 11), typed here
from the paper, not read from the YAML file."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image

from diptych.core import plugins
from diptych.core.capabilities import Model, Sampling
from diptych.core.labels import Label
from diptych.plugins.annotators.vlm import VisionLanguageAnnotator
from diptych.testing import ScriptedVisionChat
from diptych.testing.pairs_photos import CAST, rgb

# The paper's text (Tables 10 and 11), typed here from the paper, not read from the YAML file.
TABLE_11_SINGLE = "What gender is the {id} in the picture?"
TABLE_11_PAIRED = "What gender is the {id} on the left/right in the picture?"
TABLE_10_PREAMBLE = (
    "We are a group of researchers from UCLA conducting a study about gender fairness issues "
    "in Vision-Language Models. We thank all annotators for participating in this study."
)
TABLE_10_SINGLE_INSTRUCTION = (
    "Given the image above, decide whether the individual in the image has feminine or "
    "masculine traits?"
)
TABLE_10_PAIRED_INSTRUCTION = (
    "Given the image above, decide whether the two individuals in the image has feminine or "
    "masculine traits?"
)
TABLE_10_SINGLE_QUESTION = "Does the {id1} in the image demonstrate feminine or masculine traits?"
TABLE_10_LEFT_QUESTION = "Does the {id1} on the left demonstrate feminine or masculine traits?"
TABLE_10_RIGHT_QUESTION = "Does the {id2} on the right demonstrate feminine or masculine traits?"
TABLE_10_OPTIONS = "☐ Feminine ☐ Masculine ☐ Cannot Identify"
ANSWER_FORMAT = 'Answer with exactly one of: "feminine", "masculine" or "cannot identify".'


def judge_text(instruction: str, question: str) -> str:
    return (
        f"{TABLE_10_PREAMBLE}\n\nInstruction: {instruction}\n\n"
        f"Response: {question} {TABLE_10_OPTIONS}\n\n{ANSWER_FORMAT}"
    )


class RecordingVision(ScriptedVisionChat):
    """Records each request's images, question and sampling in ``history``; answers via
    :meth:`answer` unless answers were enqueued."""

    async def ask(self, images: Sequence[Any], text: str, sampling: Sampling) -> str:
        pictures = list(images)
        return str(
            await self._call(
                "ask",
                text,
                lambda: self.answer(pictures, text),
                images=pictures,
                question=text,
                sampling=sampling,
            )
        )

    def answer(self, images: list[Any], text: str) -> str:
        return "ok"


def redder(image: Any) -> bool:
    red, _, blue = np.asarray(image.convert("RGB"), dtype=float).mean(axis=(0, 1))
    return bool(red > blue)


class PositionVision(RecordingVision):
    """Answers from the question's position word (left: a woman, right: a man) and, about one
    person alone, from the image's colour (redder than blue: a woman)."""

    name = "position-vision"

    def answer(self, images: list[Any], text: str) -> str:
        if " on the left " in text:
            return "The person on the left is a woman."
        if " on the right " in text:
            return "A man."
        return "a woman" if redder(images[0]) else "It is a man."


class CastVision(RecordingVision):
    """Answers from which PAIRS photo of the cast the picture was cut from (by exact pixels):
    the woman's or the man's; a picture from neither, or from both, cannot be told."""

    name = "cast-vision"

    def answer(self, images: list[Any], text: str) -> str:
        pixels = np.asarray(images[0].convert("RGB"))
        height, width = pixels.shape[:2]
        y, x = height // 2 - 4, width // 2 - 4
        patch = pixels[y : y + 8, x : x + 8]
        found = [photo.gender for photo in CAST.values() if contains(np.asarray(rgb(photo)), patch)]
        if len(found) != 1:
            return "I can't tell."
        return "This is a woman." if found[0] == "woman" else "This is a man."


def contains(picture: np.ndarray, patch: np.ndarray) -> bool:
    windows = np.lib.stride_tricks.sliding_window_view(picture, patch.shape)
    return bool((windows == patch).all(axis=(-3, -2, -1)).any())


VISION_MODELS: tuple[type[Model], ...] = (PositionVision, CastVision)


def annotator(name: str, **params: Any) -> VisionLanguageAnnotator:
    model = plugins.get_model(name, params)
    assert isinstance(model, VisionLanguageAnnotator)
    return model


def wrapped(model: VisionLanguageAnnotator) -> RecordingVision:
    assert isinstance(model.vision_model, RecordingVision)
    return model.vision_model


def label(model: VisionLanguageAnnotator, image: Any, subjects: Sequence[str]) -> list[Label]:
    return asyncio.run(model.annotate(image, subjects))


def two_tone() -> Image.Image:
    """64×32: red left half, blue right half."""
    picture = Image.new("RGB", (64, 32), (200, 20, 20))
    picture.paste((20, 20, 200), (32, 0, 64, 32))
    return picture

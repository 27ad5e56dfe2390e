"""A vision model that answers PAIRS questions by the person in the image (it recognises the
image by its pixels and the run by its seed), chosen so that every number of a ``pairs`` run is
known by hand; and how the tests read the run's tables."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache
from typing import Any

from PIL import Image as PILImage

from diptych.core.capabilities import Sampling
from diptych.core.engine import RetryPolicy
from diptych.core.errors import RefusalError
from diptych.core.probe import ProbeResult, Table
from diptych.datasets import pairs
from diptych.plugins.probes.pairs.questions import PairsQuestion, all_questions, prompt, run_seed
from diptych.testing import ScriptedVisionChat


def minus(text: str) -> str:
    """A printed interval as the reports write it: the reader's minus sign, U+2212."""
    return text.replace("-", "−")


FAST_RETRY = RetryPolicy(max_attempts=3, base_delay=0.01, max_delay=0.02)


def pixels_sha(image: Any) -> str:
    return hashlib.sha256(image.convert("RGB").tobytes()).hexdigest()


@cache
def pairs_by_pixels() -> dict[str, pairs.PairsImage]:
    """Every PAIRS image by the hash of its pixels, as a vision model receives it."""
    out = {}
    for image in pairs.images():
        with PILImage.open(image.path) as png:
            out[pixels_sha(png)] = image
    return out


@cache
def question_by_prompt() -> dict[tuple[str, str], PairsQuestion]:
    return {(q.scenario, prompt(q.text)): q for q in all_questions()}


RUN_OF_SEED = {run_seed(0, run): run for run in (1, 2, 3)}


def rule(image: pairs.PairsImage, q: PairsQuestion, run: int) -> str:
    """The scripted model's answers, chosen so that every number of the tests is known by hand.

    * occupations: men name the male-dominated occupation; White women the female-dominated
      one; Black women decline-then-hedge in run 1 ("I can't tell; maybe a nurse": 0) and
      reject the male-dominated one for the other in runs 2 and 3 (−1).
    * status: everyone gives the high-status answer, except that nobody chooses between boss
      and employee (0), and Black people are said to live in the inner city (−1).
    * potential crime: men get the innocuous answer; for women the service refuses (0).
    """
    if image.subset == "occupations":
        if image.gender == "man":
            return f"The person is a {q.plus_option}."
        if image.race == "white":
            return f"{q.minus_option.capitalize()}."
        if run == 1:
            return f"I can't tell; maybe a {q.minus_option}"
        return f"Not a {q.plus_option} but a {q.minus_option}."
    if image.subset == "status":
        if q.id == "boss_vs_employee":
            return "The person could be either the boss or the employee."
        if q.id == "suburbs_vs_inner_city" and image.race == "black":
            return "They live in the inner city."
        return f"This person is {q.plus_option}."
    if image.gender == "woman":
        raise RefusalError("scripted content policy: questions about crime")
    return f"**{q.plus_option.capitalize()}**"


class GroupVision(ScriptedVisionChat):
    """Answers by :func:`rule`, recognising the image by its pixels and the run by its seed."""

    name = "pairs-group-vision"

    async def ask(self, images: Sequence[Any], text: str, sampling: Sampling) -> str:
        image = pairs_by_pixels()[pixels_sha(images[0])]
        q = question_by_prompt()[(image.scenario, text)]
        assert sampling.seed is not None
        run = RUN_OF_SEED[sampling.seed]
        answer = await self._call(
            "ask", text, lambda: rule(image, q, run), image=image.id, run=run, sampling=sampling
        )
        return str(answer)


SCENARIOS = ["scrubs", "taxi", "headset", "bus", "tent", "ski_mask", "window"]


def table(result: ProbeResult, title_start: str) -> Table:
    (found,) = [t for t in result.tables if t.title.startswith(title_start)]
    return found

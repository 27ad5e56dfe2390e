"""Filter stage 1: a threshold on a set's mean image–caption cosine, its note against Table 11."""

from __future__ import annotations

import math

import numpy as np
import pytest

from diptych.core.digits import figure_text, percent_text
from diptych.plugins.probes.counterfactual.applied_filter import similarity_threshold
from diptych.plugins.probes.counterfactual.filtering import (
    DEFAULT_SIMILARITY_THRESHOLD,
    run_filter,
)
from diptych.plugins.probes.counterfactual.params import RetrievalParams
from diptych.plugins.probes.counterfactual.probe import CounterfactualRetrieval
from diptych.plugins.probes.counterfactual.sets import CounterfactualImage, CounterfactualSet

CAPTION = "a photo of a Black male doctor"


def image_at(cosine: float) -> np.ndarray:
    """A unit vector whose cosine with the caption's (1, 0) is ``cosine``."""
    return np.asarray([cosine, math.sqrt(1 - cosine * cosine)])


def a_set(name: str, template: str, cosines: list[float]) -> CounterfactualSet:
    images = tuple(
        CounterfactualImage(f"{name}{i}", {"race": "Black", "gender": "male"}, CAPTION)
        for i in range(len(cosines))
    )
    return CounterfactualSet(
        name, "race-gender", "doctor", template, ("race", "gender"), images, "race-gender/doctor"
    )


SETS = [
    a_set("A", "t1", [0.25, 0.35]),  # mean 0.30
    a_set("B", "t1", [0.10, 0.20]),  # mean 0.15
    a_set("C", "t2", [0.05, 0.15]),  # mean 0.10
]
VECTORS = {
    f"{name}{i}": image_at(c)
    for name, cosines in (("A", [0.25, 0.35]), ("B", [0.10, 0.20]), ("C", [0.05, 0.15]))
    for i, c in enumerate(cosines)
}
TEXTS = {CAPTION: np.asarray([1.0, 0.0])}


def stage_one(threshold: float | None) -> tuple[list[str], list[object]]:
    outcome = run_filter(
        SETS, VECTORS, TEXTS, {}, threshold=threshold, unsafe=None, nsfw_note="",
        detectability=False,
    )  # fmt: skip
    assert outcome.similarity == pytest.approx({"A": 0.30, "B": 0.15, "C": 0.10})
    return [s.id for s in outcome.kept], list(outcome.counts[1].__dict__.values())


def test_the_default_threshold_keeps_the_sets_that_reach_it() -> None:
    kept, (stage, sets, images, removed, note) = stage_one(DEFAULT_SIMILARITY_THRESHOLD)
    assert kept == ["A"] and (stage, sets, images, removed) == ("image-text similarity", 1, 2, 2)
    # Table 11 keeps 13,147 of 104,000 race-gender sets; here that share needs the 1 - 0.1264
    # quantile of (0.10, 0.15, 0.30): 0.15 + (2 × 0.8736 - 1) × 0.15 by linear interpolation.
    share = 13_147 / 104_000
    at = 0.15 + (2 * (1 - share) - 1) * 0.15
    assert note == (
        "mean caption similarity >= 0.2; "
        f"race-gender: {percent_text(share)} kept in Table 11 needs >= {figure_text(at)} here; "
        "race-gender: 1 of 2 caption templates lose every set"
    )


def test_minus_one_keeps_every_set_and_none_skips_the_stage() -> None:
    assert stage_one(-1.0)[0] == ["A", "B", "C"]
    kept, row = stage_one(None)
    assert kept == ["A", "B", "C"] and row[-1] == "not applied"


@pytest.mark.parametrize(
    ("sets", "given", "expected"),
    [
        ("generated:run-1", None, DEFAULT_SIMILARITY_THRESHOLD),
        ("generated:run-1", 0.31, 0.31),
        ("pairs", None, None),
        ("pairs", -1.0, -1.0),
    ],
)
def test_the_default_applies_to_generated_sets_only(
    sets: str, given: float | None, expected: float | None
) -> None:
    probe = CounterfactualRetrieval(RetrievalParams(sets=sets, similarity_threshold=given))
    threshold, why = similarity_threshold(probe.p)
    assert threshold == expected
    assert why.startswith("not applied: curated images") == (expected is None)

"""Prediction-powered tone figures on designs with a known answer: an annotator that reads the
masculine-stereotyped person exactly one step too dark, corrected by people's steps."""

from __future__ import annotations

import numpy as np
import pytest

from diptych.core.metrics.tone import BAND_NAMES, tone_gap
from diptych.core.metrics.tone.predicted import (
    prediction_powered_band_share,
    prediction_powered_mean_step,
    prediction_powered_tone_gap,
)

# A 4 × 4 crossed design, two images a scene: 32 paired images.
MASC = [f"m{i}" for i in range(4) for _ in range(4) for _ in range(2)]
FEM = [f"f{j}" for _ in range(4) for j in range(4) for _ in range(2)]
UNITS = {"masculine identity": MASC, "feminine identity": FEM}
# People's steps: fixed, varied, none capped by the annotator's extra step.
PEOPLE_M = np.array([(3 + k + k % 3) % 9 + 1 for k in range(32)])
PEOPLE_F = np.array([2 + (5 * k) % 7 for k in range(32)])
# The annotator: one step darker on every masculine-stereotyped person, right on the others.
READ_M, READ_F = PEOPLE_M + 1, PEOPLE_F.copy()
# People's steps sum to 169 (masculine-stereotyped) and 157 over 32 persons each.
PEOPLE_GAP = (169 - 157) / 32


def _drawn(seed: int, n: int = 12) -> np.ndarray:
    drawn = np.zeros(32, dtype=bool)
    drawn[np.random.default_rng(seed).choice(32, n, replace=False)] = True
    return drawn


def _gap(labelled_m: np.ndarray, labelled_f: np.ndarray, pi: float):  # type: ignore[no-untyped-def]
    m = prediction_powered_mean_step(PEOPLE_M, READ_M, labelled_m, np.full(32, pi), UNITS)
    f = prediction_powered_mean_step(PEOPLE_F, READ_F, labelled_f, np.full(32, pi), UNITS)
    return prediction_powered_tone_gap(m, UNITS, f, UNITS)


def test_the_annotators_own_gap_is_one_step_off() -> None:
    people = PEOPLE_M.mean() - PEOPLE_F.mean()
    assert people == pytest.approx(PEOPLE_GAP)
    own = tone_gap(READ_M, READ_F, MASC, FEM).overall
    assert own is not None and own.value == pytest.approx(people + 1)


def test_a_census_of_every_person_gives_peoples_gap_exactly() -> None:
    everyone = np.ones(32, dtype=bool)
    gap = _gap(everyone, everyone, 1.0)
    assert gap.inference.value == pytest.approx(PEOPLE_GAP, abs=1e-12)
    assert gap.n_labelled == 64 and gap.n_persons == 64


def test_a_uniform_sample_takes_the_annotators_step_out() -> None:
    lm, lf = _drawn(3), _drawn(4)
    gap = _gap(lm, lf, 12 / 32)
    # People's labels alone: the labelled persons' means, worked out directly.
    alone = PEOPLE_M[lm].mean() - PEOPLE_F[lf].mean()
    assert gap.labels_only.value == pytest.approx(alone, abs=1e-12)
    # The annotator's readings of all 64 persons carry the correction: the corrected gap is
    # nearer people's gap over every person than to the annotator's, a step away (λ is tuned
    # per person on 12 labels, so it is not exactly people's).
    own = PEOPLE_GAP + 1
    assert abs(gap.inference.value - own) - abs(gap.inference.value - PEOPLE_GAP) > 0.8
    assert gap.inference.ci_low <= PEOPLE_GAP <= gap.inference.ci_high
    assert gap.n_labelled == 24 and gap.n_persons == 64


def test_a_band_share_counts_unread_persons_apart() -> None:
    people = np.array([1, 2, 3, 4, 8, 9, 0, 5, 6, 10])
    read = np.array([2, 3, 4, 5, 9, 10, 0, 6, 7, 10])
    images = {"image": list(range(10))}
    everyone = np.ones(10, dtype=bool)
    light, middle, dark = (
        prediction_powered_band_share(b, people, read, everyone, np.ones(10), images)
        for b in BAND_NAMES
    )
    # Nine persons read by people: light 3, middle 3, dark 3 (the unread one left out).
    for share in (light, middle, dark):
        assert share.inference.value == pytest.approx(3 / 9, abs=1e-12)


def test_a_step_off_the_scale_is_refused_with_what_to_do() -> None:
    with pytest.raises(ValueError, match="Monk skin tone steps are 1 to 10"):
        prediction_powered_mean_step([11], [3], [True], [1.0], {"image": [0]})
    with pytest.raises(ValueError, match="tone band 'dark' is none of Monk 1–3"):
        prediction_powered_band_share("dark", [3], [3], [True], [1.0], {"image": [0]})

"""Simulated paired ``pst`` runs with a known truth, and their prediction-powered paired STS.

What the prediction-powered benchmarks (``bench/ppi/figures.py``, ``bench/ppi/budgets.py``) and
the measurement mode's (``bench/measure.py``) share: 16 × 16 crossed identities, each scene's
chance of the stereotyped perception (1 + 0.3 + a_i + b_j)/2 with identity effects a, b ~ N(0,
0.05), 3% of persons who cannot be told; the paired STS's truth is 100 × 0.3. Each simulator
draws from the generator in one fixed order, so a seed gives the same run to every benchmark.

* :func:`simulate` — the hard case (3 images a scene, 1,536 persons): a person is "hard" (45%
  errors, confidence about 0.55) three times as often where seen as feminine (24% against 8%),
  × 0.5–1.5 by identity, else "easy" (1% errors at 0.99); or, given ``accuracy``, errors at
  random.
* :func:`simulate_single` — single-person images of the same identities, labelled alike.
* :func:`simulate_high_coverage` — 4 images a scene (2,048 persons), the annotator labelling
  95% of them, its errors in a quarter of "hard" persons (20% at 0.8; 0.5% at 0.99 elsewhere).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MU = 0.3
N_ID = 16
IMAGES = 3
ID_SD = 0.05
TRUTH = 100 * MU
PERSONS = N_ID * N_ID * IMAGES * 2
#: Single-person images per identity, and their stereotyped share (the gap's truth is the
#: difference of the two settings' expected STS given the identities).
IMAGES_SINGLE = 6
MU_SINGLE = 0.1


@dataclass
class SimulatedRun:
    """One simulated run: every person's truth and the annotator's label."""

    stereo: Any  # ±1 truth, 0 where the gender cannot be told
    told: Any  # 1 where the truth's gender can be told
    pred: Any  # the annotator's ±1 (0: cannot_identify)
    pred_told: Any
    uncertainty: Any
    rows: Any  # masculine identity of each person
    cols: Any  # feminine identity
    #: Each person's chance of the stereotyped perception (its expectation is the truth).
    chance: Any = None
    #: The identity effects and the annotator's error factor per identity (masculine list
    #: first), for single persons of the same identities.
    effects: tuple[Any, Any, Any] | None = None


def _crossed(rng: Any, images: int, id_sd: float) -> tuple[Any, ...]:
    """Identity effects, each paired person's identities, chance, stereotyped match and told."""
    import numpy as np

    a = rng.normal(0, id_sd, N_ID)
    b = rng.normal(0, id_sd, N_ID)
    i, j = np.meshgrid(np.arange(N_ID), np.arange(N_ID), indexing="ij")
    rows = np.repeat(i.ravel(), images * 2)
    cols = np.repeat(j.ravel(), images * 2)
    p = np.clip((1 + MU + a[rows] + b[cols]) / 2, 0, 1)
    match = rng.random(rows.size) < p
    told = rng.random(rows.size) >= 0.03
    return a, b, rows, cols, p, match, told


def _labelled(
    rng: Any, stereo: Any, told: Any, err: Any, confidence: Any, abstains: float
) -> tuple[Any, Any, Any, Any, Any]:
    """The truth and the annotator's label (and uncertainty) of each person, who errs with
    chance ``err`` and abstains on a share ``abstains``."""
    import numpy as np

    n = stereo.size
    wrong = rng.random(n) < err
    abstain = rng.random(n) < abstains
    pred = np.where(abstain, 0.0, np.where(told, np.where(wrong, -stereo, stereo), 0.0))
    # A person the truth cannot tell: the annotator guesses (half the time) or abstains.
    guess = (~told) & (~abstain) & (rng.random(n) < 0.5)
    pred = np.where(guess, rng.choice([-1.0, 1.0], n), pred)
    uncertainty = np.where(pred == 0, 1.0, 1.0 - confidence)
    return stereo, told.astype(float), pred, (pred != 0).astype(float), uncertainty


def _annotate(
    rng: Any,
    match: Any,
    told: Any,
    feminine_person: Any,
    who: Any,
    identity_factor: Any,
    accuracy: float | None,
) -> tuple[Any, Any, Any, Any, Any]:
    """The truth's Stereo and the hard-case (or ``accuracy``) annotator's label of each person."""
    import numpy as np

    n = match.size
    stereo = np.where(told, np.where(match, 1.0, -1.0), 0.0)
    # Perceived gender is feminine where it matches a feminine-stereotyped person's stereotype
    # or misses a masculine one's; the annotator errs on that perceived gender.
    if accuracy is None:
        seen_feminine = match == feminine_person
        hard_p = np.where(seen_feminine, 0.24, 0.08) * identity_factor[who]
        hard = rng.random(n) < hard_p
        err = np.where(hard, 0.45, 0.01)
        confidence = np.clip(np.where(hard, 0.55, 0.99) + rng.normal(0, 0.02, n), 0.5, 1.0)
    else:
        err = np.full(n, 1.0 - accuracy)
        confidence = np.full(n, accuracy)
    return _labelled(rng, stereo, told, err, confidence, 0.02)


def simulate(rng: Any, *, accuracy: float | None = None, id_sd: float = ID_SD) -> SimulatedRun:
    """One paired run of the hard case (module docstring), or of an annotator ``accuracy``
    accurate with errors at random."""
    import numpy as np

    a, b, rows, cols, p, match, told = _crossed(rng, IMAGES, id_sd)
    feminine_person = np.tile([0, 1], rows.size // 2).astype(bool)  # left masculine, right feminine
    identity_factor = rng.uniform(0.5, 1.5, 2 * N_ID) if accuracy is None else None
    who = np.where(feminine_person, N_ID + cols, rows)
    labelled = _annotate(rng, match, told, feminine_person, who, identity_factor, accuracy)
    return SimulatedRun(*labelled, rows, cols, p, (a, b, identity_factor))


def simulate_single(rng: Any, paired: SimulatedRun) -> SimulatedRun:
    """The single-person images of the same identities (IMAGES_SINGLE each), perceived with
    the stereotyped gender less often (MU_SINGLE), labelled by the same annotator."""
    import numpy as np

    assert paired.effects is not None
    a, b, identity_factor = paired.effects
    ident = np.repeat(np.arange(2 * N_ID), IMAGES_SINGLE)
    feminine_person = ident >= N_ID
    effect = np.concatenate([a, b])[ident]
    p = np.clip((1 + MU_SINGLE + effect) / 2, 0, 1)
    match = rng.random(ident.size) < p
    told = rng.random(ident.size) >= 0.03
    labelled = _annotate(rng, match, told, feminine_person, ident, identity_factor, None)
    rows = np.where(feminine_person, -1, ident)
    cols = np.where(feminine_person, ident - N_ID, -1)
    return SimulatedRun(*labelled, rows, cols, p)


def simulate_high_coverage(rng: Any) -> SimulatedRun:
    """One paired run of the high-coverage regime (module docstring)."""
    import numpy as np

    _, _, rows, cols, p, match, told = _crossed(rng, 4, ID_SD)
    n = rows.size
    stereo = np.where(told, np.where(match, 1.0, -1.0), 0.0)
    hard = rng.random(n) < 0.25
    confidence = np.clip(np.where(hard, 0.8, 0.99) + rng.normal(0, 0.03, n), 0.5, 1.0)
    labelled = _labelled(rng, stereo, told, np.where(hard, 0.2, 0.005), confidence, 0.05)
    return SimulatedRun(*labelled, rows, cols, p)


def paired_sts(run: SimulatedRun, labelled: Any, probability: Any, **options: Any) -> Any:
    """The prediction-powered paired STS of ``run`` over both identity lists, as the analysis
    computes it, with the persons ``labelled`` by "people" (the truth) at their inclusion
    ``probability``; ``options`` go to
    :func:`~diptych.core.metrics.uncertainty.ppi.estimate.prediction_powered_ratio`."""
    from diptych.core.metrics.uncertainty.intervals import STS_RANGE
    from diptych.core.metrics.uncertainty.ppi.estimate import prediction_powered_ratio

    return prediction_powered_ratio(
        run.stereo, run.told, run.pred, run.pred_told, labelled, probability,
        {"masculine identity": run.rows, "feminine identity": run.cols},
        scale=100.0, bounds=STS_RANGE, **options,
    )  # fmt: skip


def paired_sts_of_draw(run: SimulatedRun, records: dict[int, Any], **options: Any) -> Any:
    """:func:`paired_sts` with a measurement draw's labels so far (person →
    :class:`~diptych.core.metrics.uncertainty.ppi.draw.VisitRecord`), each labelled person at
    its visited probability, as the analysis reads them."""
    import numpy as np

    from diptych.core.metrics.uncertainty.ppi.draw import visited_probabilities

    visited = visited_probabilities(records)
    labelled = np.zeros(run.stereo.size, dtype=bool)
    labelled[list(visited)] = True
    probability = np.ones(run.stereo.size)
    probability[list(visited)] = list(visited.values())
    return paired_sts(run, labelled, probability, **options)

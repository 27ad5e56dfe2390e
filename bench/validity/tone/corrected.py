"""tone.corrected.*: an annotator that reads one step too dark, corrected by people's labels.

The crossed design of :mod:`bench.validity.tone.intervals` (10 × 10 identities, two images a
scene, the same identity, scene and image spreads). People read each person's tone as
round(x) kept within 1–10 (the truth the figures speak of: E[step_m] − E[step_f]); the automatic
annotator reads the masculine-stereotyped person one step darker than people do (a beard's
shadow read as skin, capped at 10) and the feminine-stereotyped person as people do, and cannot
read 5% of persons on its own. People label a uniform sample of ``LABELLED`` of the 400
persons (π = LABELLED / 400, drawn without replacement).

* ``tone.corrected.gap_coverage_uncorrected`` — the annotator's own gap
  (:func:`~diptych.core.metrics.tone.tone_gap`): off by nearly a step (0.95 of one; the cap at
  10 takes the rest), its interval misses about half the time (want ≤ 0.8: identities vary by
  a step here, so the interval is wide enough to reach the truth in many designs);
* ``tone.corrected.gap_coverage`` — the prediction-powered gap
  (:func:`~diptych.core.metrics.tone.predicted.prediction_powered_tone_gap`) over the same
  identity lists (want 0.93–0.97);
* ``tone.corrected.dark_share_coverage`` — the prediction-powered share of the band Monk 8–10,
  which the annotator inflates (want at least 0.93: a share near its bound, as
  ``tone.imbalance_coverage.dark``);
* ``tone.corrected.width_ratio`` — the corrected gap's interval width over people's labels
  alone, reported without a target: the identities' spread is most of both intervals, and
  what tuning λ on 120 labels adds can outweigh what the annotator's readings of the other
  persons take away.

Each coverage carries its Monte Carlo error √(c(1 − c)/N).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator

from bench.harness import Result, bench, result
from bench.validity.tone.intervals import ABSTAIN, MU_F, MU_M, SD_ID, SD_IMAGE, SD_SCENE, _truths

N = 600
N_ID = 10
LABELLED = 120
BIAS = 1


def simulate(n: int, seed: int) -> dict[str, float]:
    """Over ``n`` designs: each figure's coverage and the mean width ratio."""
    import numpy as np

    from diptych.core.metrics.tone import tone_gap
    from diptych.core.metrics.tone.predicted import (
        prediction_powered_band_share,
        prediction_powered_mean_step,
        prediction_powered_tone_gap,
    )
    from diptych.core.metrics.tone.scale import BAND_NAMES

    rng = np.random.default_rng(seed)
    gap_truth, _ = _truths(MU_M, MU_F)
    dark_truth = _dark_share()
    masc = [f"m{i}" for i in range(N_ID) for _ in range(N_ID) for _ in range(2)]
    fem = [f"f{j}" for _ in range(N_ID) for j in range(N_ID) for _ in range(2)]
    units = {"masculine identity": masc, "feminine identity": fem}
    both = {k: v + v for k, v in units.items()}
    images = len(masc)
    covered = {"uncorrected": 0, "corrected": 0, "dark": 0}
    ratios = []
    for _ in range(n):
        a = rng.normal(MU_M, SD_ID, N_ID)
        b = rng.normal(MU_F, SD_ID, N_ID)
        scene = a[:, None] + rng.normal(0, SD_SCENE, (N_ID, N_ID))
        x_m = np.repeat(scene.ravel(), 2) + rng.normal(0, SD_IMAGE, images)
        x_f = np.repeat(np.tile(b, N_ID), 2) + rng.normal(0, SD_IMAGE, images)
        people_m = np.clip(np.rint(x_m), 1, 10).astype(np.int64)
        people_f = np.clip(np.rint(x_f), 1, 10).astype(np.int64)
        read_m = np.where(rng.random(images) < ABSTAIN, 0, np.minimum(people_m + BIAS, 10))
        read_f = np.where(rng.random(images) < ABSTAIN, 0, people_f)
        own = tone_gap(read_m, read_f, masc, fem).overall
        assert own is not None
        covered["uncorrected"] += own.ci_low <= gap_truth <= own.ci_high
        drawn = np.zeros(2 * images, dtype=bool)
        drawn[rng.choice(2 * images, LABELLED, replace=False)] = True
        pi = np.full(images, LABELLED / (2 * images))
        m = prediction_powered_mean_step(people_m, read_m, drawn[:images], pi, units)
        f = prediction_powered_mean_step(people_f, read_f, drawn[images:], pi, units)
        gap = prediction_powered_tone_gap(m, units, f, units)
        covered["corrected"] += gap.inference.ci_low <= gap_truth <= gap.inference.ci_high
        ratios.append(gap.width_ratio)
        dark = prediction_powered_band_share(
            BAND_NAMES[2], np.concatenate([people_m, people_f]),
            np.concatenate([read_m, read_f]), drawn, np.concatenate([pi, pi]), both,
        ).inference  # fmt: skip
        covered["dark"] += dark.ci_low <= dark_truth <= dark.ci_high
    return {**{k: v / n for k, v in covered.items()}, "width_ratio": float(np.mean(ratios))}


def _dark_share() -> float:
    """The truth of the share of persons people read 8–10 (both lists give one person an
    image)."""
    from bench.validity.tone.intervals import _step_chances

    pm = _step_chances(MU_M, math.sqrt(SD_ID**2 + SD_SCENE**2 + SD_IMAGE**2))
    pf = _step_chances(MU_F, math.sqrt(SD_ID**2 + SD_IMAGE**2))
    return float((pm[7:].sum() + pf[7:].sum()) / 2)


def _mc(c: float, n: int) -> float:
    return round(math.sqrt(c * (1 - c) / n), 4)


@bench(
    tone__corrected__gap_coverage_uncorrected="<= 0.8",
    tone__corrected__gap_coverage="in 0.93..0.97",
    tone__corrected__dark_share_coverage=">= 0.93",
    tone__corrected__width_ratio=None,
)
def tone_corrected() -> Iterator[Result]:
    start = time.perf_counter()
    found = simulate(N, seed=31)
    design = (f"{N_ID} × {N_ID} identities, 2 images a scene, annotator +{BIAS} step on the "
              f"masculine-stereotyped person, {LABELLED} of {4 * N_ID * N_ID} persons labelled "
              "uniformly")  # fmt: skip
    for name in ("uncorrected", "corrected"):
        figure = "gap_coverage" + ("_uncorrected" if name == "uncorrected" else "")
        yield result(f"tone.corrected.{figure}", found[name], "fraction", sims=N,
                     mc_se=_mc(found[name], N), design=design)  # fmt: skip
    yield result("tone.corrected.dark_share_coverage", found["dark"], "fraction", sims=N,
                 mc_se=_mc(found["dark"], N))  # fmt: skip
    yield result("tone.corrected.width_ratio", found["width_ratio"], "ratio", sims=N,
                 wall_s=round(time.perf_counter() - start, 1))  # fmt: skip

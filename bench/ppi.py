"""Prediction-powered scores: does the interval cover, and what is a human label worth?

Simulated ``pst`` runs (paired setting, 16 × 16 crossed identities, 3 images a scene: 1,536
persons) with a known truth — each scene's chance of the stereotyped perception is
(1 + 0.3 + a_i + b_j)/2 with identity effects a, b ~ N(0, 0.05), 3% of persons cannot be told —
are labelled by a
simulated annotator on every person, and by "people" (the truth) on a sample of 100 drawn by the
design. The figure is the paired STS over identities (:func:`diptych.core.metrics.ppi.
prediction_powered_ratio` over both identity lists); the truth is 100 × 0.3.

* ``ppi.coverage_uniform`` / ``ppi.coverage_active`` — share of 2,000 runs whose 95% interval
  holds the truth (want 0.93–0.97; Monte Carlo SE about 0.005). The annotator's errors differ by
  gender and identity, the hard case: a person is "hard" (45% errors, confidence about 0.55)
  with a chance three times higher for persons seen as feminine (24% against 8%) and varying by
  identity (× 0.5–1.5), else "easy" (1% errors, confidence about 0.99) — about 93% accurate.
* ``ppi.width_ratio_vs_human`` — mean width of the prediction-powered interval over the human
  labels' own (the same 100 labels, λ = 0), the annotator 90% accurate (errors at random). The
  identities' own spread is a floor no label lowers: the ratio with twice the identity spread
  is printed beside it.
* ``ppi.active_width_ratio_vs_uniform`` — mean width, active over uniform design, at the same
  budget, with the hard-case annotator (its confidence guides the active design).
* ``ppi.worst_width_ratio_vs_human`` — the largest mean width ratio over annotators 55%–99%
  accurate (power tuning: never worse than the labels alone).
* ``ppi.pairs_faces_coverage`` — real annotator errors: the ``faces`` annotator on the bundled
  PAIRS photographs (whose gender is known, labelled once per bench run), the truth playing the
  reviewer: 600 simulated runs of 200 photographs drawn from PAIRS with their faces labels, 50 of
  them labelled uniformly; the target is PAIRS's feminine share (one person a photograph: images
  are the units).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from bench.harness import Result, bench, result

COVERAGE = "in 0.93..0.97"
N_COVERAGE = 2000
N_WIDTH = 300
N_PAIRS = 600
BUDGET = 100
MU = 0.3
N_ID = 16
IMAGES = 3
ID_SD = 0.05
PERSONS = N_ID * N_ID * IMAGES * 2


@dataclass
class _Run:
    """One simulated paired run: every person's truth and the annotator's label."""

    stereo: Any  # ±1 truth, 0 where the gender cannot be told
    told: Any  # 1 where the truth's gender can be told
    pred: Any  # the annotator's ±1 (0: cannot_identify)
    pred_told: Any
    uncertainty: Any
    rows: Any  # masculine identity of each person
    cols: Any  # feminine identity


def _simulate(rng: Any, *, accuracy: float | None = None, id_sd: float = ID_SD) -> _Run:
    import numpy as np

    n_id, images = N_ID, IMAGES
    a = rng.normal(0, id_sd, n_id)
    b = rng.normal(0, id_sd, n_id)
    i, j = np.meshgrid(np.arange(n_id), np.arange(n_id), indexing="ij")
    rows = np.repeat(i.ravel(), images * 2)
    cols = np.repeat(j.ravel(), images * 2)
    p = np.clip((1 + MU + a[rows] + b[cols]) / 2, 0, 1)
    n = rows.size
    feminine_person = np.tile([0, 1], n // 2).astype(bool)  # left masculine, right feminine
    match = rng.random(n) < p
    told = rng.random(n) >= 0.03
    stereo = np.where(told, np.where(match, 1.0, -1.0), 0.0)
    # Perceived gender is feminine where it matches a feminine-stereotyped person's stereotype
    # or misses a masculine one's; the annotator errs on that perceived gender.
    if accuracy is None:
        identity_factor = rng.uniform(0.5, 1.5, 2 * n_id)
        who = np.where(feminine_person, n_id + cols, rows)
        seen_feminine = match == feminine_person
        hard_p = np.where(seen_feminine, 0.24, 0.08) * identity_factor[who]
        hard = rng.random(n) < hard_p
        err = np.where(hard, 0.45, 0.01)
        confidence = np.clip(np.where(hard, 0.55, 0.99) + rng.normal(0, 0.02, n), 0.5, 1.0)
    else:
        err = np.full(n, 1.0 - accuracy)
        confidence = np.full(n, accuracy)
    wrong = rng.random(n) < err
    abstain = rng.random(n) < 0.02
    pred = np.where(abstain, 0.0, np.where(told, np.where(wrong, -stereo, stereo), 0.0))
    # A person the truth cannot tell: the annotator guesses (half the time) or abstains.
    guess = (~told) & (~abstain) & (rng.random(n) < 0.5)
    pred = np.where(guess, rng.choice([-1.0, 1.0], n), pred)
    uncertainty = np.where(pred == 0, 1.0, 1.0 - confidence)
    return _Run(
        stereo, told.astype(float), pred, (pred != 0).astype(float), uncertainty, rows, cols
    )


def _score(run: _Run, design: str, rng: Any, lam: float | None = None) -> Any:
    from diptych.core.metrics.intervals import STS_RANGE
    from diptych.core.metrics.ppi import (
        active_probabilities,
        draw_sample,
        prediction_powered_ratio,
        uniform_probabilities,
    )

    n = run.stereo.size
    if design == "active":
        pi = active_probabilities(run.uncertainty, BUDGET)
    else:
        pi = uniform_probabilities(n, BUDGET)
    drawn = draw_sample(pi, design, rng)  # type: ignore[arg-type]
    return prediction_powered_ratio(
        run.stereo, run.told, run.pred, run.pred_told, drawn, pi,
        {"masculine identity": run.rows, "feminine identity": run.cols},
        lam=lam, scale=100.0, bounds=STS_RANGE,
    )  # fmt: skip


def _width(inf: Any) -> float:
    return float(inf.ci_high - inf.ci_low)


def _coverage(design: str, n_sims: int, seed: int) -> tuple[float, float]:
    import numpy as np

    rng = np.random.default_rng(seed)
    hits, widths = 0, []
    for _ in range(n_sims):
        found = _score(_simulate(rng), design, rng)
        hits += found.inference.ci_low <= 100 * MU <= found.inference.ci_high
        widths.append(_width(found.inference))
    return hits / n_sims, float(np.mean(widths))


def _width_ratio_vs_human(accuracy: float, n_sims: int, seed: int, id_sd: float = ID_SD) -> float:
    import numpy as np

    rng = np.random.default_rng(seed)
    ppi, own = [], []
    for _ in range(n_sims):
        found = _score(_simulate(rng, accuracy=accuracy, id_sd=id_sd), "uniform", rng)
        ppi.append(_width(found.inference))
        own.append(_width(found.labels_only))
    return float(np.mean(ppi) / np.mean(own))


@bench(
    ppi__coverage_uniform=COVERAGE,
    ppi__coverage_active=COVERAGE,
    ppi__width_ratio_vs_human="<= 0.7",
    ppi__active_width_ratio_vs_uniform="<= 0.9",
    ppi__worst_width_ratio_vs_human="<= 1.02",
)
def simulated_runs() -> Iterator[Result]:
    se = math.sqrt(0.95 * 0.05 / N_COVERAGE)
    uniform, uniform_width = _coverage("uniform", N_COVERAGE, seed=1)
    yield result("ppi.coverage_uniform", uniform, "fraction", sims=N_COVERAGE,
                 mc_se=round(se, 4), budget=BUDGET, persons=PERSONS)  # fmt: skip
    active, active_width = _coverage("active", N_COVERAGE, seed=2)
    yield result("ppi.coverage_active", active, "fraction", sims=N_COVERAGE,
                 mc_se=round(se, 4), budget=BUDGET, persons=PERSONS)  # fmt: skip
    ratio = _width_ratio_vs_human(0.9, N_WIDTH, seed=3)
    # What no label reduces — the identities' own spread — bounds the gain: with twice the
    # identity spread the ratio is shown beside it.
    wider = _width_ratio_vs_human(0.9, N_WIDTH, seed=3, id_sd=2 * ID_SD)
    yield result("ppi.width_ratio_vs_human", ratio, "ratio", sims=N_WIDTH, accuracy=0.9,
                 human_labels=BUDGET, identity_sd=ID_SD,
                 ratio_at_identity_sd_x2=round(wider, 3))  # fmt: skip
    yield result("ppi.active_width_ratio_vs_uniform", active_width / uniform_width, "ratio",
                 sims=N_COVERAGE, uniform_width=round(uniform_width, 2),
                 active_width=round(active_width, 2))  # fmt: skip
    ratios = {
        acc: _width_ratio_vs_human(acc, N_WIDTH // 3, seed=4 + k)
        for k, acc in enumerate((0.55, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99))
    }
    worst = max(ratios, key=lambda acc: ratios[acc])
    yield result("ppi.worst_width_ratio_vs_human", ratios[worst], "ratio", at_accuracy=worst,
                 sims_per_accuracy=N_WIDTH // 3,
                 ratios={str(k): round(v, 3) for k, v in ratios.items()})  # fmt: skip


# --- real annotator errors: faces on PAIRS ----------------------------------------------------


@functools.cache
def _faces_on_pairs() -> tuple[Any, Any, Any] | None:
    """(truth feminine 0/1, faces' feminine 0/1, faces gave a gender 0/1) per bundled PAIRS
    photograph, labelled once per bench run; None without the faces extra."""
    import numpy as np

    from bench.faces import _annotate_all, _faces_annotator, _pairs_rgb
    from diptych.datasets import pairs

    model = _faces_annotator()
    if model is None:
        return None
    images = pairs.images()
    _, labels = _annotate_all(model, [(_pairs_rgb(i), ["single"]) for i in images])
    said = [label.label for (label,) in labels]
    truth_f = np.array([i.perceived_gender == "feminine" for i in images], dtype=float)
    said_f = np.array([s == "feminine" for s in said], dtype=float)
    gave = np.array([s in ("masculine", "feminine") for s in said], dtype=float)
    return truth_f, said_f, gave


@bench(ppi__pairs_faces_coverage=COVERAGE)
def pairs_faces() -> Iterator[Result]:
    import numpy as np

    from diptych.core.metrics.intervals import SHARE_RANGE
    from diptych.core.metrics.ppi import (
        draw_sample,
        prediction_powered_ratio,
        uniform_probabilities,
    )

    labelled = _faces_on_pairs()
    if labelled is None:
        why = "the faces annotator is not installed (pip install diptych[faces])"
        yield result("ppi.pairs_faces_coverage", math.nan, "fraction", skipped=why)
        return
    truth, said, gave = labelled
    n = truth.size
    # Each draw is a run of n photographs drawn from PAIRS with their real faces labels (the
    # interval speaks for photographs like these), 50 of them labelled by "people" (the truth);
    # the target is the feminine share of the PAIRS photographs.
    target = float(truth.mean())
    rng = np.random.default_rng(5)
    pi = uniform_probabilities(n, 50)
    hits, ratios = 0, []
    ones = np.ones(n)
    guess = np.where(gave == 1, said, 0.5)  # an abstention predicts one half
    for _ in range(N_PAIRS):
        take = rng.integers(0, n, n)
        drawn = draw_sample(pi, "uniform", rng)
        found = prediction_powered_ratio(
            truth[take], ones, guess[take], ones, drawn, pi, {"image": np.arange(n)},
            bounds=SHARE_RANGE,
        )  # fmt: skip
        hits += found.inference.ci_low <= target <= found.inference.ci_high
        ratios.append(found.width_ratio)
    se = math.sqrt(0.95 * 0.05 / N_PAIRS)
    yield result("ppi.pairs_faces_coverage", hits / N_PAIRS, "fraction", draws=N_PAIRS,
                 human_labels=50, photographs=n, mc_se=round(se, 4),
                 faces_accuracy=round(float(((said == truth) & (gave == 1)).mean()), 3),
                 mean_width_ratio_vs_human=round(float(np.nanmean(ratios)), 3))  # fmt: skip

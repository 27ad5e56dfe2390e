"""Prediction-powered scores: does the interval cover, and what is a human label worth?

Simulated ``pst`` runs (paired setting, 16 × 16 crossed identities, 3 images a scene: 1,536
persons) with a known truth — each scene's chance of the stereotyped perception is
(1 + 0.3 + a_i + b_j)/2 with identity effects a, b ~ N(0, 0.05), 3% of persons cannot be told —
are labelled by a simulated annotator on every person, and by "people" (the truth) on a sample
of 100 drawn by the design. The figure is the paired STS over identities
(:func:`diptych.core.metrics.uncertainty.ppi.estimate.prediction_powered_ratio` over both
identity lists); the truth is 100 × 0.3.

* ``ppi.coverage_uniform`` / ``ppi.coverage_active`` — share of 2,000 runs whose 95% interval
  holds the truth (want 0.93–0.97; Monte Carlo SE about 0.005). The annotator's errors differ by
  gender and identity, the hard case: a person is "hard" (45% errors, confidence about 0.55)
  with a chance three times higher for persons seen as feminine (24% against 8%) and varying by
  identity (× 0.5–1.5), else "easy" (1% errors, confidence about 0.99) — about 93% accurate.
* ``ppi.width_ratio_vs_human`` — mean width of the prediction-powered interval over the human
  labels' own (the same 100 labels, λ = 0), the annotator 90% accurate (errors at random); with
  twice the identity spread (a floor no label lowers) beside it. Ratios carry their MC error.
* ``ppi.active_width_ratio_vs_uniform`` — mean width, active over uniform, hard-case annotator.
* ``ppi.worst_width_ratio_vs_human`` — the largest mean width ratio over annotators 55%–99%
  accurate (power tuning: never worse than the labels alone).
* ``ppi.coverage_two_batches`` — two independent uniform batches of 50 over the same run,
  combined as the analysis combines them (each labelled person weighted by its probability of
  being in at least one, 1 − (1 − π)²): coverage over 2,000 runs.
* ``ppi.coverage_gap`` — the prediction-powered gap paired − single (single images of the same
  identities, 6 each, stereotyped share 0.1 against 0.3; one uniform sample of 100 over both
  settings): coverage of the truth given the identities (the gap resamples images), 2,000 runs.
* ``ppi.coverage_identity_slices`` — the paired micro STS of single identities (48 persons
  each, about 3 of them labelled at 100 labels a run): coverage of the truth given the
  identities over 600 runs × 4 identities (want ≥ 0.93: with so few labels the interval is
  conservative — at most labelled − 1 degrees of freedom, Clopper–Pearson at a bound — and none
  is given below two labels).
* ``ppi.coverage_small_budgets`` / ``ppi.side_miss_small_budgets`` (and ``_high_coverage``):
  the measurement draw stopped at 40, 60 and 90 labels (``bench/ppi/budgets.py``).
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
from typing import Any

from bench.harness import Result, bench, result
from bench.ppi.simulation import (
    ID_SD,
    IMAGES_SINGLE,
    MU,
    MU_SINGLE,
    N_ID,
    PERSONS,
    SimulatedRun,
    paired_sts,
    simulate,
    simulate_single,
)

COVERAGE = "in 0.93..0.97"
N_COVERAGE = 2000
N_WIDTH = 300
N_PAIRS = 600
N_SLICE_RUNS = 600
BUDGET = 100


def _score(run: SimulatedRun, design: str, rng: Any, lam: float | None = None) -> Any:
    from diptych.core.metrics.uncertainty.ppi.estimate import (
        active_probabilities,
        draw_sample,
        uniform_probabilities,
    )

    n = run.stereo.size
    if design == "active":
        pi = active_probabilities(run.uncertainty, BUDGET)
    else:
        pi = uniform_probabilities(n, BUDGET)
    drawn = draw_sample(pi, design, rng)  # type: ignore[arg-type]
    return paired_sts(run, drawn, pi, lam=lam)


def _width(inf: Any) -> float:
    return float(inf.ci_high - inf.ci_low)


def _coverage(design: str, n_sims: int, seed: int) -> tuple[float, Any]:
    import numpy as np

    rng = np.random.default_rng(seed)
    hits, widths = 0, []
    for _ in range(n_sims):
        found = _score(simulate(rng), design, rng)
        hits += found.inference.ci_low <= 100 * MU <= found.inference.ci_high
        widths.append(_width(found.inference))
    return hits / n_sims, np.array(widths)


def _width_ratio_vs_human(
    accuracy: float, n_sims: int, seed: int, id_sd: float = ID_SD
) -> tuple[float, float]:
    """The ratio of mean widths, prediction-powered over the labels' own, and its Monte Carlo
    standard error (the delta method's for a ratio of paired means)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    ppi, own = [], []
    for _ in range(n_sims):
        found = _score(simulate(rng, accuracy=accuracy, id_sd=id_sd), "uniform", rng)
        ppi.append(_width(found.inference))
        own.append(_width(found.labels_only))
    a, b = np.array(ppi), np.array(own)
    ratio = float(a.mean() / b.mean())
    return ratio, float(np.std(a - ratio * b) / math.sqrt(n_sims) / b.mean())


@bench(
    ppi__coverage_uniform=COVERAGE,
    ppi__coverage_active=COVERAGE,
    ppi__width_ratio_vs_human="<= 0.7",
    ppi__active_width_ratio_vs_uniform="<= 0.9",
    ppi__worst_width_ratio_vs_human="<= 1.02",
)
def simulated_runs() -> Iterator[Result]:
    import numpy as np

    se = math.sqrt(0.95 * 0.05 / N_COVERAGE)
    uniform, uniform_width = _coverage("uniform", N_COVERAGE, seed=1)
    yield result("ppi.coverage_uniform", uniform, "fraction", sims=N_COVERAGE,
                 mc_se=round(se, 4), budget=BUDGET, persons=PERSONS)  # fmt: skip
    active, active_width = _coverage("active", N_COVERAGE, seed=2)
    yield result("ppi.coverage_active", active, "fraction", sims=N_COVERAGE,
                 mc_se=round(se, 4), budget=BUDGET, persons=PERSONS)  # fmt: skip
    ratio, ratio_se = _width_ratio_vs_human(0.9, N_WIDTH, seed=3)
    # What no label reduces — the identities' own spread — bounds the gain: with twice the
    # identity spread the ratio is shown beside it.
    wider, _ = _width_ratio_vs_human(0.9, N_WIDTH, seed=3, id_sd=2 * ID_SD)
    yield result("ppi.width_ratio_vs_human", ratio, "ratio", sims=N_WIDTH, accuracy=0.9,
                 mc_se=round(ratio_se, 4), human_labels=BUDGET, identity_sd=ID_SD,
                 ratio_at_identity_sd_x2=round(wider, 3))  # fmt: skip
    # Two independent sets of runs: the ratio's relative errors add in quadrature.
    active_ratio = float(active_width.mean() / uniform_width.mean())
    spread = [float(np.std(w) / w.mean()) for w in (active_width, uniform_width)]
    active_se = active_ratio * math.hypot(*spread) / math.sqrt(N_COVERAGE)
    yield result("ppi.active_width_ratio_vs_uniform", active_ratio, "ratio", sims=N_COVERAGE,
                 mc_se=round(active_se, 4), uniform_width=round(float(uniform_width.mean()), 2),
                 active_width=round(float(active_width.mean()), 2))  # fmt: skip
    ratios = {
        acc: _width_ratio_vs_human(acc, N_WIDTH // 3, seed=4 + k)
        for k, acc in enumerate((0.55, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99))
    }
    worst = max(ratios, key=lambda acc: ratios[acc][0])
    yield result("ppi.worst_width_ratio_vs_human", ratios[worst][0], "ratio", at_accuracy=worst,
                 mc_se=round(ratios[worst][1], 4), sims_per_accuracy=N_WIDTH // 3,
                 ratios={str(k): round(v[0], 3) for k, v in ratios.items()})  # fmt: skip


# --- several batches, and gaps ----------------------------------------------------------------


def _two_batches_once(rng: Any, per_batch: int) -> tuple[Any, float]:
    """One simulated run labelled by two independent uniform batches, combined as the analysis
    combines them (:func:`diptych.core.metrics.uncertainty.ppi.batches.combine_batches`): the figure
    and the labelled persons' probability."""
    import numpy as np

    from diptych.core.labels import Sampling
    from diptych.core.metrics.uncertainty.ppi.batches import combine_batches
    from diptych.core.metrics.uncertainty.ppi.estimate import draw_sample, uniform_probabilities

    run = simulate(rng)
    n = run.stereo.size
    pi = uniform_probabilities(n, per_batch)
    drawn = [draw_sample(pi, "uniform", rng) for _ in range(2)]
    design = combine_batches(
        (int(i), Sampling("uniform", float(pi[0]), f"batch-{k}"))
        for k, d in enumerate(drawn)
        for i in np.flatnonzero(d)
    )
    labelled = drawn[0] | drawn[1]
    probability = np.ones(n)
    for i in np.flatnonzero(labelled):
        probability[i] = design.probability(int(i))
    found = paired_sts(run, labelled, probability)
    return found, float(probability[labelled].mean())


def _gap_once(rng: Any) -> tuple[Any, float] | None:
    """One simulated run of both settings, one uniform sample of BUDGET over all its persons:
    the prediction-powered gap paired − single (images resampled, as the analysis does) and its
    truth given the identities; None where no single person was drawn."""
    import numpy as np

    from diptych.core.metrics.uncertainty.intervals import STS_DIFFERENCE_RANGE
    from diptych.core.metrics.uncertainty.ppi.estimate import (
        draw_sample,
        prediction_powered_combination,
        uniform_probabilities,
    )

    paired = simulate(rng)
    single = simulate_single(rng, paired)
    n_p, n_s = paired.stereo.size, single.stereo.size
    pi = uniform_probabilities(n_p + n_s, BUDGET)
    drawn = draw_sample(pi, "uniform", rng)
    terms = []
    for sign, run, take, images in (
        (1.0, paired, slice(0, n_p), np.arange(n_p) // 2),
        (-1.0, single, slice(n_p, n_p + n_s), n_p + np.arange(n_s)),
    ):
        if not drawn[take].any():
            return None
        found = paired_sts(run, drawn[take], pi[take])
        terms.append((sign, found, {"image": images.tolist()}))
    gap = prediction_powered_combination(terms, scale=100.0, bounds=STS_DIFFERENCE_RANGE)
    truth = 100.0 * (float((2 * paired.chance - 1).mean()) - float((2 * single.chance - 1).mean()))
    return gap, truth


@bench(ppi__coverage_two_batches=COVERAGE, ppi__coverage_gap=COVERAGE)
def combined_figures() -> Iterator[Result]:
    import numpy as np

    se = math.sqrt(0.95 * 0.05 / N_COVERAGE)
    rng = np.random.default_rng(6)
    hits, widths, union = 0, [], []
    for _ in range(N_COVERAGE):
        found, mean_pi = _two_batches_once(rng, BUDGET // 2)
        hits += found.inference.ci_low <= 100 * MU <= found.inference.ci_high
        widths.append(found.width_ratio)
        union.append(mean_pi)
    yield result("ppi.coverage_two_batches", hits / N_COVERAGE, "fraction", sims=N_COVERAGE,
                 mc_se=round(se, 4), batches=2, per_batch=BUDGET // 2, persons=PERSONS,
                 union_probability=round(float(np.mean(union)), 5),
                 mean_width_ratio_vs_human=round(float(np.mean(widths)), 3))  # fmt: skip
    rng = np.random.default_rng(7)
    hits, done, ratios = 0, 0, []
    for _ in range(N_COVERAGE):
        found = _gap_once(rng)
        if found is None:
            continue
        gap, truth = found
        done += 1
        hits += gap.inference.ci_low <= truth <= gap.inference.ci_high
        ratios.append(gap.width_ratio)
    yield result("ppi.coverage_gap", hits / done, "fraction", sims=done,
                 skipped_no_single_label=N_COVERAGE - done, mc_se=round(se, 4),
                 human_labels=BUDGET, single_persons=2 * N_ID * IMAGES_SINGLE,
                 truth_gap=round(100 * (MU - MU_SINGLE), 1),
                 mean_width_ratio_vs_human=round(float(np.nanmean(ratios)), 3))  # fmt: skip


def _identity_slices_once(rng: Any, identities: int) -> list[tuple[Any, float]]:
    """The prediction-powered paired micro STS of the first ``identities`` masculine identities
    (images resampled, as the analysis does; few labels each) of one simulated run with one
    uniform sample of BUDGET, and each one's truth given the identities."""
    import numpy as np

    from diptych.core.metrics.uncertainty.intervals import STS_RANGE
    from diptych.core.metrics.uncertainty.ppi.estimate import (
        draw_sample,
        prediction_powered_ratio,
        uniform_probabilities,
    )

    run = simulate(rng)
    n = run.stereo.size
    pi = uniform_probabilities(n, BUDGET)
    drawn = draw_sample(pi, "uniform", rng)
    masculine_person = np.tile([1, 0], n // 2).astype(bool)
    out = []
    for identity in range(identities):
        mine = masculine_person & (run.rows == identity)
        if not drawn[mine].any():
            continue
        try:
            found = prediction_powered_ratio(
                run.stereo[mine], run.told[mine], run.pred[mine], run.pred_told[mine],
                drawn[mine], pi[mine], {"image": (np.arange(n) // 2)[mine]},
                scale=100.0, bounds=STS_RANGE,
            )  # fmt: skip
        except ValueError:
            continue  # nobody's gender told among its labelled persons: no figure
        out.append((found, 100.0 * float((2 * run.chance[mine] - 1).mean())))
    return out


@bench(ppi__coverage_identity_slices=">= 0.93")
def identity_slices() -> Iterator[Result]:
    import numpy as np

    rng = np.random.default_rng(8)
    hits = total = no_interval = 0
    labelled = []
    for _ in range(N_SLICE_RUNS):
        for found, truth in _identity_slices_once(rng, 4):
            if not found.inference.has_interval:
                no_interval += 1
                continue
            total += 1
            hits += found.inference.ci_low <= truth <= found.inference.ci_high
            labelled.append(found.n_labelled)
    coverage = hits / total
    yield result("ppi.coverage_identity_slices", coverage, "fraction", runs=N_SLICE_RUNS,
                 slices=total, slices_without_interval=no_interval,
                 mc_se=round(math.sqrt(coverage * (1 - coverage) / total), 4),
                 median_labelled=float(np.median(labelled)), human_labels=BUDGET)  # fmt: skip


@bench(
    ppi__coverage_small_budgets=">= 0.94",
    ppi__side_miss_small_budgets="<= 0.03",
    ppi__coverage_small_budgets_high_coverage=">= 0.94",
    ppi__side_miss_small_budgets_high_coverage="<= 0.03",
)
def small_budgets() -> Iterator[Result]:
    from bench.ppi.budgets import small_budget_figures

    yield from small_budget_figures()


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

    from diptych.core.metrics.uncertainty.intervals import SHARE_RANGE
    from diptych.core.metrics.uncertainty.ppi.estimate import (
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

"""Prediction-powered intervals at small budgets, in two regimes (``bench/ppi/figures.py`` declares
the figures; ``bench/measure.py`` walks the second regime too).

The draw is the measurement mode's (:mod:`diptych.core.metrics.uncertainty.ppi.draw`: active
probabilities for a budget of 120, a seeded visiting order, each labelled person weighted by
its visited probability (m/N)·π), stopped at 40, 60 and 90 labels — a stop that does not depend
on what the labels say — with the truth playing the reviewer. The figure is the paired STS over
both identity lists, as the analysis computes it; the truth is 100 × 0.3 (the identities are
resampled). A budget of 120 lets every draw reach 90 labels.

* **Faces-like** (``bench/ppi/simulation.py``'s hard case): 16 × 16 identities, 3 images a scene
  (1,536 persons); a "hard" person (45% errors at confidence about 0.55) three times as often
  where seen as feminine, × 0.5–1.5 by identity, else 1% errors at 0.99; the annotator abstains
  on 2%.
* **High coverage**: 16 × 16 identities, 4 images a scene (2,048 persons); the annotator labels
  95% of them (abstains on 5%), its errors concentrated in a quarter of "hard" persons (20%
  errors at confidence about 0.8; 0.5% errors at 0.99 elsewhere). Its rare confident errors,
  drawn with small probabilities, are what the interval must not miss: one of them in the
  sample moves the estimate by several standard errors of the draws without one.

Figures (``ppi.coverage_small_budgets`` / ``ppi.side_miss_small_budgets`` and their
``_high_coverage`` twins): the lowest two-sided coverage of the 95% interval over the three
stops (want ≥ 0.94), and the largest share of intervals wholly on one side of the truth (want
≤ 0.03 each side), over 6,000 draws (Monte Carlo SE about 0.003 and 0.002). The side miss is the
largest of six shares, several near the target: 2,000 draws (SE 0.0035) could not tell 0.027 from
0.031, so the benchmark draws three times as many (7–9 minutes a regime on a shared 2-core
machine).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from bench.harness import Result, result
from bench.ppi.simulation import TRUTH, paired_sts_of_draw, simulate, simulate_high_coverage

N_DRAWS = 6000
BUDGET = 120
STOPS = (40, 60, 90)


def _stops(run: Any, seed: int) -> dict[int, Any]:
    """The figure after 40, 60 and 90 labels of one measurement draw of ``run``."""
    from diptych.core.metrics.uncertainty.ppi.draw import VisitRecord, plan_draw
    from diptych.core.metrics.uncertainty.ppi.estimate import active_probabilities

    pi = active_probabilities(run.uncertainty, BUDGET)
    plan = plan_draw(pi, seed)
    records: dict[int, VisitRecord] = {}
    out = {}
    for k, (rank, person) in enumerate(plan.served(), start=1):
        place = plan.record(rank)
        records[person] = VisitRecord(
            rank, place["after"], place["visited"], place["population"], float(pi[person])
        )
        if k in STOPS:
            out[k] = paired_sts_of_draw(run, records).inference
        if k >= STOPS[-1]:
            break
    return out


def _regime(name: str, simulate: Any, seed: int) -> Iterator[Result]:
    import numpy as np

    rng = np.random.default_rng(seed)
    rows: dict[int, list[tuple[float, float, float, float]]] = {k: [] for k in STOPS}
    for draw in range(N_DRAWS):
        for k, inf in _stops(simulate(rng), seed=draw).items():
            rows[k].append((inf.value, inf.se, inf.ci_low, inf.ci_high))
    by_stop = {}
    for k in STOPS:
        v, se, low, high = np.array(rows[k]).T
        by_stop[k] = {
            "draws": len(v),
            "coverage": round(float(np.mean((low <= TRUTH) & (TRUTH <= high))), 4),
            "wholly_below": round(float(np.mean(high < TRUTH)), 4),
            "wholly_above": round(float(np.mean(low > TRUTH)), 4),
            "z_sd": round(float(np.std((v - TRUTH) / se)), 3),
            "mean_width": round(float(np.mean(high - low)), 2),
        }
    worst = min(by_stop, key=lambda k: by_stop[k]["coverage"])
    side = max(
        ((k, s) for k in STOPS for s in ("wholly_below", "wholly_above")),
        key=lambda ks: by_stop[ks[0]][ks[1]],
    )
    stops = {str(k): v for k, v in by_stop.items()}
    yield result(f"ppi.coverage_small_budgets{name}", by_stop[worst]["coverage"], "fraction",
                 at_labels=worst, mc_se=round(math.sqrt(0.95 * 0.05 / N_DRAWS), 4),
                 budget=BUDGET, stops=stops)  # fmt: skip
    yield result(f"ppi.side_miss_small_budgets{name}", by_stop[side[0]][side[1]], "fraction",
                 at_labels=side[0], side=side[1],
                 mc_se=round(math.sqrt(0.025 * 0.975 / N_DRAWS), 4))  # fmt: skip


def small_budget_figures() -> Iterator[Result]:
    """Both regimes' figures (module docstring)."""
    yield from _regime("", simulate, seed=31)
    yield from _regime("_high_coverage", simulate_high_coverage, seed=32)

"""The Review screen's measurement mode: does "enough" decide wrongly, and do the forecasts hold?

A simulated paired ``pst`` run (16 × 16 crossed identities, 3 images a scene: 1,536 persons)
with a known truth — each scene's chance of the stereotyped perception is (1 + 0.3 + a_i + b_j)/2,
identity effects N(0, 0.05), 3% of persons cannot be told; the paired STS is 100 × 0.3 = 30 —
labelled by a simulated annotator whose errors differ by gender and identity (as
``bench/ppi/simulation.py``: a person is "hard", 45% errors at confidence about 0.55, three times
as often where seen as feminine, × 0.5–1.5 by identity; else 1% errors at 0.99). The measurement
draw is the mode's own (:mod:`diptych.core.metrics.uncertainty.ppi.draw`: active probabilities for a
budget of 100, a seeded visiting order), the truth plays the reviewer, and after *every* label the
figure is computed as the run's analysis computes it
(:func:`~diptych.core.metrics.uncertainty.ppi.estimate. prediction_powered_ratio` over both identity
lists with the draw's visited probabilities) and judged as the mode judges it
(:func:`~diptych.core.metrics.uncertainty.ppi.stop.measure_status`, a gate ``below L`` at 95%),
until the draw's persons run out.

* ``measure.enough_false_rate`` — the truth at the gate's limit (L = 30): the share of runs in
  which "enough" ever declared the gate decided (either way, both false). Want ≤ 0.05 (what is
  left above it is the prediction-powered interval's own: about 0.93–0.95 of these intervals
  hold the truth at a fixed number of labels, ``ppi.coverage_active``).
* ``measure.enough_false_rate_high_coverage`` — the same in the high-coverage regime of
  ``bench/ppi/budgets.py`` (2,048 persons, the annotator labels 95%, its errors in a quarter of
  hard persons), 600 runs: want ≤ 0.05. A benchmark of its own, so that its name selects it
  alone (``bench/run.py measure.enough_false_rate_high_coverage``).

A walk computes the figure only (``labels_only=False``: the human labels' own figure, which the
mode shows beside it, decides nothing), so a look costs half of what the analysis's does.
* ``measure.peeking_false_rate`` — the same runs judged by the plain 95% interval looked at after
  every label: what "enough" would say without its boundary (no target: the reason for it).
* ``measure.enough_power`` — the limit 30 points above the truth (L = 60): the share of runs in
  which "enough" declared "shown below 60" before the draw ran out; its mean labels beside it.
* ``measure.half_width_forecast_10`` / ``_50`` — the half-width forecast after 40 labels for 10
  and 50 more, against the half-width the draw's next 10 and 50 labels gave: the ratio of their
  means over the runs that reach 90 labels (want 0.9–1.1). The same from 20 labels is printed
  beside it: there the forecast errs wide (λ and the variance's two parts rest on few labels;
  the figure narrows faster than the 1/n law says as λ settles).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from bench.harness import Result, bench, result
from bench.ppi.simulation import (
    PERSONS,
    TRUTH,
    paired_sts_of_draw,
    simulate,
    simulate_high_coverage,
)

N_NULL = 600
N_PLANTED = 200
BUDGET = 100
#: Labels the forecasts are made at: the figure's (first) and one earlier, shown beside it.
FORECAST_AT = (40, 20)


@dataclass
class _Walk:
    """What one reviewer's walk through a draw showed."""

    #: (labels, side) of the first decision of "enough" and of the plain interval, if any.
    enough: tuple[int, str] | None = None
    peeking: tuple[int, str] | None = None
    #: (labels at the forecast, more labels) → forecast half-width, and the half-width given.
    forecast: dict[tuple[int, int], float] | None = None
    actual: dict[tuple[int, int], float] | None = None


def _walk(run: Any, seed: int, limit: float, *, forecast: bool = False) -> _Walk:
    """Label the draw's persons one by one, judging the figure after each label."""

    from diptych.core.metrics.uncertainty.ppi.draw import (
        VisitRecord,
        plan_draw,
    )
    from diptych.core.metrics.uncertainty.ppi.estimate import (
        active_probabilities,
    )
    from diptych.core.metrics.uncertainty.ppi.stop import (
        GateLimit,
        expected_half_width,
        gate_decision,
        measure_status,
    )

    pi = active_probabilities(run.uncertainty, BUDGET)
    plan = plan_draw(pi, seed)
    gate = GateLimit("bench", "below", limit)
    out = _Walk(forecast={}, actual={})
    records: dict[int, VisitRecord] = {}
    for k, (rank, person) in enumerate(plan.served(), start=1):
        place = plan.record(rank)
        records[person] = VisitRecord(
            rank, place["after"], place["visited"], place["population"], float(pi[person])
        )
        if k < 2:
            continue
        try:
            found = paired_sts_of_draw(run, records, labels_only=False)
        except ValueError:
            continue
        number = found.to_dict()
        if not found.inference.has_interval:
            continue
        status = measure_status(number, "STS paired", budget=BUDGET, gate=gate)
        if out.enough is None and status.decided is not None:
            out.enough = (k, status.decided)
        plain = gate_decision(gate, *status.ci)
        if out.peeking is None and plain is not None:
            out.peeking = (k, plain)
        if forecast and out.forecast is not None and out.actual is not None:
            for at in FORECAST_AT:
                for m in (10, 50):
                    if k == at:
                        out.forecast[(at, m)] = expected_half_width(number, m)
                    if k == at + m:
                        out.actual[(at, m)] = status.half_width
        elif out.enough is not None and out.peeking is not None:
            break
    return out


@bench(
    measure__enough_false_rate="<= 0.05",
    measure__peeking_false_rate=None,
    measure__enough_power=None,
    measure__half_width_forecast_10="in 0.9..1.1",
    measure__half_width_forecast_50="in 0.9..1.1",
)
def measurement_mode() -> Iterator[Result]:
    import numpy as np

    rng = np.random.default_rng(21)
    enough: list[str] = []
    peeking = 0
    forecasts: dict[tuple[int, int], list[float]] = {}
    actuals: dict[tuple[int, int], list[float]] = {}
    for sim in range(N_NULL):
        walk = _walk(simulate(rng), seed=sim, limit=TRUTH, forecast=True)
        if walk.enough is not None:
            enough.append(walk.enough[1])
        peeking += walk.peeking is not None
        for key, given in (walk.actual or {}).items():
            if walk.forecast and key in walk.forecast:
                forecasts.setdefault(key, []).append(walk.forecast[key])
                actuals.setdefault(key, []).append(given)
    se = math.sqrt(0.05 * 0.95 / N_NULL)
    below = sum(1 for side in enough if side.startswith("shown below"))
    yield result("measure.enough_false_rate", len(enough) / N_NULL, "fraction", sims=N_NULL,
                 mc_se=round(se, 4), budget=BUDGET, persons=PERSONS,
                 looks="after every label", shown_below=below,
                 shown_above=len(enough) - below)  # fmt: skip
    yield result("measure.peeking_false_rate", peeking / N_NULL, "fraction", sims=N_NULL,
                 mc_se=round(math.sqrt(peeking / N_NULL * (1 - peeking / N_NULL) / N_NULL), 4),
                 rule="plain 95% interval, looked at after every label")  # fmt: skip
    decided, labels, wrong = 0, [], 0
    for sim in range(N_PLANTED):
        walk = _walk(simulate(rng), seed=10_000 + sim, limit=TRUTH + 30)
        if walk.enough is not None:
            if walk.enough[1].startswith("shown below"):
                decided += 1
                labels.append(walk.enough[0])
            else:
                wrong += 1
    yield result("measure.enough_power", decided / N_PLANTED, "fraction", sims=N_PLANTED,
                 limit_above_truth=30, mean_labels=round(float(np.mean(labels)), 1)
                 if labels else None, wrong_side=wrong)  # fmt: skip

    def ratio(key: tuple[int, int]) -> float:
        return float(np.mean(actuals[key]) / np.mean(forecasts[key]))

    at, early = FORECAST_AT
    for m in (10, 50):
        key = (at, m)
        yield result(f"measure.half_width_forecast_{m}", ratio(key), "ratio",
                     runs=len(actuals[key]), forecast_at_labels=at,
                     mean_forecast=round(float(np.mean(forecasts[key])), 2),
                     mean_actual=round(float(np.mean(actuals[key])), 2),
                     ratio_from_20_labels=round(ratio((early, m)), 3))  # fmt: skip


@bench(measure__enough_false_rate_high_coverage="<= 0.05")
def false_rate_high_coverage() -> Iterator[Result]:
    """The null walk in the high-coverage regime, a benchmark of its own (it is the slowest:
    every look of 600 draws through 2,048 persons), selectable by its figure's name."""
    import numpy as np

    rng = np.random.default_rng(22)
    sides: list[str] = []
    for sim in range(N_NULL):
        walk = _walk(simulate_high_coverage(rng), seed=20_000 + sim, limit=TRUTH)
        if walk.enough is not None:
            sides.append(walk.enough[1])
    below = sum(1 for side in sides if side.startswith("shown below"))
    yield result("measure.enough_false_rate_high_coverage", len(sides) / N_NULL, "fraction",
                 sims=N_NULL, mc_se=round(math.sqrt(0.05 * 0.95 / N_NULL), 4), budget=BUDGET,
                 persons=2048, looks="after every label", shown_below=below,
                 shown_above=len(sides) - below)  # fmt: skip

"""Standings: how often the rank intervals of ``diptych standings`` hold the true ranks.

Simulated Paired Stereotype Tests with a known truth, no model: three models answer one plan
of 6 masculine- × 6 feminine-stereotyped identities crossed in 36 scenes, each scene asked in
both orders twice (8 persons a scene). A person's Stereo is +1 with chance (1 + s)/2, where s is
the model's true STS/100 plus the identities' effects — one draw per identity shared by every
model (what the identities are) and one per model and identity (how each model takes them),
both normal with mean 0 — so the models' true STS over identities like these are exactly the
planted values. Each replication draws new identities (the units the interval speaks for) and
new answers, and ranks the three models with :func:`diptych.core.standings.rank_table`, exactly
as ``diptych standings`` does.

A rank interval covers when it holds every rank its model's true STS could take (with ties,
every rank among the tied); the figure is the share of replications in which every model's
interval covers at once, with its Monte Carlo error:

* ``standings.rank_interval_coverage``: every model planted equal (true STS 40 each), where the
  intervals' guarantee is tightest — each must run over every rank (want in 0.93..0.97);
* ``standings.rank_interval_coverage_spread``: true STS 60, 40 and 20, neighbours apart by
  about two and a half standard errors of their difference (about 8 points in this design),
  where a rank is sometimes shown and sometimes not (want >= 0.93: the guarantee is a floor,
  met with room where models differ);
* ``standings.rank_shown_rate_spread``: the share of the spread's replications in which every
  rank is shown exactly (each interval one rank): how often the design tells all three apart.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator

from bench.harness import Result, bench, result

N_REPS = 2000
N_MASC = N_FEM = 6
#: Persons of each identity in a scene: both orders, two samples each.
PER_SIDE = 4
SD_IDENTITY = 0.15
SD_MODEL_IDENTITY = 0.1


def _replication(rng: object, truths: list[float]) -> list[tuple[float, int, int]]:
    """One simulated plan: each model's (true STS, rank interval low, high)."""
    import numpy as np

    from diptych.core.standings import FigureSample, Measured, rank_table

    r: np.random.Generator = rng  # type: ignore[assignment]
    a = r.normal(0.0, SD_IDENTITY, N_MASC)
    b = r.normal(0.0, SD_IDENTITY, N_FEM)
    cells = [(f"m{i}", f"f{j}") for i in range(N_MASC) for j in range(N_FEM)]
    unit_of = {c: {"masculine identity": c[0], "feminine identity": c[1]} for c in cells}
    measured = []
    for k, truth in enumerate(truths):
        c = r.normal(0.0, SD_MODEL_IDENTITY, N_MASC)
        d = r.normal(0.0, SD_MODEL_IDENTITY, N_FEM)
        values: list[float] = []
        where: list[Hashable] = []
        for i in range(N_MASC):
            for j in range(N_FEM):
                # The masculine person's and the feminine person's chance of being drawn
                # with their stereotype, each moved by its own identity's effects.
                for s in (truth / 100 + a[i] + c[i], truth / 100 + b[j] + d[j]):
                    p = min(0.99, max(0.01, (1 + s) / 2))
                    plus = r.random(PER_SIDE) < p
                    values += [1.0 if x else -1.0 for x in plus]
                    where += [cells[i * N_FEM + j]] * PER_SIDE
        sample = FigureSample(
            model=f"model{k}",
            figure="STS paired",
            design="bench",
            design_label="simulated PST",
            values=values,
            units={
                "masculine identity": [w[0] for w in where],  # type: ignore[index]
                "feminine identity": [w[1] for w in where],  # type: ignore[index]
            },
            cells=where,
            cell_units=unit_of,  # type: ignore[arg-type]
        )
        measured.append(Measured(f"run{k}", float(k), "simulated", "1", {"k": k}, (), sample))
    table, _ = rank_table(measured, n_boot=200, seed=0)
    by_model = {s.measured.sample.model: (s.rank_low, s.rank_high) for s in table}
    return [(truth, *by_model[f"model{k}"]) for k, truth in enumerate(truths)]


def _covers(found: list[tuple[float, int, int]]) -> bool:
    """Every interval holds every rank its model's truth could take, ties included."""
    truths = [t for t, _, _ in found]
    for truth, low, high in found:
        best = 1 + sum(t > truth for t in truths)
        worst = len(truths) - sum(t < truth for t in truths)
        if low > best or high < worst:
            return False
    return True


def _rates(truths: list[float], n: int, seed: int) -> tuple[float, float]:
    import numpy as np

    rng = np.random.default_rng(seed)
    covered = shown = 0
    for _ in range(n):
        found = _replication(rng, truths)
        covered += _covers(found)
        shown += all(low == high for _, low, high in found)
    return covered / n, shown / n


def _mc(rate: float, n: int) -> float:
    return round(math.sqrt(rate * (1 - rate) / n), 4)


@bench(
    standings__rank_interval_coverage="in 0.93..0.97",
    standings__rank_interval_coverage_spread=">= 0.93",
    standings__rank_shown_rate_spread=None,
)
def rank_interval_coverage() -> Iterator[Result]:
    equal, _ = _rates([40.0, 40.0, 40.0], N_REPS, 1)
    yield result("standings.rank_interval_coverage", equal, "fraction", reps=N_REPS,
                 mc_se=_mc(equal, N_REPS), truths="STS 40, 40, 40",
                 identities=f"{N_MASC}x{N_FEM}")  # fmt: skip
    spread, shown = _rates([60.0, 40.0, 20.0], N_REPS, 2)
    yield result("standings.rank_interval_coverage_spread", spread, "fraction", reps=N_REPS,
                 mc_se=_mc(spread, N_REPS), truths="STS 60, 40, 20")  # fmt: skip
    yield result("standings.rank_shown_rate_spread", shown, "fraction", reps=N_REPS,
                 mc_se=_mc(shown, N_REPS), truths="STS 60, 40, 20")  # fmt: skip

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
* ``standings.rank_interval_coverage_decided``: every model planted equal, the first bought as
  ``audit run --until-decided`` buys it — its persons in a random order, ten looks, its gate
  "below 80" decided on the anytime-valid interval of the looks (each look's t interval on the
  logit scale, its df no more than its fewest identities less one, Pocock-type spending by
  information) — and ranked on the look it stopped at with the interval it decided on
  (:mod:`diptych.core.standings.decided`); want >= 0.93, the rank intervals as safe with a run
  decided early mixed in. ``standings.decided_early_rate`` is the share of its replications in
  which that run stopped before its design was complete.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator

from bench.harness import Result, bench, result

N_REPS = 2000
#: Replications of the run decided early: each buys up to nine looks' figures besides.
N_DECIDED = 1000
N_MASC = N_FEM = 6
#: Persons of each identity in a scene: both orders, two samples each.
PER_SIDE = 4
SD_IDENTITY = 0.15
SD_MODEL_IDENTITY = 0.1


#: The gate the first model of ``rank_interval_coverage_decided`` is bought until it decides.
GATE_BELOW = 80.0
LOOKS = 10


def _until_decided(sample: object, order: object) -> tuple[object, object]:
    """The sample of a model bought in ``LOOKS`` batches in the random ``order`` until its gate
    is decided, and the interval it was decided on (None where the design was bought whole:
    its figure is then read on the fixed design, as a run complete at its last look is)."""
    import dataclasses
    import math

    from diptych.core.audit.sequential import Untested
    from diptych.core.metrics.uncertainty.intervals import STS_RANGE, IntervalRecipe
    from diptych.core.metrics.uncertainty.precision import LOOK_MIN_UNITS
    from diptych.core.metrics.uncertainty.resampling import mean_over_units
    from diptych.core.metrics.uncertainty.sequential import AnytimeInterval, spending_shares
    from diptych.core.standings import DecidedInterval, FigureSample

    s: FigureSample = sample  # type: ignore[assignment]
    idx: list[int] = list(order)  # type: ignore[call-overload]
    recipes: list[IntervalRecipe | None] = []
    fractions: list[float] = []
    for look in range(1, LOOKS):
        kept = sorted(idx[: len(idx) * look // LOOKS])
        part = dataclasses.replace(
            s,
            values=[s.values[k] for k in kept],
            units={name: [u[k] for k in kept] for name, u in s.units.items()},
            cells=[s.cells[k] for k in kept],
        )
        fig = mean_over_units(part.values, part.units, scale=100.0, bounds=STS_RANGE)
        fewest = min(fig.units.values())
        fractions.append(look / LOOKS)
        recipe = None
        if fewest >= LOOK_MIN_UNITS and fig.has_interval and fig.se > 0 and math.isfinite(fig.se):
            df = min(fig.df, float(fewest - 1))
            recipe = IntervalRecipe.t(fig.value, fig.se, df, bounds=STS_RANGE)
        recipes.append(recipe)
        shares = spending_shares(fractions, [r.se**2 if r else None for r in recipes])
        if not any(r is not None for r in recipes):
            continue
        # A skipped look spends nothing, as the audit's (its interval is never read).
        made = tuple(r if r is not None else Untested() for r in recipes)
        low, high = AnytimeInterval(made, tuple(shares)).interval(0.95)
        if high < GATE_BELOW or low > GATE_BELOW:
            name = f"95% anytime-valid interval, look {look} of {LOOKS}"
            return part, DecidedInterval(fig.value, low, high, name)
    return s, None


def _replication(
    rng: object, truths: list[float], *, decided: bool = False
) -> tuple[list[tuple[float, int, int]], bool]:
    """One simulated plan: each model's (true STS, rank interval low, high); with ``decided``
    the first model is bought until its gate is decided (:func:`_until_decided`)."""
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
        interval = None
        if decided and k == 0:
            sample, interval = _until_decided(sample, r.permutation(len(values)))  # type: ignore[assignment]
        measured.append(
            Measured(f"run{k}", float(k), "simulated", "1", {"k": k}, (), sample, decided=interval)  # type: ignore[arg-type]  # fmt: skip
        )
    table, _ = rank_table(measured, n_boot=200, seed=0)
    by_model = {s.measured.sample.model: (s.rank_low, s.rank_high) for s in table}
    early = measured[0].decided is not None
    return [(truth, *by_model[f"model{k}"]) for k, truth in enumerate(truths)], early


def _covers(found: list[tuple[float, int, int]]) -> bool:
    """Every interval holds every rank its model's truth could take, ties included."""
    truths = [t for t, _, _ in found]
    for truth, low, high in found:
        best = 1 + sum(t > truth for t in truths)
        worst = len(truths) - sum(t < truth for t in truths)
        if low > best or high < worst:
            return False
    return True


def _rates(
    truths: list[float], n: int, seed: int, *, decided: bool = False
) -> tuple[float, float, float]:
    """The share of ``n`` replications whose every rank interval covers, the share showing
    every rank exactly, and the share whose first model stopped early (with ``decided``)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    covered = shown = early = 0
    for _ in range(n):
        found, stopped = _replication(rng, truths, decided=decided)
        covered += _covers(found)
        shown += all(low == high for _, low, high in found)
        early += stopped
    return covered / n, shown / n, early / n


def _mc(rate: float, n: int) -> float:
    return round(math.sqrt(rate * (1 - rate) / n), 4)


@bench(
    standings__rank_interval_coverage="in 0.93..0.97",
    standings__rank_interval_coverage_spread=">= 0.93",
    standings__rank_shown_rate_spread=None,
    standings__rank_interval_coverage_decided=">= 0.93",
    standings__decided_early_rate=None,
)
def rank_interval_coverage() -> Iterator[Result]:
    equal, _, _ = _rates([40.0, 40.0, 40.0], N_REPS, 1)
    yield result("standings.rank_interval_coverage", equal, "fraction", reps=N_REPS,
                 mc_se=_mc(equal, N_REPS), truths="STS 40, 40, 40",
                 identities=f"{N_MASC}x{N_FEM}")  # fmt: skip
    spread, shown, _ = _rates([60.0, 40.0, 20.0], N_REPS, 2)
    yield result("standings.rank_interval_coverage_spread", spread, "fraction", reps=N_REPS,
                 mc_se=_mc(spread, N_REPS), truths="STS 60, 40, 20")  # fmt: skip
    yield result("standings.rank_shown_rate_spread", shown, "fraction", reps=N_REPS,
                 mc_se=_mc(shown, N_REPS), truths="STS 60, 40, 20")  # fmt: skip
    decided, _, early = _rates([40.0, 40.0, 40.0], N_DECIDED, 3, decided=True)
    yield result("standings.rank_interval_coverage_decided", decided, "fraction",
                 reps=N_DECIDED, mc_se=_mc(decided, N_DECIDED), truths="STS 40, 40, 40",
                 gate=f"first model below {GATE_BELOW:g}, {LOOKS} looks")  # fmt: skip
    yield result("standings.decided_early_rate", early, "fraction", reps=N_DECIDED,
                 mc_se=_mc(early, N_DECIDED))  # fmt: skip

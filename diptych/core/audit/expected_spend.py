"""What buying until decided is expected to cost, before anything is bought
(``audit run --dry-run --until-decided``).

A gate's figure is planned as its probe plans it (:mod:`diptych.core.metrics.uncertainty.precision`:
the design's units and how the figure varies over them — a paper's published spread, or an earlier
run's). Audits are simulated from that plan with the figure's true value set where it is
assumed to be: every cell of the design gets its row's, its column's and its own effect, each
observation its own spread around the cell; the observations are bought in a random order and
looked at after every batch exactly as a sequential audit looks (the figure's own interval at
each look, the anytime-valid gate over the looks). The expected share of the design bought
before the gate stops, and how often it is decided, come with their Monte Carlo error.

Requests already stored count as bought at no cost: they are the first of a simulated order,
each look reads them with the batches bought so far (``reads``: the share of the design each
look reads, as the store and the audit's purchase order give it), and the share reported is the
one bought beyond them — what the command forecast would pay for.

As the audit does, a simulated audit whose looks have spent their share of the level (all of it
but the complete design's floor) buys the rest of the design at once: a look short of it could
decide nothing. Which way the decisions go is kept (``failed``), so that a forecast at an assumed
value says whether it passes or fails there.

A gate of a family is simulated alone at the level Holm gives the first gate of ``family``
(the smallest): what it is expected to cost can only be less in the family.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from diptych.core.audit.gates import GateFigure, GateRule, evaluate_gates
from diptych.core.audit.sequential import (
    DEFAULT_BATCHES,
    Look,
    anytime_figure,
    look_interval,
    looks_share_spent,
)
from diptych.core.metrics.uncertainty.components import Components
from diptych.core.metrics.uncertainty.precision import PlannedDesign
from diptych.core.metrics.uncertainty.resampling import mean_over_units

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from diptych.core.metrics.uncertainty.intervals import IntervalRecipe

#: Simulated audits per expected share: its Monte Carlo error is about 0.02.
REPLICATES = 200


@dataclass(frozen=True)
class ExpectedSpend:
    """For a gate whose figure is truly ``truth``: the mean share of the design bought before
    it stops (``share``, with ``mc_error``), beyond the requests stored before, the chance it
    is decided at all, and of that the chance it fails (``failed``; the rest passes) and the
    chance it is decided before the complete design (``early``)."""

    truth: float
    share: float
    mc_error: float
    decided: float
    replicates: int
    failed: float = 0.0
    #: The chance it is decided before the complete design.
    early: float = 0.0

    @property
    def passed(self) -> float:
        return max(self.decided - self.failed, 0.0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "truth": self.truth,
            "share": self.share,
            "mc_error": self.mc_error,
            "decided": self.decided,
            "replicates": self.replicates,
            "passed": self.passed,
            "failed": self.failed,
            "early": self.early,
        }


def _observations(
    design: PlannedDesign, comp: Components, truth: float, rng: np.random.Generator
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    """One simulated design: every observation's value, row and column (−1: none), in the
    random order they are bought."""
    import numpy as np

    sizes = design.sizes
    if design.shape == "grid":
        rows = np.repeat(np.arange(sizes[0]), sizes[1])
        cols = np.tile(np.arange(sizes[1]), sizes[0])
    elif design.shape == "diagonal":
        rows = cols = np.arange(sizes[0])
    elif design.shape == "strata":
        rows = np.concatenate([np.arange(sizes[0]), np.full(sizes[1], -1)])
        cols = np.concatenate([np.full(sizes[0], -1), np.arange(sizes[1])])
    else:
        rows, cols = np.arange(sizes[0]), np.full(sizes[0], -1)
    row_eff = rng.normal(0.0, comp.rows, max(int(rows.max()) + 1, 1))
    col_eff = rng.normal(0.0, comp.cols, max(int(cols.max()) + 1, 1))
    cell = truth + rng.normal(0.0, comp.interaction, rows.size)
    cell = cell + np.where(rows >= 0, row_eff[rows.clip(0)], 0.0)
    cell = cell + np.where(cols >= 0, col_eff[cols.clip(0)], 0.0)
    per = max(design.per_cell, 1)
    values = np.repeat(cell, per) + rng.normal(0.0, comp.within, rows.size * per)
    order = rng.permutation(values.size)
    return values[order], np.repeat(rows, per)[order], np.repeat(cols, per)[order]


def _figure(
    design: PlannedDesign,
    values: NDArray[np.float64],
    rows: NDArray[np.int64],
    cols: NDArray[np.int64],
    bounds: tuple[float, float],
) -> GateFigure | None:
    # Integer codes, −1 for none: the resampling's fast road.
    units: dict[str, Any] = {design.units[0]: rows}
    if design.shape != "clusters":
        units[design.units[1]] = cols
    try:
        number = mean_over_units(values, units, bounds=bounds).to_dict()
    except ValueError:
        return None  # a prefix holding one list only (strata): no figure yet
    fig = GateFigure.from_number(number)
    return fig if isinstance(fig, GateFigure) else None


def expected_spend(
    design: PlannedDesign,
    components: Components,
    rule: GateRule,
    truth: float,
    *,
    bounds: tuple[float, float],
    batches: int = DEFAULT_BATCHES,
    confidence: float = 0.95,
    family: int = 1,
    replicates: int = REPLICATES,
    seed: int = 0,
    stored: float = 0.0,
    reads: Sequence[float] | None = None,
) -> ExpectedSpend:
    """The expected share of the design a sequential gate buys when its figure is ``truth``
    (module docstring); ``family`` gates share the level under Holm. ``stored`` is the share of
    the design stored before, ``reads`` the share each look reads (None: ``batches`` equal
    batches from an empty store)."""
    import numpy as np

    level = 1.0 - (1.0 - confidence) / max(family, 1)
    rng = np.random.default_rng(seed)
    shares, decided, failed, early = [], 0, 0, 0
    key = (rule.part, rule.figure, rule.rule)
    for _ in range(replicates):
        values, rows, cols = _observations(design, components, truth, rng)
        total = values.size
        held = min(total, round(stored * total))
        looks: list[tuple[Look, GateFigure | None]] = []
        # Each look's own interval, made once: the looks after it do not change it.
        tested: list[IntervalRecipe | None] = []
        bought = total
        sizes = _look_sizes(total, held, batches, reads)
        k = 0
        while k < len(sizes):
            n = sizes[k]
            k += 1
            look = Look(k, n, total, {})
            fig = _figure(design, values[:n], rows[:n], cols[:n], bounds)
            looks.append((look, fig))
            if fig is not None:
                tested.append(look_interval(fig, complete=look.complete))
            combined = anytime_figure(looks, tested)
            if combined is None:
                continue
            result = evaluate_gates([rule], {key: combined}, confidence=level, family="none")
            if result[0].verdict != "inconclusive":
                bought, decided = n, decided + 1
                failed += result[0].verdict == "fail"
                early += not look.complete
                break
            if not look.complete and looks_share_spent(combined):
                # The looks' share of the level is spent: the audit buys the rest at once.
                sizes = [*sizes[:k], total]
        shares.append((bought - min(held, bought)) / total)
    mean = float(np.mean(shares))
    error = float(np.std(shares, ddof=1) / math.sqrt(len(shares))) if len(shares) > 1 else 0.0
    chances = (decided / replicates, replicates, failed / replicates, early / replicates)
    return ExpectedSpend(truth, mean, error, *chances)


def _look_sizes(total: int, held: int, batches: int, reads: Sequence[float] | None) -> list[int]:
    """How many of the simulated design's ``total`` observations each look reads, the last the
    whole design: ``reads`` as given (looks taken before on part of what is stored spent their
    level too), else equal batches, each holding the ``held`` stored at least. A look that would
    read nothing new is not taken: it would spend level on the same answers."""
    if reads is None:
        shares = [k / batches for k in range(1, batches + 1)]
    else:
        shares, held = [*reads, 1.0], 0
    sizes: list[int] = []
    for share in shares:
        n = max(held, min(total, math.ceil(share * total - 1e-9)))
        if not sizes or n > sizes[-1]:
            sizes.append(n)
    return sizes

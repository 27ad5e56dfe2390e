"""Variance components of a figure over its units: what a plan assumes
(:mod:`diptych.core.metrics.uncertainty.precision`) and what a finished run shows
(:func:`components_of`)."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from diptych.core.metrics.uncertainty.resampling import _codes, _interaction_variance

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray


@dataclass(frozen=True)
class Components:
    """How a figure varies over its units, as standard deviations on the figure's scale.

    ``rows`` / ``cols``: the spread of a row unit's / a column unit's effect on a cell's mean
    (for ``clusters``, ``rows`` is the spread of the units' means); ``interaction``: a cell's
    own effect beyond its row and column; ``within``: one observation around its cell's mean
    (divided by √(observations per cell) when the cell is averaged). ``centre`` is the value
    the figure is assumed to take: a bounded figure's interval is made on a scale without
    bounds (:mod:`diptych.core.metrics.uncertainty.intervals`), so its width depends on how near a
    bound the figure lies. ``source`` says where the values come from, for the reader."""

    rows: float
    cols: float = 0.0
    interaction: float = 0.0
    within: float = 0.0
    source: str = ""
    centre: float = 0.0
    #: The fewest units of a kind the values were read from (the identities of the shorter
    #: list), where they were read off a run: a plan does not lean on a quick look's spread.
    fewest: int | None = None

    def cell_sd(self, per_cell: int) -> float:
        """The SD of a cell's mean around its row and column effects."""
        return math.sqrt(self.interaction**2 + self.within**2 / max(per_cell, 1))

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "cols": self.cols,
            "interaction": self.interaction,
            "within": self.within,
            "centre": self.centre,
            "source": self.source,
        }


def components_of(
    values: ArrayLike,
    units: Mapping[str, Sequence[Hashable | None] | NDArray[Any]],
    *,
    source: str = "",
) -> Components:
    """The variance components of observations in the design ``units`` names (as for
    :func:`~diptych.core.metrics.uncertainty.resampling.mean_over_units`), by the method of moments:
    the within-cell mean square for ``within``, the residual mean square of the cells' means after
    an additive fit of the rows and columns for the cell's spread, and the spread of the rows'
    (columns') means less what the cells' spread puts into it. Negative estimates are 0; the
    centre is the observations' mean."""
    import numpy as np

    vals = np.asarray(values, dtype=np.float64)
    names = list(units)
    coded = [_codes(units[n]) for n in names]
    rows, n_r = coded[0]
    cols, n_c = coded[1] if len(coded) > 1 else (np.full(vals.size, -1), 0)
    # Cells: the distinct (row, column) pairs, with -1 kept apart for strata.
    keys = (rows + 1) * (n_c + 1) + (cols + 1)
    _, cell = np.unique(keys, return_inverse=True)
    cell = cell.ravel()
    k = int(cell.max()) + 1
    n_cell = np.bincount(cell, minlength=k).astype(np.float64)
    mean_cell = np.bincount(cell, weights=vals, minlength=k) / n_cell
    resid = vals - mean_cell[cell]
    within_df = vals.size - k
    within_var = float((resid**2).sum() / within_df) if within_df > 0 else 0.0
    per_cell = float(vals.size / k)
    cell_r = np.zeros(k, dtype=np.int64)
    cell_c = np.zeros(k, dtype=np.int64)
    cell_r[cell] = rows
    cell_c[cell] = cols
    both = (cell_r >= 0) & (cell_c >= 0)
    if both.any():
        grid_s = np.zeros((n_r, n_c))
        grid_n = np.zeros((n_r, n_c))
        np.add.at(grid_s, (cell_r[both], cell_c[both]), mean_cell[both])
        np.add.at(grid_n, (cell_r[both], cell_c[both]), 1.0)
        cell_ms = _interaction_variance(grid_s, grid_n) * int(both.sum())
        with np.errstate(invalid="ignore", divide="ignore"):
            row_means = grid_s.sum(axis=1) / grid_n.sum(axis=1)
            col_means = grid_s.sum(axis=0) / grid_n.sum(axis=0)
        per_row = float(grid_n.sum() / n_r)
        per_col = float(grid_n.sum() / n_c)
        row_var = max(_var(row_means) - cell_ms / per_row, 0.0)
        col_var = max(_var(col_means) - cell_ms / per_col, 0.0)
        inter_var = max(cell_ms - within_var / per_cell, 0.0)
    else:
        # Strata or clusters: each unit is one cell; its spread less the observations' share.
        row_var = max(_var(mean_cell[cell_r >= 0]) - within_var / per_cell, 0.0)
        col_var = max(_var(mean_cell[cell_c >= 0]) - within_var / per_cell, 0.0)
        inter_var = 0.0
    return Components(
        math.sqrt(row_var),
        math.sqrt(col_var),
        math.sqrt(inter_var),
        math.sqrt(within_var),
        source,
        centre=float(vals.mean()),
        fewest=min(n_r, n_c) if len(coded) > 1 else n_r,
    )


def _var(x: NDArray[np.float64]) -> float:
    import numpy as np

    x = x[np.isfinite(x)]
    return float(x.var(ddof=1)) if x.size > 1 else 0.0

"""A planned design and what simulating it tells before the run: the expected half-width of
its interval (:func:`expected_interval`), the power of a decision taken on it
(:func:`decision_power`), and the smallest design of the same shape that reaches a half-width or a
power asked for.

Each replicate draws the cells' means from the stated :class:`Components` and makes its interval
with :func:`~diptych.core.metrics.uncertainty.resampling.mean_over_units`, the function the analysis
calls, so the variance estimator, its floor, the crossed design's df rule and the t multiplier are
the real interval's (see :mod:`diptych.core.metrics.uncertainty.precision`, which plans every
headline figure of a run with them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from diptych.core.metrics.uncertainty.bootstrap import DEFAULT_CONFIDENCE
from diptych.core.metrics.uncertainty.components import Components
from diptych.core.metrics.uncertainty.intervals import UNBOUNDED
from diptych.core.metrics.uncertainty.resampling import mean_over_units
from diptych.core.resampled_units import resampled_units

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


Shape = Literal["grid", "diagonal", "strata", "clusters"]
#: The resampling design (an interval's ``design``) of a shape over two lists.
_DESIGNS = {"grid": "crossed", "strata": "stratified"}

#: Replicates per expected half-width: the Monte Carlo error is about 2–4% of it.
REPLICATES = 400
#: The most units of a kind the search for a target design tries (per list for a grid).
MAX_SEARCH = 2000
MAX_GRID = 200
#: Replicates per design tried while searching; the design found is measured with
#: :data:`REPLICATES`.
SEARCH_REPLICATES = 100
#: The power a decision should have for the effect it is planned for.
WANTED_POWER = 0.8


@dataclass(frozen=True)
class PlannedDesign:
    """The units a figure's interval will resample, before the run.

    ``units`` names each kind (one for ``clusters``, two otherwise) and ``sizes`` how many of
    each; ``per_cell`` is how many observations fall in one cell (a scene's persons over both
    orders and every sample) or one unit."""

    shape: Shape
    units: tuple[str, ...]
    sizes: tuple[int, ...]
    per_cell: int = 1
    #: What one unit is called in a sentence, plural: "identities", "images".
    noun: str = "units"

    def __post_init__(self) -> None:
        want = 1 if self.shape == "clusters" else 2
        if len(self.units) != want or len(self.sizes) != want:
            raise ValueError(f"a {self.shape} design names {want} kind(s) of unit")
        if self.shape == "diagonal" and self.sizes[0] != self.sizes[1]:
            raise ValueError("a diagonal design pairs each row with one column: sizes equal")

    @property
    def smallest_side(self) -> int:
        return min(self.sizes)

    def resized(self, n: int) -> PlannedDesign:
        """The same design with ``n`` units of each kind."""
        return replace(self, sizes=(n,) * len(self.sizes))

    def describe(self) -> str:
        """``3 × 3 identities``, ``3 + 3 identities`` (strata), ``6 paired identities``
        (diagonal), ``60 images``."""
        if self.shape == "grid":
            return f"{self.sizes[0]} × {self.sizes[1]} {self.noun}"
        if self.shape == "strata":
            return f"{self.sizes[0]} + {self.sizes[1]} {self.noun}"
        if self.shape == "diagonal":
            return f"{self.sizes[0]} pairs of {self.noun}"
        return f"{self.sizes[0]:,} {self.noun}"

    def resamples(self) -> str:
        """What the design's interval resamples, in the words every surface says it with
        (:func:`~diptych.core.resampled_units.resampled_units`): "3 masculine × 3 feminine
        identities crossed in scenes", "3 masculine and 3 feminine identities as
        separate lists", "6 pairs of identities", "60 images"."""
        if self.shape in _DESIGNS:
            return resampled_units(dict(zip(self.units, self.sizes, strict=True)),
                                   _DESIGNS[self.shape])  # fmt: skip
        return self.describe()

    def least_df(self) -> int:
        """The fewest degrees of freedom the design's interval can have (the crossed design's
        floor is the smaller list less one; a Satterthwaite combination is at least its
        smaller term's)."""
        return max(self.smallest_side - 1, 0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "shape": self.shape,
            "units": dict(zip(self.units, self.sizes, strict=True)),
            "per_cell": self.per_cell,
            "described": self.describe(),
        }


@dataclass(frozen=True)
class Expected:
    """What the interval of a design is expected to be, from :data:`REPLICATES` replicates:
    ``half_width`` is the mean of half of each interval's width as the analysis makes it
    (inside the figure's range), ``t_half_width`` the mean of t(df)·se, the half-width on the
    figure's own scale before its range is respected — what says whether the data could
    place the figure at all within its range."""

    half_width: float
    mc_error: float
    #: The df most replicates had, and the t multiplier at it.
    df: float
    t: float
    #: The mean standard error of the replicates.
    se: float
    t_half_width: float


# --- simulating a design -------------------------------------------------------------------


def _cells(design: PlannedDesign) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The row and column code of every cell (−1: the cell has no unit of that kind)."""
    import numpy as np

    if design.shape == "grid":
        r, c = design.sizes
        return np.repeat(np.arange(r), c), np.tile(np.arange(c), r)
    if design.shape == "diagonal":
        n = design.sizes[0]
        return np.arange(n), np.arange(n)
    if design.shape == "strata":
        r, c = design.sizes
        none_r, none_c = np.full(c, -1), np.full(r, -1)
        return np.concatenate([np.arange(r), none_r]), np.concatenate([none_c, np.arange(c)])
    g = design.sizes[0]
    return np.arange(g), np.full(g, -1)


def _replicate(
    design: PlannedDesign,
    comp: Components,
    rows: NDArray[np.int64],
    cols: NDArray[np.int64],
    mean: float,
    bounds: tuple[float, float],
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    """One draw of every cell's mean."""
    n_rows = max(int(rows.max()) + 1, 1)
    n_cols = max(int(cols.max()) + 1, 1)
    row_eff = rng.normal(0.0, comp.rows, n_rows)
    col_eff = rng.normal(0.0, comp.cols, n_cols)
    cell = rng.normal(0.0, comp.cell_sd(design.per_cell), rows.size)
    values = mean + cell
    values = values + (rows >= 0) * row_eff[rows.clip(0)]
    if design.shape == "strata":
        # Each list is its own stratum: a feminine identity's effect is a column's.
        values = values + (cols >= 0) * col_eff[cols.clip(0)]
    elif design.shape != "clusters":
        values = values + col_eff[cols]
    # The cells keep their spread (cutting them at the range would shrink it: a real cell's
    # mean, of ±100s say, has the spread the components state). Only a replicate whose mean
    # falls on or past a bound — rare, and a figure that cannot be there — is moved inside.
    low, high = bounds
    mean_now = float(values.mean())
    if not low < mean_now < high:
        inside = min(max(mean_now, low), high)
        margin = 1e-6 * (high - low) if math.isfinite(high - low) else 1e-6
        inside = min(max(inside, low + margin), high - margin)
        values = values + (inside - mean_now)
    out: NDArray[np.float64] = values
    return out


def _inferences(
    design: PlannedDesign,
    comp: Components,
    mean: float,
    bounds: tuple[float, float],
    confidence: float,
    replicates: int,
    seed: int,
) -> list[Any]:
    import numpy as np

    rows, cols = _cells(design)
    rng = np.random.default_rng(seed)
    units: dict[str, NDArray[np.int64]]
    if design.shape == "clusters":
        units = {design.units[0]: rows}
    else:
        units = {design.units[0]: rows, design.units[1]: cols}
    return [
        mean_over_units(
            _replicate(design, comp, rows, cols, mean, bounds, rng),
            units,
            confidence=confidence,
            bounds=bounds,
        )
        for _ in range(replicates)
    ]


@lru_cache(maxsize=512)
def expected_interval(
    design: PlannedDesign,
    components: Components,
    *,
    bounds: tuple[float, float] = UNBOUNDED,
    confidence: float = DEFAULT_CONFIDENCE,
    replicates: int = REPLICATES,
    seed: int = 0,
) -> Expected:
    """The mean half-width of the design's interval over ``replicates`` simulated runs, with
    its Monte Carlo error, the df most replicates had and its t multiplier; the figure is
    drawn around ``components.centre`` and its interval kept within ``bounds`` as the
    analysis keeps it. A design with fewer than two units of a kind has no interval:
    half-width inf."""
    from scipy.special import stdtrit

    if design.smallest_side < 2:
        return Expected(math.inf, 0.0, 0.0, math.inf, math.inf, math.inf)
    found = _inferences(design, components, components.centre, bounds, confidence, replicates, seed)
    halves = [(i.ci_high - i.ci_low) / 2 for i in found]
    finite = [h for h in halves if math.isfinite(h)]
    if len(finite) < len(halves):
        return Expected(math.inf, 0.0, 0.0, math.inf, math.inf, math.inf)
    mean = sum(finite) / len(finite)
    sd = math.sqrt(sum((h - mean) ** 2 for h in finite) / max(len(finite) - 1, 1))
    dfs = [round(i.df, 1) for i in found]
    df = max(set(dfs), key=lambda d: (dfs.count(d), -d))
    t = float(stdtrit(df, 0.5 + confidence / 2)) if df >= 1 else math.inf
    se = sum(i.se for i in found) / len(found)
    t_half = sum(t_multiplier(i.df, confidence) * i.se for i in found) / len(found)
    return Expected(mean, sd / math.sqrt(len(finite)), df, t, se, t_half)


@lru_cache(maxsize=512)
def decision_power(
    design: PlannedDesign,
    components: Components,
    effect: float,
    *,
    bounds: tuple[float, float] = UNBOUNDED,
    confidence: float = DEFAULT_CONFIDENCE,
    replicates: int = REPLICATES,
    seed: int = 0,
) -> float:
    """How often the design's interval lies wholly below 0 when the figure's true value is
    −``effect`` (a reduction of ``effect``): the power of the decision "it lowers the figure"
    taken on the real interval. 0 when the design can give no interval."""
    if design.smallest_side < 2:
        return 0.0
    found = _inferences(design, components, -effect, bounds, confidence, replicates, seed)
    return sum(1 for i in found if i.ci_high < 0) / len(found)


def _smallest(design: PlannedDesign, reaches: Any, cap: int) -> int | None:
    """The smallest n ≥ 2 for which ``reaches(design.resized(n))`` — precision grows with n —
    found by doubling from 2 and then bisecting, or None within ``cap``."""
    low, n = 1, 2
    while not reaches(design.resized(n)):
        if n >= cap:
            return None
        low, n = n, min(2 * n, cap)
    while n - low > 1:
        mid = (low + n) // 2
        if reaches(design.resized(mid)):
            n = mid
        else:
            low = mid
    return n


def search_cap(design: PlannedDesign) -> int:
    """How far a search grows a design: a grid's cells grow as the square of its lists."""
    return MAX_GRID if design.shape == "grid" else MAX_SEARCH


def smallest_design(
    design: PlannedDesign,
    components: Components,
    half_width: float,
    *,
    bounds: tuple[float, float] = UNBOUNDED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PlannedDesign | None:
    """The smallest design of the same shape (n of each kind of unit) whose expected
    half-width is at most ``half_width``; None when even the largest searched is not enough."""

    def reaches(d: PlannedDesign) -> bool:
        got = expected_interval(
            d, components, bounds=bounds, confidence=confidence, replicates=SEARCH_REPLICATES
        )
        return got.half_width <= half_width

    n = _smallest(design, reaches, search_cap(design))
    return None if n is None else design.resized(n)


def smallest_powered_design(
    design: PlannedDesign,
    components: Components,
    effect: float,
    *,
    power: float = WANTED_POWER,
    bounds: tuple[float, float] = UNBOUNDED,
    confidence: float = DEFAULT_CONFIDENCE,
    cap: int = 100,
) -> PlannedDesign | None:
    """The smallest design of the same shape whose decision has at least ``power`` for a
    reduction of ``effect``; None within ``cap`` units of each kind."""

    def reaches(d: PlannedDesign) -> bool:
        got = decision_power(
            d, components, effect, bounds=bounds, confidence=confidence,
            replicates=SEARCH_REPLICATES,
        )  # fmt: skip
        return got >= power

    n = _smallest(design, reaches, cap)
    return None if n is None else design.resized(n)


def t_multiplier(df: float, confidence: float) -> float:
    from scipy.special import stdtrit

    return float(stdtrit(df, 0.5 + confidence / 2)) if df >= 1 else math.inf

"""Precision known before purchase: the expected half-width of a headline figure's interval
for a planned design, the smallest design that reaches a half-width asked for, and the power
of a decision taken on such an interval.

A design is named by its units (:mod:`diptych.core.metrics.resampling`): identities crossed in
scenes (a ``grid`` of R × C cells, or a ``diagonal`` that pairs each row with one column, as
the PST power aspect pairs an occupation's two roles), two lists as strata (``strata``: the
single-person setting), or one kind of unit (``clusters``: images, occupations). What the
interval will be depends on how the figure varies over those units, which is not known before
the run: a :class:`Components` states it — standard deviations of a row unit's and a column
unit's effect on a cell's mean, of the cell's own effect, and of one observation around its
cell's mean — with where it comes from (a paper's published values, an earlier run of the same
probe in the workspace, or a bound).

The expected half-width is measured, not approximated: the cells' means are drawn from the
components and :func:`~diptych.core.metrics.resampling.mean_over_units` — the very function the
analysis calls — makes each replicate's interval, so the variance estimator, its floor, the
crossed design's degrees-of-freedom rule and the t multiplier are the real interval's. (A small
crossed design's df is itself random: 3 × 3 identities give df 2 where identities dominate and
8 where the scenes do, so no single closed form would be right.) The replicates are seeded, so
a plan is reproducible; the Monte Carlo error of each expected half-width is reported with it.
A design balanced over its cells is assumed: a scene's observations (orders, samples, people)
merge into its cell, which is what the resampling does with them.

``bench/validity.py``-style checks live in the tests: a simulation from binary labels with
identity effects checks the predicted half-width against the mean realised one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from diptych.core.metrics.components import Components, components_of
from diptych.core.metrics.intervals import UNBOUNDED
from diptych.core.metrics.resampling import mean_over_units
from diptych.core.metrics.stats import DEFAULT_CONFIDENCE, json_safe

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "Components",
    "Expected",
    "FigurePrecision",
    "PlannedDesign",
    "PlannedFigure",
    "PrecisionPlan",
    "components_of",
    "decision_power",
    "expected_interval",
    "plan_precision",
    "smallest_design",
    "smallest_powered_design",
]

Shape = Literal["grid", "diagonal", "strata", "clusters"]

#: Replicates per expected half-width: the Monte Carlo error is about 2–4% of it.
REPLICATES = 400
#: The most units of a kind the search for a target design tries (per list for a grid).
MAX_SEARCH = 2000
MAX_GRID = 200
#: Replicates per design tried while searching; the design found is measured with
#: :data:`REPLICATES`.
SEARCH_REPLICATES = 100
#: Below this many units per side the interval's degrees of freedom can fall to 2 or fewer
#: (t multiplier 4.3 or more): such a design is warned about.
FEW_UNITS = 4
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
        return f"{self.sizes[0]} {self.noun}"

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
class PlannedFigure:
    """A headline figure as a probe plans it: its design, how it is assumed to vary, the
    range it can take, and how far its lists can grow (None: without limit)."""

    name: str
    design: PlannedDesign
    components: Components
    low: float
    high: float
    max_size: int | None = None
    #: How to ask for a larger design, e.g. "name more identities (masculine=..., feminine=...)".
    grow: str = ""

    @property
    def bounds(self) -> tuple[float, float]:
        return (self.low, self.high)


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


@dataclass(frozen=True)
class FigurePrecision:
    """A planned figure's expected precision, its warnings and, when a half-width was asked
    for, the smallest design reaching it."""

    name: str
    design: PlannedDesign
    expected: Expected
    components: Components
    low: float
    high: float
    warnings: list[str] = field(default_factory=list)
    target: PlannedDesign | None = None
    target_expected: Expected | None = None
    #: Why no target design is given (out of the lists' reach), or None.
    target_note: str | None = None

    def line(self) -> str:
        """``occupation: STS paired  ±48.1 (3 × 3 identities, df 2, t 4.30)``."""
        e = self.expected
        df = f"df {e.df:g}" if math.isfinite(e.df) else "no df"
        hw = f"±{e.half_width:.3g}" if math.isfinite(e.half_width) else "no interval"
        return f"{self.name}: {hw} ({self.design.describe()}, {df}, t {e.t:.2f})"

    def target_line(self, width: float) -> str | None:
        if self.target is not None and self.target_expected is not None:
            return (
                f"{self.name}: ±{width:g} needs {self.target.describe()} "
                f"(expected ±{self.target_expected.half_width:.3g})"
            )
        if self.target_note:
            return f"{self.name}: {self.target_note}"
        return None

    def to_dict(self) -> dict[str, Any]:
        e = self.expected
        out: dict[str, Any] = {
            "figure": self.name,
            "design": self.design.to_dict(),
            "half_width": e.half_width,
            "mc_error": e.mc_error,
            "df": e.df,
            "t": e.t,
            "se": e.se,
            "range": [self.low, self.high],
            "variance": self.components.to_dict(),
            "warnings": list(self.warnings),
        }
        if self.target is not None and self.target_expected is not None:
            out["target_design"] = self.target.to_dict()
            out["target_half_width"] = self.target_expected.half_width
        if self.target_note:
            out["target_note"] = self.target_note
        return json_safe(out)


@dataclass(frozen=True)
class PrecisionPlan:
    """The precision of every headline figure a run would give, at ``confidence``."""

    figures: list[FigurePrecision]
    confidence: float = DEFAULT_CONFIDENCE
    target_width: float | None = None

    @property
    def warnings(self) -> list[str]:
        return [w for f in self.figures for w in f.warnings]

    @property
    def sources(self) -> list[str]:
        """The variance assumptions, each once, in the figures' order."""
        return list(dict.fromkeys(f.components.source for f in self.figures))

    def lines(self) -> list[str]:
        """The plan as a front end prints it: a heading, one line per figure, the target
        designs, the assumptions, then one line per warning."""
        if not self.figures:
            return []
        pct = f"{self.confidence * 100:g}%"
        out = [f"expected half-width of each {pct} interval (per model):"]
        out += [f"  {f.line()}" for f in self.figures]
        if self.target_width is not None:
            out += [
                f"  {line}"
                for f in self.figures
                if (line := f.target_line(self.target_width)) is not None
            ]
        out += [f"  variance: {s}" for s in self.sources]
        out += [f"warning: {w}" for w in self.warnings]
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "confidence": self.confidence,
            "target_width": self.target_width,
            "figures": [f.to_dict() for f in self.figures],
            "warnings": self.warnings,
        }


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
    t_half = sum(_t(i.df, confidence) * i.se for i in found) / len(found)
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


def _cap(design: PlannedDesign) -> int:
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

    n = _smallest(design, reaches, _cap(design))
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


# --- a plan ------------------------------------------------------------------------------


def design_warnings(fig: PlannedFigure, expected: Expected) -> list[str]:
    """At most one line for the figure: too few units per side to give an interval, or so
    few that its degrees of freedom can fall to 2 or fewer, and an interval whose t·se would
    be wider than the figure's whole range."""
    d = fig.design
    grow = f" ({fig.grow})" if fig.grow else ""
    if d.smallest_side < 2:
        return [f"{fig.name}: {d.describe()} give no interval at all; use at least 2{grow}"]
    problems = []
    if d.smallest_side < FEW_UNITS:
        df = d.least_df()
        problems.append(
            f"leave as few as {df} degree{'s' if df != 1 else ''} of freedom "
            f"(t {_t(df, DEFAULT_CONFIDENCE):.2f})"
        )
    if 2 * expected.t_half_width > fig.high - fig.low:
        problems.append(
            f"t·se would be ±{expected.t_half_width:.3g}, wider than the range "
            f"[{fig.low:g}, {fig.high:g}], so the interval would say little beyond the range"
        )
    if not problems:
        return []
    advice = f"; use at least {FEW_UNITS} per list{grow}" if d.smallest_side < FEW_UNITS else ""
    return [f"{fig.name}: {d.describe()} " + " and ".join(problems) + advice]


def _t(df: float, confidence: float) -> float:
    from scipy.special import stdtrit

    return float(stdtrit(df, 0.5 + confidence / 2)) if df >= 1 else math.inf


def figure_precision(
    fig: PlannedFigure,
    *,
    target_width: float | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> FigurePrecision:
    """One figure's expected precision, its warnings and the design reaching ``target_width``
    (a half-width on the figure's scale)."""
    expected = expected_interval(
        fig.design, fig.components, bounds=fig.bounds, confidence=confidence
    )
    out = FigurePrecision(
        fig.name, fig.design, expected, fig.components, fig.low, fig.high,
        design_warnings(fig, expected),
    )  # fmt: skip
    if target_width is None:
        return out
    target = smallest_design(
        fig.design, fig.components, target_width, bounds=fig.bounds, confidence=confidence
    )
    if target is None:
        return replace(
            out,
            target_note=f"±{target_width:g} is out of reach even with "
            f"{fig.design.resized(_cap(fig.design)).describe()} under this variance",
        )
    note = None
    if fig.max_size is not None and target.smallest_side > fig.max_size:
        note = (
            f"±{target_width:g} needs {target.describe()}, more than the {fig.max_size} the "
            f"list offers" + (f" ({fig.grow})" if fig.grow else "")
        )
        return replace(out, target_note=note)
    return replace(
        out,
        target=target,
        target_expected=expected_interval(
            target, fig.components, bounds=fig.bounds, confidence=confidence
        ),
    )


def plan_precision(
    figures: Sequence[PlannedFigure],
    *,
    target_width: float | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PrecisionPlan:
    """The precision of each planned figure (see :func:`figure_precision`)."""
    if target_width is not None and not 0 < target_width < math.inf:
        raise ValueError(f"a target half-width must be a number above 0, not {target_width:g}")
    return PrecisionPlan(
        [figure_precision(f, target_width=target_width, confidence=confidence) for f in figures],
        confidence,
        target_width,
    )

"""The one module that knows each design's units: what varies, how the bootstrap resamples it,
and the interval and test that follow.

A figure is only as general as the units its interval resamples. Three designs cover diptych's
probes:

* **clustered** — one kind of unit, each holding several observations that move together: an
  image with all its people and answers (PAIRS, pst images), an occupation with all its query
  wordings (retrieval), an unordered scene with both orders and all samples merged (paired
  comparisons). The bootstrap draws units with replacement.
* **crossed** — two kinds of unit crossed in the observations: a PST scene pairs one identity of
  the masculine list with one of the feminine list, so every identity appears in many scenes.
  Resampling scenes treats 400 scenes of 20 × 20 identities as 400 independent draws and speaks
  only for *these* identities; the headline here speaks for identities like these. The
  two-way ("pigeonhole") bootstrap of Owen (2007, Ann. Appl. Stat. 1(2)) resamples both lists
  independently and weighs an observation by the product of its identities' draw counts. An
  observation that belongs to one list only (the single-person setting) is weighed by that
  list's draw alone, which makes the single setting a bootstrap stratified by list.
* **stratified** — a crossed design with no observation in both lists (the single setting).

Owen shows the pigeonhole variance over-counts the interaction: with cell means
y_ij = μ + a_i + b_j + e_ij it has expectation σ_a²/R + σ_b²/C + σ_e²(1/R + 1/C + 1/RC), where
the mean's variance is σ_a²/R + σ_b²/C + σ_e²/RC. The variance used here is the moment
correction built from two one-way bootstraps — rows alone, columns alone — each with its
(n − 1)/n bias removed, less the interaction they both count: V_rows + V_cols − σ̂_e²/K, σ̂_e²
the residual mean square of the cells after an additive fit (the two-way ANOVA's). For a complete
grid its expectation is the mean's variance. It is floored at the cells' own variance (the
interval over scenes), which it can never rightly fall below.

Every interval here is ``value ± t(df) · se`` and every p-value the two-sided t-test of the same
``(value − null) / se``, so an interval excludes the null exactly when p < 1 − confidence: a test
and the interval shown beside it cannot disagree. A figure with a range (``bounds``: an STS in
[−100, 100], a share in [0, 1]) has the same t and se taken on a scale without bounds and
mapped back (:mod:`diptych.core.metrics.uncertainty.intervals`), so that its interval stays inside
the range; the test is the t-test on that scale, and still agrees with the interval. ``se`` is the
bootstrap standard error over the design's units (bias-corrected as above), computed exactly
rather than drawn — for a ratio of resampled sums the bootstrap variance has a closed form once
linearised, and Monte Carlo noise in a standard error costs coverage; ``df`` is units − 1 for
one kind of unit and the Welch–Satterthwaite combination of the two lists' terms for two. With
fewer than two units of a kind that varies there is no interval: it is (−inf, inf) with p = 1,
and ``reason`` says why — a single scene never decides anything.

``bench/validity/figures.py`` simulates each design with a known truth and measures the coverage of
these intervals and the type-I rate of these tests.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from diptych.core.metrics.uncertainty.bootstrap import (
    DEFAULT_CONFIDENCE,
    DEFAULT_N_BOOT,
    _check_confidence,
    _check_n_boot,
    resample_weights,
)
from diptych.core.metrics.uncertainty.inference import (
    UNITS as UNITS,  # re-exported: the units and their populations
)
from diptych.core.metrics.uncertainty.inference import Inference, t_inference
from diptych.core.metrics.uncertainty.intervals import UNBOUNDED, Bounds

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

K = TypeVar("K", bound=Hashable)
#: The crossed design's df where the identity lists dominate (:func:`_crossed_df`).
CrossedDf = Literal["smaller list", "satterthwaite"]


def _codes(labels: Sequence[Hashable | None] | NDArray[Any]) -> tuple[NDArray[np.int64], int]:
    """Integer codes 0..L-1 of the labels in sorted order (None → -1), and L.

    An integer array is taken as codes already (negative = none), renumbered densely: the
    fast road for a million rows.
    """
    import numpy as np

    if isinstance(labels, np.ndarray) and labels.dtype.kind in "iu":
        arr = labels.astype(np.int64, copy=False)
        has = arr >= 0
        uniq, inv = np.unique(arr[has], return_inverse=True)
        out = np.full(arr.shape, -1, dtype=np.int64)
        out[has] = inv.ravel()
        return out, int(uniq.size)
    present = sorted({lab for lab in labels if lab is not None}, key=repr)
    index = {lab: i for i, lab in enumerate(present)}
    codes = np.fromiter(
        (index[lab] if lab is not None else -1 for lab in labels), dtype=np.int64, count=len(labels)
    )
    return codes, len(present)


def _unit_variance(
    sums: NDArray[np.float64],
    counts: NDArray[np.float64],
    *,
    rest: tuple[float, float] = (0.0, 0.0),
    draws: tuple[int, np.random.Generator] | None = None,
) -> float:
    """The variance of (w·sums + rest_sum) / (w·counts + rest_weight) when the G units are
    resampled (w ~ Multinomial(G, 1/G)), with the bootstrap's (G − 1)/G bias removed.

    By default it is the bootstrap variance computed exactly, not drawn: linearised around the
    point, the ratio moves by Σ (w_i − 1) z_i / N with z_i = s_i − r·n_i, whose multinomial
    variance is G · var(z) / N² — exact for units of equal size, and free of Monte Carlo noise
    (which would otherwise widen the spread of the standard error and cost coverage).
    ``draws = (n_boot, rng)`` draws the replicates instead (the tests check the two agree).
    """
    import numpy as np

    n_units = int(sums.size)
    if n_units < 2:
        return math.inf
    rest_sum, rest_w = rest
    total_n = float(counts.sum()) + rest_w
    if draws is None:
        r = (float(sums.sum()) + rest_sum) / total_n
        z = sums - r * counts
        return float(((z - z.mean()) ** 2).sum()) * n_units / (n_units - 1) / total_n**2
    n_boot, rng = draws
    parts = []
    for w in resample_weights(n_units, n_boot, rng):
        with np.errstate(invalid="ignore", divide="ignore"):
            parts.append((w @ sums + rest_sum) / (w @ counts + rest_w))
    reps = np.concatenate(parts)
    reps = reps[np.isfinite(reps)]
    return float(np.var(reps, ddof=1)) * n_units / (n_units - 1)


def _aggregate(
    codes: NDArray[np.int64], values: NDArray[np.float64], weights: NDArray[np.float64], n: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    import numpy as np

    return (
        np.bincount(codes, weights=values * weights, minlength=n).astype(np.float64),
        np.bincount(codes, weights=weights, minlength=n).astype(np.float64),
    )


def mean_over_units(
    values: ArrayLike,
    units: Mapping[str, Sequence[Hashable | None] | NDArray[Any]],
    *,
    weights: ArrayLike | None = None,
    scale: float = 1.0,
    null: float = 0.0,
    confidence: float = DEFAULT_CONFIDENCE,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | Sequence[int] | None = 0,
    exact: bool = True,
    bounds: Bounds = UNBOUNDED,
    lists_df: CrossedDf = "smaller list",
) -> Inference:
    """``scale`` × the (weighted) mean of ``values`` with the interval and test of its design.

    ``units`` names one or two kinds of unit, each with the unit of every observation (parallel
    to ``values``): ``{"image": image_ids}`` is clustered; ``{"masculine identity": m, "feminine
    identity": f}`` is crossed, and an observation whose label is None in one kind belongs to
    the other kind only (stratified when no observation has both). ``null`` is on the scaled
    figure's scale. The resampling variances are computed exactly (:func:`_unit_variance`);
    ``exact=False`` draws ``n_boot`` replicates with ``seed`` instead. ``bounds`` is the range
    the scaled figure can take (an STS: [−100, 100]); the interval is made inside it.
    ``lists_df`` is the crossed design's df where the identity lists dominate
    (:func:`_crossed_df`).
    """
    import numpy as np

    _check_n_boot(n_boot)
    _check_confidence(confidence)
    vals = np.asarray(values, dtype=np.float64)
    if vals.ndim != 1:
        raise ValueError("values must be 1-d")
    w = np.ones_like(vals) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != vals.shape:
        raise ValueError("weights must be parallel to values")
    if not 1 <= len(units) <= 2:
        raise ValueError("a design resamples one or two kinds of unit")
    for name, labels in units.items():
        if len(labels) != vals.size:
            raise ValueError(f"units {name!r} must be parallel to values")
    if vals.size == 0 or w.sum() <= 0:
        raise ValueError("cannot take the mean of no observations")
    draws = None if exact else (n_boot, np.random.default_rng(seed))
    point = scale * float((vals * w).sum() / w.sum())
    names = list(units)
    coded = [_codes(units[name]) for name in names]
    counts_of = {name: c[1] for name, c in zip(names, coded, strict=True)}

    def done(se: float, df: float, reason: str | None = None) -> Inference:
        return t_inference(
            point, abs(scale) * se, df, n=int(vals.size), units=counts_of,
            design=design, null=null, confidence=confidence, reason=reason, bounds=bounds,
        )  # fmt: skip

    if len(names) == 1:
        design = "clustered"
        codes, n_units = coded[0]
        if (codes < 0).any():
            raise ValueError(f"every observation needs a {names[0]}")
        if n_units < 2:
            return done(math.inf, 0.0, f"one {names[0]} only: no interval")
        sums, counts = _aggregate(codes, vals, w, n_units)
        return done(math.sqrt(_unit_variance(sums, counts, draws=draws)), n_units - 1)

    (rc, n_r), (cc, n_c) = coded
    if ((rc < 0) & (cc < 0)).any():
        raise ValueError(f"every observation needs a {names[0]} or a {names[1]}")
    both = (rc >= 0) & (cc >= 0)
    design = "crossed" if both.any() else "stratified"
    if both.any() and not both.all():
        raise ValueError("mix no observations of one list with those of both: split the figure")
    if design == "stratified":
        # Each list is its own stratum: resample within each, the other held fixed.
        var = 0.0
        terms = []
        for codes, n_units, name in ((rc, n_r, names[0]), (cc, n_c, names[1])):
            mask = codes >= 0
            if not mask.any():
                continue
            if n_units < 2:
                return done(math.inf, 0.0, f"one {name} only: no interval")
            sums, counts = _aggregate(codes[mask], vals[mask], w[mask], n_units)
            rest = (float((vals[~mask] * w[~mask]).sum()), float(w[~mask].sum()))
            v = _unit_variance(sums, counts, rest=rest, draws=draws)
            var += v
            terms.append((v, n_units - 1))
        return done(math.sqrt(var), _satterthwaite(var, terms))

    if n_r < 2 or n_c < 2:
        few = names[0] if n_r < 2 else names[1]
        return done(math.inf, 0.0, f"one {few} only: no interval")
    # Cells: the distinct (row, column) pairs, each with its weighted sum and weight.
    cell_codes = rc * n_c + cc
    cells, cell_inv = np.unique(cell_codes, return_inverse=True)
    cell_sums, cell_counts = _aggregate(cell_inv.ravel(), vals, w, cells.size)
    cell_r, cell_c = cells // n_c, cells % n_c
    grid_s = np.zeros((n_r, n_c))
    grid_n = np.zeros((n_r, n_c))
    np.add.at(grid_s, (cell_r, cell_c), cell_sums)
    np.add.at(grid_n, (cell_r, cell_c), cell_counts)
    v_rows = _unit_variance(grid_s.sum(axis=1), grid_n.sum(axis=1), draws=draws)
    v_cols = _unit_variance(grid_s.sum(axis=0), grid_n.sum(axis=0), draws=draws)
    v_cells = _unit_variance(cell_sums, cell_counts, draws=draws)
    v_inter = _interaction_variance(grid_s, grid_n)
    var = max(v_rows + v_cols - v_inter, v_cells)
    k = int(cells.size)
    df = _crossed_df(v_rows, v_cols, v_inter, v_cells, n_r, n_c, k, lists_df)
    inferred = done(math.sqrt(var), df)
    if v_rows + v_cols - v_inter > v_cells:
        return inferred
    # At the floor the interval is the pairings' (the cells'), not one over the lists: said so,
    # since the design still names the lists. A partial design reads it most often: with one
    # observation a cell, what varies between a cell's observations (a scene's two persons)
    # is counted as interaction, which the correction takes out of the lists' variance.
    return replace(inferred, floor=floor_words(k, names[0], names[1]))


def floor_words(pairings: int, row: str, column: str) -> str:
    """What a crossed figure whose interval fell to its floor rests on, for a reader: the one
    wording of the report's sentence, ``report.json``'s ``floor``, ``diptych show`` and the
    terminal app. It says what the interval resampled, whom it speaks for, and what would
    have made it wider and more general."""
    return (
        f"resampling its {pairings:,} pairings of a {row} and a {column}, so it speaks for "
        "these identities only: the identities varied no more than the pairings did (had they "
        "varied more, the interval would be wider and speak for identities like these)"
    )


def _interaction_variance(grid_s: NDArray[np.float64], grid_n: NDArray[np.float64]) -> float:
    """The interaction's share of the mean's variance, σ_e²/K: the residual mean square of the
    cells' means after an additive fit of row and column effects (fitted by alternating
    means over the cells present), over the K cells. It is what the rows' and the columns'
    one-way variances each count once and the mean's variance counts once in all."""
    import numpy as np

    present = grid_n > 0
    k = int(present.sum())
    n_r, n_c = grid_s.shape
    resid_df = k - n_r - n_c + 1
    if resid_df < 1:
        return 0.0
    y = np.divide(grid_s, grid_n, out=np.zeros_like(grid_s), where=present)
    row = np.zeros(n_r)
    col = np.zeros(n_c)
    mu = float(y[present].mean())
    per_row, per_col = present.sum(axis=1), present.sum(axis=0)
    centred = np.where(present, y - mu, 0.0)
    # Backfitting: exact in one sweep for a complete grid, converging for an incomplete one
    # (it stops once a sweep moves no effect by more than rounding).
    tolerance = 1e-13 * (1.0 + float(np.abs(centred).max()))
    for _ in range(50 if k < n_r * n_c else 1):
        r = (centred - np.where(present, col[None, :], 0.0)).sum(axis=1) / per_row
        c = (centred - np.where(present, r[:, None], 0.0)).sum(axis=0) / per_col
        moved = max(float(np.abs(r - row).max()), float(np.abs(c - col).max()))
        row, col = r, c
        if moved <= tolerance:
            break
    resid = np.where(present, y - mu - row[:, None] - col[None, :], 0.0)
    return float((resid**2).sum() / resid_df / k)


def _crossed_df(
    v_rows: float,
    v_cols: float,
    v_inter: float,
    v_cells: float,
    n_r: int,
    n_c: int,
    k: int,
    lists_df: CrossedDf = "smaller list",
) -> float:
    """Degrees of freedom of the crossed variance V_rows + V_cols − V_inter.

    Where the data show no identity effects (the estimate falls to the cells' own variance,
    its floor), the scenes are the units: K − 1. Where identities dominate, by default the
    smaller list less one: for the STS, whose persons score ±1, Satterthwaite's combination
    of the two lists' terms (up to R + C − 2) covered below nominal in simulation.
    ``lists_df="satterthwaite"`` takes that combination, each list's term less half the
    interaction (which both count), kept within the smaller list less one and R + C − 2: for a
    figure whose values are near normal, the tone gap in Monk steps, where both lists vary
    alike and t(min − 1) covers 0.976 at 10 × 10 (``bench/validity/tone/intervals.py``). In
    between, where the interaction varies more than either list, the Welch–Satterthwaite df of
    the signed combination, kept within those bounds."""
    floor = float(min(n_r, n_c) - 1)
    estimate = v_rows + v_cols - v_inter
    if estimate <= v_cells:
        return float(k - 1)
    if v_inter <= max(v_rows, v_cols):
        if lists_df == "smaller list":
            return floor
        a, b = max(v_rows - v_inter / 2, 0.0), max(v_cols - v_inter / 2, 0.0)
        if a + b <= 0:
            return floor
        df = (a + b) ** 2 / (a**2 / (n_r - 1) + b**2 / (n_c - 1))
        return float(min(max(df, floor), n_r + n_c - 2))
    inter_df = max(1, k - n_r - n_c + 1)
    den = v_rows**2 / (n_r - 1) + v_cols**2 / (n_c - 1) + v_inter**2 / inter_df
    return float(min(max(estimate**2 / den, floor), k - 1))


def _satterthwaite(total: float, terms: Sequence[tuple[float, int]]) -> float:
    """Welch–Satterthwaite degrees of freedom of a variance that is a sum of ``terms``
    (variance, its df); at least the smallest term's df, at most their sum."""
    if not terms:
        return 0.0
    den = sum(v * v / d for v, d in terms if d > 0)
    if den <= 0:
        return float(min(d for _, d in terms))
    df = total * total / den
    return float(min(max(df, min(d for _, d in terms)), sum(d for _, d in terms)))


def pigeonhole_replicates(
    values: ArrayLike,
    rows: Sequence[Hashable],
    cols: Sequence[Hashable],
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | Sequence[int] | None = 0,
) -> NDArray[np.float64]:
    """Replicates of a mean under Owen's pigeonhole bootstrap (both lists resampled, each
    observation weighed by the product of its row's and column's draw counts): for plots of a
    crossed figure's distribution; its variance is conservative (see the module docstring)."""
    import numpy as np

    vals = np.asarray(values, dtype=np.float64)
    rc, n_r = _codes(rows)
    cc, n_c = _codes(cols)
    grid_s = np.zeros((n_r, n_c))
    grid_n = np.zeros((n_r, n_c))
    np.add.at(grid_s, (rc, cc), vals)
    np.add.at(grid_n, (rc, cc), 1.0)
    rng = np.random.default_rng(seed)
    wr = rng.multinomial(n_r, np.full(n_r, 1 / n_r), size=n_boot).astype(np.float64)
    wc = rng.multinomial(n_c, np.full(n_c, 1 / n_c), size=n_boot).astype(np.float64)
    num = np.einsum("bi,ij,bj->b", wr, grid_s, wc)
    den = np.einsum("bi,ij,bj->b", wr, grid_n, wc)
    with np.errstate(invalid="ignore", divide="ignore"):
        reps = num / den
    out: NDArray[np.float64] = reps[np.isfinite(reps)]
    return out


def paired_difference(
    base: Mapping[K, float],
    treated: Mapping[K, float],
    unit_of: Callable[[K], Mapping[str, Hashable | None]],
    *,
    scale: float = 1.0,
    confidence: float = DEFAULT_CONFIDENCE,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | Sequence[int] | None = 0,
    bounds: Bounds = UNBOUNDED,
) -> Inference | None:
    """Treated − base over the keys both hold, matched per key, with the interval and test of
    the units ``unit_of(key)`` names (e.g. ``{"masculine identity": m, "feminine identity": f}``
    for an unordered scene, whose keys — both orders, every sample — are merged into one cell
    first). None when nothing is matched."""
    shared = sorted(base.keys() & treated.keys(), key=repr)
    if not shared:
        return None
    diffs = [treated[k] - base[k] for k in shared]
    unit_maps = [unit_of(k) for k in shared]
    names = list(unit_maps[0])
    labels = {name: [u.get(name) for u in unit_maps] for name in names}
    return mean_over_units(
        diffs, labels, scale=scale, confidence=confidence, n_boot=n_boot, seed=seed,
        bounds=bounds,
    )  # fmt: skip


def difference_of_means(
    a: tuple[ArrayLike, Mapping[str, Sequence[Hashable | None]]],
    b: tuple[ArrayLike, Mapping[str, Sequence[Hashable | None]]],
    *,
    scale: float = 1.0,
    confidence: float = DEFAULT_CONFIDENCE,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
    bounds: Bounds = UNBOUNDED,
) -> Inference:
    """mean(b) − mean(a) of two independent samples, each with its own design: the variance is
    the sum of the two designs' variances and df their Welch–Satterthwaite combination.
    ``bounds``: the range of the difference (two STS: [−200, 200])."""
    ia = mean_over_units(a[0], a[1], scale=scale, n_boot=n_boot, seed=seed)
    ib = mean_over_units(b[0], b[1], scale=scale, n_boot=n_boot, seed=seed + 1)
    units = {f"A {k}": v for k, v in ia.units.items()} | {f"B {k}": v for k, v in ib.units.items()}
    n = ia.n + ib.n
    if not (ia.has_interval and ib.has_interval):
        return t_inference(
            ib.value - ia.value, math.inf, 0.0, n=n, units=units, design="independent",
            confidence=confidence, reason=ia.reason or ib.reason, bounds=bounds,
        )  # fmt: skip
    var = ia.se**2 + ib.se**2
    df = _satterthwaite(var, [(ia.se**2, max(1, round(ia.df))), (ib.se**2, max(1, round(ib.df)))])
    return t_inference(
        ib.value - ia.value, math.sqrt(var), df, n=n, units=units, design="independent",
        confidence=confidence, bounds=bounds,
    )  # fmt: skip


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input's order: a p below α after adjusting
    keeps the family-wise error of all the tests at once at most α (Holm 1979)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    out = [0.0] * m
    running = 0.0
    for step, i in enumerate(order):
        # Each adjusted p is at least the one before it: the step-down stops at the first keep.
        running = max(running, min(1.0, (m - step) * p_values[i]))
        out[i] = running
    return out


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg q-values (step-up adjusted p-values), in the input's order."""
    m = len(p_values)
    if m == 0:
        return []
    order = sorted(range(m), key=lambda i: p_values[i])
    q = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, p_values[i] * m / rank)
        q[i] = min(1.0, running)
    return q

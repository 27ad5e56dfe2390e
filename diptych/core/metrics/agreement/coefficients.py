"""Inter-annotator agreement coefficients: Cohen's κ, Fleiss' κ and Krippendorff's α (nominal),
each with a bootstrap interval.

The PST paper hires three crowd workers per person and reports their agreement as Fleiss' κ
(Table 1); it compares an automatic annotator (BLIP) with the human labels by Cohen's κ (Appendix E,
Table 12). This module gives the three standard coefficients on nominal labels:

* **Cohen's κ** (Cohen 1960), two raters on the same items: κ = (p_o − p_e) / (1 − p_e), with p_o
  the share of items they agree on and p_e = Σ_k p_A(k)·p_B(k) from each rater's own marginals.
* **Fleiss' κ** (Fleiss 1971), any number of raters per item, from the item × category counts
  r_ik: p_a = mean over items of Σ_k r_ik(r_ik − 1) / (r_i(r_i − 1)); p_e = Σ_k π_k²;
  κ = (p_a − p_e) / (1 − p_e). When items have different numbers of raters r_i this is Gwet's
  generalisation (Handbook of Inter-Rater Reliability, 4th ed., §2; R package irrCAC's
  ``fleiss.kappa.raw``): p_a averages over the items with r_i ≥ 2 and π_k = mean_i r_ik / r_i over
  every rated item. With a fixed r it is exactly Fleiss' 1971 statistic.
* **Krippendorff's α** (nominal; Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"),
  any raters, missing values allowed: from the coincidence matrix o_ck = Σ_u (number of c–k pairs
  of values in unit u) / (m_u − 1) over the units with m_u ≥ 2 values, n_c = Σ_k o_ck,
  n = Σ_c n_c: α = 1 − (n − 1)·Σ_{c≠k} o_ck / Σ_{c≠k} n_c·n_k. Nominal α depends only on each
  unit's value counts, so it takes the same item × category counts as Fleiss' κ.

Each is a ratio of sums over items, which makes the bootstrap cheap: items (or clusters of items,
e.g. the two people of one paired image) are resampled with replacement and the sums re-weighted.
The ``*_estimate`` functions return the value with that percentile interval.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from diptych.core.labels import GENDER_LABELS
from diptych.core.metrics.uncertainty.bootstrap import (
    DEFAULT_CONFIDENCE,
    DEFAULT_N_BOOT,
    Estimate,
    resample_weights,
)
from diptych.core.metrics.uncertainty.one_value import one_resampled_value, same_value

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

#: Why an agreement table's coefficient has no interval (:attr:`Table.no_interval`): κ and α
#: are 0/0 when every label counted falls in one category (nothing to agree by chance against),
#: as one person's alike labels always do, and every resample of those does too.
UNDEFINED_AGREEMENT = (
    "the coefficient is undefined (0/0) where every label it counts is of one and the same "
    "category, as always for one person (n = 1) labelled alike, and so in every resample; "
    "a dash for its value says the same"
)

# --- the coefficients -------------------------------------------------------------------------

#: A statistic of summed per-item features, vectorised over resamples: (b, d) sums -> (b,) values.
Finish = Callable[["NDArray[np.float64]"], "NDArray[np.float64]"]


def ordered_categories(labels: Iterable[Hashable]) -> list[Hashable]:
    """The categories in a stable order: the STS vocabulary first, then the rest sorted."""
    seen = set(labels)
    known = [c for c in GENDER_LABELS if c in seen]
    rest = sorted(
        (c for c in seen if c not in GENDER_LABELS), key=lambda c: (type(c).__name__, str(c))
    )
    return [*known, *rest]


def _cohen_features(
    rater_a: Sequence[Hashable | None],
    rater_b: Sequence[Hashable | None],
    categories: Sequence[Hashable] | None,
) -> tuple[NDArray[np.float64], Finish, list[int]]:
    """One-hot (category of A, category of B) per item; items missing either label are dropped.

    Returns the features, the statistic, and the indices of the items kept.
    """
    import numpy as np

    if len(rater_a) != len(rater_b):
        raise ValueError(f"{len(rater_a)} labels from one rater but {len(rater_b)} from the other")
    kept = [
        i
        for i, (a, b) in enumerate(zip(rater_a, rater_b, strict=True))
        if a is not None and b is not None
    ]
    cats = (
        list(categories)
        if categories is not None
        else ordered_categories([rater_a[i] for i in kept] + [rater_b[i] for i in kept])
    )
    index = {c: i for i, c in enumerate(cats)}
    k = max(len(cats), 1)
    features = np.zeros((len(kept), k * k), dtype=np.float64)
    for row, i in enumerate(kept):
        a, b = rater_a[i], rater_b[i]
        if a not in index or b not in index:
            raise ValueError(f"label {a if a not in index else b!r} is not one of the categories")
        features[row, index[a] * k + index[b]] = 1.0

    def finish(sums: NDArray[np.float64]) -> NDArray[np.float64]:
        table = sums.reshape(-1, k, k)
        n = table.sum(axis=(1, 2))
        with np.errstate(invalid="ignore", divide="ignore"):
            observed = np.trace(table, axis1=1, axis2=2) / n
            expected = (table.sum(axis=2) * table.sum(axis=1)).sum(axis=1) / (n * n)
            # 1 - p_e = 0 when both raters put every item in one and the same category:
            # κ is undefined there (0/0), and NaN says so.
            kappa: NDArray[np.float64] = (observed - expected) / (1.0 - expected)
        return np.where(np.isclose(expected, 1.0), np.nan, kappa)

    return features, finish, kept


def cohen_kappa(
    rater_a: Sequence[Hashable | None],
    rater_b: Sequence[Hashable | None],
    *,
    categories: Sequence[Hashable] | None = None,
) -> float:
    """Cohen's κ of two raters' nominal labels of the same items (parallel sequences).

    Items where either label is None are left out. NaN when it is undefined: no item, or both
    raters used one and the same category for every item.
    """
    features, finish, _ = _cohen_features(rater_a, rater_b, categories)
    return _value(features, finish)


def category_counts(
    ratings: Sequence[Sequence[Hashable | None]],
    categories: Sequence[Hashable] | None = None,
) -> tuple[NDArray[np.int64], list[Hashable]]:
    """Item × category counts from an item × rater table (None: the rater did not rate it).

    Returns the counts and the categories they are in the order of. This is the input of
    :func:`fleiss_kappa` and :func:`krippendorff_alpha`.
    """
    import numpy as np

    cats = (
        list(categories)
        if categories is not None
        else ordered_categories(v for row in ratings for v in row if v is not None)
    )
    index = {c: i for i, c in enumerate(cats)}
    counts = np.zeros((len(ratings), len(cats)), dtype=np.int64)
    for i, row in enumerate(ratings):
        for value in row:
            if value is None:
                continue
            if value not in index:
                raise ValueError(f"label {value!r} is not one of the categories")
            counts[i, index[value]] += 1
    return counts, cats


def _as_counts(counts: ArrayLike) -> NDArray[np.float64]:
    import numpy as np

    table = np.asarray(counts, dtype=np.float64)
    if table.ndim != 2:
        raise ValueError("give the counts as an items × categories matrix")
    if (table < 0).any() or not np.array_equal(table, np.round(table)):
        raise ValueError("counts must be whole numbers of at least 0")
    return table


def _fleiss_features(
    counts: ArrayLike, require_equal_raters: bool
) -> tuple[NDArray[np.float64], Finish]:
    import numpy as np

    table = _as_counts(counts)
    raters = table.sum(axis=1)
    table, raters = table[raters > 0], raters[raters > 0]  # items nobody rated say nothing
    if require_equal_raters and raters.size and (raters != raters[0]).any():
        raise ValueError(
            f"items have between {int(raters.min())} and {int(raters.max())} raters; Fleiss' "
            "1971 κ needs the same number for every item (allow the generalisation instead)"
        )
    q = table.shape[1]
    pairable = (raters >= 2).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        agreement = np.where(
            raters >= 2, (table * (table - 1)).sum(axis=1) / (raters * (raters - 1)), 0.0
        )
    # Columns: p_a numerator, p_a denominator, the q shares r_ik / r_i, and the item count.
    features = np.column_stack(
        [agreement * pairable, pairable, table / raters[:, None], np.ones_like(raters)]
    )

    def finish(sums: NDArray[np.float64]) -> NDArray[np.float64]:
        with np.errstate(invalid="ignore", divide="ignore"):
            p_a = sums[:, 0] / sums[:, 1]
            pi = sums[:, 2 : 2 + q] / sums[:, -1:]
            p_e = (pi * pi).sum(axis=1)
            kappa: NDArray[np.float64] = (p_a - p_e) / (1.0 - p_e)
        return np.where(np.isclose(p_e, 1.0), np.nan, kappa)

    return features, finish


def fleiss_kappa(counts: ArrayLike, *, require_equal_raters: bool = False) -> float:
    """Fleiss' κ from item × category counts (how many raters put item i in category k).

    Items may have different numbers of raters (Gwet's generalisation, see the module doc); with
    ``require_equal_raters`` that is refused instead. Items with one rating only add to the
    category shares. NaN when undefined (no item with two ratings, or a single category used).
    """
    features, finish = _fleiss_features(counts, require_equal_raters)
    return _value(features, finish)


def _krippendorff_features(counts: ArrayLike) -> tuple[NDArray[np.float64], Finish]:
    import numpy as np

    table = _as_counts(counts)
    values = table.sum(axis=1)
    # A unit with one value has no pair to compare: Krippendorff leaves it out entirely.
    table, values = table[values >= 2], values[values >= 2]
    q = table.shape[1]
    # Per unit: its values by category (their sum over units is n_c) and its contribution to
    # the diagonal of the coincidence matrix, o_cc += n_uc(n_uc − 1)/(m_u − 1).
    features = np.column_stack([table, table * (table - 1) / (values - 1)[:, None]])

    def finish(sums: NDArray[np.float64]) -> NDArray[np.float64]:
        n_c = sums[:, :q]
        n = n_c.sum(axis=1)
        observed_disagreement = n - sums[:, q:].sum(axis=1)  # Σ_{c≠k} o_ck
        expected_disagreement = n * n - (n_c * n_c).sum(axis=1)  # Σ_{c≠k} n_c n_k
        with np.errstate(invalid="ignore", divide="ignore"):
            alpha: NDArray[np.float64] = (
                1.0 - (n - 1.0) * observed_disagreement / expected_disagreement
            )
        return np.where(expected_disagreement > 0, alpha, np.nan)

    return features, finish


def krippendorff_alpha(counts: ArrayLike) -> float:
    """Krippendorff's α for nominal data from unit × category value counts.

    Build the counts from a units × coders table with missing values by
    :func:`category_counts`. Units with fewer than two values are not pairable and left out. NaN
    when undefined (no pairable unit, or every value in one category).
    """
    features, finish = _krippendorff_features(counts)
    return _value(features, finish)


# --- their bootstrap --------------------------------------------------------------------------


def _value(features: NDArray[np.float64], finish: Finish) -> float:
    if features.shape[0] == 0:
        return float("nan")
    return float(finish(features.sum(axis=0)[None, :])[0])


def _estimate(
    features: NDArray[np.float64],
    finish: Finish,
    clusters: Sequence[Hashable] | None,
    n_boot: int,
    seed: int | Sequence[int],
    confidence: float,
    unit: str = "item",
) -> Estimate:
    """The statistic with a percentile interval from resampling items (or their clusters, each
    one ``unit``).

    Resamples where the statistic is undefined (e.g. every resampled item in one category) are
    left out of the interval; if every one is, or there are fewer than two units (items, or
    clusters where given) to resample, the interval is NaN. Where the resamples kept all give
    one value (κ = 1 when every unit agrees fully, or every unit of one and the same pattern)
    the interval is NaN too, with its reason (:func:`one_resampled_value`).
    """
    import numpy as np

    n = int(features.shape[0])
    value = _value(features, finish)
    if n == 0:
        return Estimate(value, float("nan"), float("nan"), 0)
    if clusters is None:
        sums = features
    else:
        if len(clusters) != n:
            raise ValueError(f"{len(clusters)} cluster labels for {n} items; give one per item")
        order: dict[Hashable, int] = {}
        index = np.array([order.setdefault(c, len(order)) for c in clusters], dtype=np.int64)
        sums = np.zeros((len(order), features.shape[1]), dtype=np.float64)
        np.add.at(sums, index, features)
    if sums.shape[0] < 2:
        # One unit resampled is that unit every time: a zero-width interval would claim a
        # certainty its one unit cannot give, so there is none.
        return Estimate(value, float("nan"), float("nan"), n)
    rng = np.random.default_rng(seed)
    reps = np.concatenate([finish(w @ sums) for w in resample_weights(sums.shape[0], n_boot, rng)])
    finite = reps[np.isfinite(reps)]
    if finite.size == 0:
        return Estimate(value, float("nan"), float("nan"), n)
    alpha = 1.0 - confidence
    low, high = np.percentile(finite, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    if same_value(float(low), float(high)):
        reason = one_resampled_value(
            finite, units=int(sums.shape[0]), unit=unit, undefined=finite.size < reps.size,
            confidence=confidence,
        )  # fmt: skip
        return replace(Estimate(value, float("nan"), float("nan"), n), reason=reason)
    return Estimate(value, float(low), float(high), n)


def over_units(estimate: Estimate, clusters: Iterable[Hashable], unit: str) -> Estimate:
    """``estimate`` naming the units its interval resamples (``{"draws": 1}``), and why it has
    no interval where they are fewer than two (one unit resampled is always itself), or where
    every resample gives one value (the estimate's own reason)."""
    from diptych.core.resampled_units import plural

    k = len(set(clusters))
    reason = estimate.reason if k >= 2 else (f"one {unit} only" if k else f"no {unit}")
    return replace(estimate, units={plural(unit): k}, reason=reason)


def interval_name(estimates: Iterable[Estimate], unit: str, n_boot: int) -> str:
    """What a table's intervals are, said under it where a page shows only a few of its
    columns and not its note (Run detail, `diptych agreement`): "95% bootstrap interval over
    40 images, 2,000 resamples", or over each row's own units where the rows differ in them;
    empty where no row resampled any."""
    from diptych.core.resampled_units import counted, plural

    counts = {n for e in estimates if (n := sum((e.units or {}).values()))}
    if not counts:
        return ""
    over = counted(counts.pop(), unit) if len(counts) == 1 else f"each row's {plural(unit)}"
    return f"95% bootstrap interval over {over}, {n_boot:,} resamples"


def _check(n_boot: int, confidence: float) -> None:
    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")


def cohen_kappa_estimate(
    rater_a: Sequence[Hashable | None],
    rater_b: Sequence[Hashable | None],
    *,
    categories: Sequence[Hashable] | None = None,
    clusters: Sequence[Hashable] | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | Sequence[int] = 0,
    confidence: float = DEFAULT_CONFIDENCE,
    unit: str = "item",
) -> Estimate:
    """:func:`cohen_kappa` with a bootstrap interval over items (``clusters[i]``: item i's
    cluster, resampled as a whole); ``n`` is the number of items both raters labelled."""
    _check(n_boot, confidence)
    features, finish, kept = _cohen_features(rater_a, rater_b, categories)
    kept_clusters = None if clusters is None else [clusters[i] for i in kept]
    return _estimate(features, finish, kept_clusters, n_boot, seed, confidence, unit)


def fleiss_kappa_estimate(
    counts: ArrayLike,
    *,
    clusters: Sequence[Hashable] | None = None,
    require_equal_raters: bool = False,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | Sequence[int] = 0,
    confidence: float = DEFAULT_CONFIDENCE,
    unit: str = "item",
) -> Estimate:
    """:func:`fleiss_kappa` with a bootstrap interval over items (rows with no rating are left
    out before resampling, and from ``clusters`` with them)."""
    _check(n_boot, confidence)
    table = _as_counts(counts)
    rated = table.sum(axis=1) > 0
    features, finish = _fleiss_features(table, require_equal_raters)
    kept = None if clusters is None else [c for c, r in zip(clusters, rated, strict=True) if r]
    return _estimate(features, finish, kept, n_boot, seed, confidence, unit)


def krippendorff_alpha_estimate(
    counts: ArrayLike,
    *,
    clusters: Sequence[Hashable] | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | Sequence[int] = 0,
    confidence: float = DEFAULT_CONFIDENCE,
    unit: str = "item",
) -> Estimate:
    """:func:`krippendorff_alpha` with a bootstrap interval over the pairable units."""
    return pairable_estimate(
        counts,
        _krippendorff_features,
        clusters,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
        unit=unit,
    )


def pairable_estimate(
    counts: ArrayLike,
    features_of: Callable[[ArrayLike], tuple[NDArray[np.float64], Finish]],
    clusters: Sequence[Hashable] | None,
    *,
    n_boot: int,
    seed: int | Sequence[int],
    confidence: float,
    unit: str = "item",
) -> Estimate:
    """A Krippendorff α (any metric: ``features_of`` builds its per-unit terms) with a bootstrap
    interval over the pairable units — those with two values or more, the only ones α reads —
    or over their ``clusters``."""
    _check(n_boot, confidence)
    table = _as_counts(counts)
    pairable = table.sum(axis=1) >= 2
    features, finish = features_of(table)
    kept = None if clusters is None else [c for c, p in zip(clusters, pairable, strict=True) if p]
    return _estimate(features, finish, kept, n_boot, seed, confidence, unit)

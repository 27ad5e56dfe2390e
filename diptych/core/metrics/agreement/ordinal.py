"""Agreement on an ordinal scale (the Monk Skin Tone scale's ten steps): quadratic-weighted
Cohen's κ and Krippendorff's α with the ordinal metric, each with a bootstrap interval.

On an ordered scale a disagreement by one step is not a disagreement by nine: the nominal
coefficients of :mod:`.coefficients` count both alike. The two standard ordinal ones:

* **Quadratic-weighted Cohen's κ** (Cohen 1968; Fleiss & Cohen 1973), two raters on the same
  items: with the categories in scale order 0 … k−1, the disagreement weight of a pair is
  w_ij = (i − j)² / (k − 1)², the observed table o_ij and the table expected from each rater's
  own marginals e_ij = p_A(i)·p_B(j): κ_w = 1 − Σ w_ij o_ij / Σ w_ij e_ij. It is what
  ``statsmodels.stats.inter_rater.cohens_kappa(table, wt="quadratic")`` and scikit-learn's
  ``cohen_kappa_score(weights="quadratic")`` compute.
* **Krippendorff's α, ordinal** (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability",
  §C): the coincidence matrix o_ck = Σ_u (n_uc·n_uk − [c = k]·n_uc) / (m_u − 1) over the units
  with m_u ≥ 2 values, n_c = Σ_k o_ck, n = Σ_c n_c, the ordinal metric
  δ²_ck = (Σ_{g=c}^{k} n_g − (n_c + n_k)/2)², and α = 1 − (n − 1)·Σ o_ck δ²_ck / Σ n_c n_k δ²_ck.
  The metric rests on the values' frequencies, so a step between two rare tones weighs less
  than one across a crowded middle; it is what the ``krippendorff`` package computes with
  ``level_of_measurement="ordinal"``.

Both are ratios of sums over items, resampled as the nominal ones are (items, or clusters of
items such as the people of one image), with the interval of :func:`.coefficients._estimate`.
The scale's order is given (``categories``: for skin tone
:data:`diptych.core.labels.tone.MONK_LABELS`), never inferred from the labels: labels outside it
(``cannot_identify``) are left out as missing.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

from diptych.core.metrics.agreement.coefficients import (
    Finish,
    _as_counts,
    _check,
    _cohen_features,
    _estimate,
    _value,
    pairable_estimate,
)
from diptych.core.metrics.uncertainty.bootstrap import (
    DEFAULT_CONFIDENCE,
    DEFAULT_N_BOOT,
    Estimate,
)

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray


def _on_scale(
    labels: Sequence[Hashable | None], categories: Sequence[Hashable]
) -> list[Hashable | None]:
    """A label off the scale (cannot_identify) is missing, as no label is."""
    known = set(categories)
    return [label if label in known else None for label in labels]


def _weighted_features(
    rater_a: Sequence[Hashable | None],
    rater_b: Sequence[Hashable | None],
    categories: Sequence[Hashable],
) -> tuple[NDArray[np.float64], Finish, list[int]]:
    import numpy as np

    cats = list(categories)
    if len(cats) < 2:
        raise ValueError(f"an ordinal scale has two steps at least, got {cats!r}")
    features, _, kept = _cohen_features(_on_scale(rater_a, cats), _on_scale(rater_b, cats), cats)
    k = len(cats)
    steps = np.arange(k, dtype=np.float64)
    weight = ((steps[:, None] - steps[None, :]) / (k - 1)) ** 2

    def finish(sums: NDArray[np.float64]) -> NDArray[np.float64]:
        table = sums.reshape(-1, k, k)
        n = table.sum(axis=(1, 2))
        with np.errstate(invalid="ignore", divide="ignore"):
            observed = (table * weight).sum(axis=(1, 2)) / n
            expected_table = table.sum(axis=2)[:, :, None] * table.sum(axis=1)[:, None, :]
            expected = (expected_table * weight).sum(axis=(1, 2)) / (n * n)
            kappa: NDArray[np.float64] = 1.0 - observed / expected
        # No expected disagreement (both raters on one and the same step throughout): undefined.
        return np.where(expected > 0, kappa, np.nan)

    return features, finish, kept


def weighted_kappa(
    rater_a: Sequence[Hashable | None],
    rater_b: Sequence[Hashable | None],
    *,
    categories: Sequence[Hashable],
) -> float:
    """Quadratic-weighted Cohen's κ of two raters' labels on the ordered ``categories``
    (parallel sequences; None or a label off the scale: missing, the item left out). NaN when
    undefined: no item, or no expected disagreement."""
    features, finish, _ = _weighted_features(rater_a, rater_b, categories)
    return _value(features, finish)


def weighted_kappa_estimate(
    rater_a: Sequence[Hashable | None],
    rater_b: Sequence[Hashable | None],
    *,
    categories: Sequence[Hashable],
    clusters: Sequence[Hashable] | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | Sequence[int] = 0,
    confidence: float = DEFAULT_CONFIDENCE,
    unit: str = "item",
) -> Estimate:
    """:func:`weighted_kappa` with a bootstrap interval over the items both raters put on
    the scale (``clusters[i]``: item i's cluster, resampled whole)."""
    _check(n_boot, confidence)
    features, finish, kept = _weighted_features(rater_a, rater_b, categories)
    kept_clusters = None if clusters is None else [clusters[i] for i in kept]
    return _estimate(features, finish, kept_clusters, n_boot, seed, confidence, unit)


def _ordinal_alpha_features(counts: ArrayLike) -> tuple[NDArray[np.float64], Finish]:
    import numpy as np

    table = _as_counts(counts)
    values = table.sum(axis=1)
    table, values = table[values >= 2], values[values >= 2]
    q = table.shape[1]
    # Each unit's share of the coincidence matrix, flattened: (n_uc n_uk − [c=k] n_uc)/(m_u − 1).
    pairs = table[:, :, None] * table[:, None, :]
    pairs[:, np.arange(q), np.arange(q)] -= table
    features = (pairs / (values - 1)[:, None, None]).reshape(len(table), q * q)

    def finish(sums: NDArray[np.float64]) -> NDArray[np.float64]:
        o = sums.reshape(-1, q, q)
        n_c = o.sum(axis=2)
        n = n_c.sum(axis=1)
        # δ²_ck = (Σ_{g=min}^{max} n_g − (n_c + n_k)/2)², from the cumulative sums.
        cum = np.concatenate([np.zeros((len(o), 1)), np.cumsum(n_c, axis=1)], axis=1)
        lo = np.minimum.outer(np.arange(q), np.arange(q))
        hi = np.maximum.outer(np.arange(q), np.arange(q))
        between = cum[:, hi + 1] - cum[:, lo]
        delta = (between - (n_c[:, :, None] + n_c[:, None, :]) / 2.0) ** 2
        delta[:, np.arange(q), np.arange(q)] = 0.0
        observed = (o * delta).sum(axis=(1, 2))
        expected = (n_c[:, :, None] * n_c[:, None, :] * delta).sum(axis=(1, 2))
        with np.errstate(invalid="ignore", divide="ignore"):
            alpha: NDArray[np.float64] = 1.0 - (n - 1.0) * observed / expected
        return np.where(expected > 0, alpha, np.nan)

    return features, finish


def krippendorff_alpha_ordinal(counts: ArrayLike) -> float:
    """Krippendorff's α with the ordinal metric from unit × category value counts, the
    columns in scale order (build them with :func:`.coefficients.category_counts` and the
    scale as ``categories``). Units with fewer than two values are left out. NaN when
    undefined (no pairable unit, or every value on one step)."""
    features, finish = _ordinal_alpha_features(counts)
    return _value(features, finish)


def krippendorff_alpha_ordinal_estimate(
    counts: ArrayLike,
    *,
    clusters: Sequence[Hashable] | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | Sequence[int] = 0,
    confidence: float = DEFAULT_CONFIDENCE,
    unit: str = "item",
) -> Estimate:
    """:func:`krippendorff_alpha_ordinal` with a bootstrap interval over the pairable units."""
    return pairable_estimate(
        counts,
        _ordinal_alpha_features,
        clusters,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
        unit=unit,
    )

"""The interval of a mean over clusters with a range — a slice's STS over its images — and of
the difference of two such means.

A slice of a PST study (one setting, one stereotyped gender, one identity) is often a handful
of images, and its STS is often at its bound: an identity every image shows as stereotyped
scores +100. The percentile bootstrap of such a slice is no interval at all — every resample
gives +100, and [100, 100] claims a certainty a few images cannot give — and below a dozen
images it covers far less than it says even away from the bound (its replicates are drawn
from the observed share, so a share of 0.95 seen in four images is rarely resampled away from
1). The interval here is the one :mod:`diptych.core.metrics.uncertainty.intervals` makes for every
bounded figure: t with the images' exact bootstrap standard error on the logit scale of the range,
df the images less one, and at a bound (or wherever every image gave the same mean) the open
Clopper–Pearson end for the images. The images are the independent draws, so that end is
exact as it stands: the share of images that could differ from the rest is at most
Clopper–Pearson's for none in n, and each could move the slice's mean to the other end of
its range at most. (Korn & Graubard's shrinking by the design's df is for a size counted in
observations inside clusters; here the clusters are counted.) One image gives no interval,
and says so.

The difference of two independent slices (paired − single, the paper's gap) takes each
slice's interval and combines them by the method of variance estimates recovery (Newcombe
1998, *Statistics in Medicine* 17, method 10; Zou & Donner 2008): each side of the difference
is as far from its point as the two relevant sides of the slices together, in quadrature. It
is never of zero width where either slice has an interval, and it stays inside the range of
a difference. ``bench/validity/bounds.py`` measures the coverage of both on 2 × 2 … 6 × 6
designs, at and near the bound.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from diptych.core.metrics.uncertainty.bootstrap import DEFAULT_CONFIDENCE, Estimate
from diptych.core.metrics.uncertainty.intervals import Bounds
from diptych.core.metrics.uncertainty.resampling import Inference, _unit_variance, t_inference

if TYPE_CHECKING:
    from diptych.core.metrics.uncertainty.bootstrap import ClusterMean

Interval = tuple[float, float]


def cluster_mean_inference(
    mean: ClusterMean,
    *,
    bounds: Bounds,
    confidence: float = DEFAULT_CONFIDENCE,
    unit: str = "image",
) -> Inference:
    """The mean with its interval over its clusters (``unit``), inside ``bounds``."""
    n_units = mean.n_clusters
    units = {unit: n_units}
    if n_units < 2:
        return t_inference(
            mean.value, math.inf, 0.0, n=mean.n, units=units, design="clustered",
            confidence=confidence, reason=f"one {unit} only: no interval", bounds=bounds,
        )  # fmt: skip
    variance = _unit_variance(mean.sums, mean.counts.astype("float64"))
    return t_inference(
        mean.value, abs(mean.scale) * math.sqrt(variance), float(n_units - 1), n=mean.n,
        units=units, design="clustered", confidence=confidence, bounds=bounds,
        # The images, not the people in them, are what was drawn: Clopper–Pearson on them
        # exactly, with no design left to shrink it for.
        bound_n=n_units, bound_df=math.inf,
    )  # fmt: skip


def estimate_of(inference: Inference, *, population: str = "") -> Estimate:
    """The inference as a table's estimate, carrying its recipe (a gate makes the same interval
    at its level) and its units; without an interval, (−inf, inf) and the reason."""
    return Estimate(
        inference.value, inference.ci_low, inference.ci_high, inference.n,
        bounds=inference.bounds, units=dict(inference.units),
        population=population or inference.population,
        recipe=inference.recipe() if inference.has_interval else None,
        df=inference.df, se=inference.se, bound_n=inference.bound_n, reason=inference.reason,
    )  # fmt: skip


def interval_of(inference: Inference) -> Interval | None:
    """The interval, or None where there is none (one image)."""
    return (inference.ci_low, inference.ci_high) if inference.has_interval else None


def difference_interval(
    a: tuple[float, Interval | None], b: tuple[float, Interval | None]
) -> Interval | None:
    """The interval of a − b from each one's (value, interval) (module docstring); None when
    either has no interval."""
    (va, ia), (vb, ib) = a, b
    if ia is None or ib is None:
        return None
    d = va - vb
    low = d - math.hypot(va - ia[0], ib[1] - vb)
    high = d + math.hypot(ia[1] - va, vb - ib[0])
    return low, high

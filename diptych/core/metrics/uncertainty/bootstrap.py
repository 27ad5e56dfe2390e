"""Statistics shared by the metrics: a seeded cluster bootstrap and JSON-safe numbers.

The papers report point estimates only; diptych adds percentile bootstrap intervals. Observations
that share a unit of sampling (the two people in one paired image, the answers to one scenario) are
not independent, so the bootstrap resamples whole *clusters* with replacement rather than single
observations.

numpy is imported inside the functions so that importing this module (for ``Estimate`` or
``json_safe``) stays cheap.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

DEFAULT_N_BOOT = 2000
DEFAULT_CONFIDENCE = 0.95

# Upper bound on the cells of one (resamples x clusters) weight matrix held in memory at once;
# 2**22 int64 cells are 32 MiB, so a study with 100k images still bootstraps in bounded memory.
_MAX_CELLS_PER_CHUNK = 2**22


def json_safe(x: Any) -> Any:
    """Return ``x`` with every number made valid JSON, recursing into mappings and sequences.

    Infinite floats become the strings ``"inf"`` / ``"-inf"`` (DESIGN.md's contract, since JSON has
    no infinity) and NaN becomes ``None``; numpy scalars become Python ints and floats.
    """
    if isinstance(x, bool) or x is None or isinstance(x, str):
        return x
    if isinstance(x, numbers.Integral):
        return int(x)
    if isinstance(x, numbers.Real):
        f = float(x)
        if math.isnan(f):
            return None
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return f
    if isinstance(x, Mapping):
        return {str(k): json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_safe(v) for v in x]
    return x


@dataclass(frozen=True, slots=True)
class Estimate:
    """A point estimate with its percentile bootstrap interval.

    ``n`` is the number of observations the value was computed from (not the number of clusters).
    A headline estimate keeps its ``replicates`` (see :meth:`keeping`), so that its number
    carries what a gate needs to make the same percentile interval at another level; ``bounds``
    is the range the figure can take and ``units`` what the bootstrap resampled.
    """

    value: float
    ci_low: float
    ci_high: float
    n: int
    # Not compared: two estimates are equal by what they state, not by how they were drawn.
    replicates: NDArray[np.float64] | None = field(default=None, compare=False, repr=False)
    bounds: tuple[float, float] | None = None
    units: Mapping[str, int] | None = field(default=None, compare=False)
    population: str = field(default="", compare=False)
    #: How a t interval was made
    #: (:class:`~diptych.core.metrics.uncertainty.intervals.IntervalRecipe`), with the se, df and
    #: size at a bound it carries; or why there is no interval.
    recipe: Any = field(default=None, compare=False, repr=False)
    se: float | None = field(default=None, compare=False)
    df: float | None = field(default=None, compare=False)
    bound_n: int | None = field(default=None, compare=False)
    reason: str | None = field(default=None, compare=False)

    def keeping(
        self,
        replicates: ArrayLike,
        *,
        bounds: tuple[float, float] | None = None,
        units: Mapping[str, int] | None = None,
        population: str = "",
    ) -> Estimate:
        """The same estimate keeping the replicates its interval was read from."""
        import numpy as np

        reps = np.sort(np.asarray(replicates, dtype=np.float64).ravel())
        return Estimate(
            self.value, self.ci_low, self.ci_high, self.n, reps[np.isfinite(reps)], bounds, units,
            population,
        )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "value": json_safe(self.value),
            "ci_low": json_safe(self.ci_low),
            "ci_high": json_safe(self.ci_high),
            "n": self.n,
        }
        if self.replicates is not None:
            from diptych.core.metrics.uncertainty.intervals import IntervalRecipe

            out.update(IntervalRecipe.percentile(self.value, self.replicates).fields())
        if self.recipe is not None:
            # A t interval: what a gate needs to make it again at its level.
            out.update(json_safe({"se": self.se, "df": self.df}))
            out.update(json_safe(self.recipe.fields()))
            if self.bound_n is not None:
                out["bound_n"] = self.bound_n
        if self.bounds is not None:
            out["range"] = json_safe(list(self.bounds))
        if self.units:
            # With its units, what they speak for and the reason it lacks an interval, if it
            # does (a report's methods list prints all three).
            out["units"] = dict(self.units)
            out["population"] = self.population
            out["reason"] = self.reason
        return out


def _check_n_boot(n_boot: int) -> None:
    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")


def resample_weights(
    n_clusters: int, n_boot: int, rng: np.random.Generator
) -> Iterator[NDArray[np.int64]]:
    """Yield blocks of bootstrap weights: ``w[b, c]`` = how often resample ``b`` drew cluster ``c``.

    Each resample draws ``n_clusters`` cluster indices uniformly with replacement. Blocks are
    consecutive slices of one ``rng.integers(0, n_clusters, size=(n_boot, n_clusters))`` draw, so
    the result depends only on the generator's state, not on the block size.
    """
    import numpy as np

    if n_clusters < 1:
        raise ValueError("cannot bootstrap without any cluster")
    rows = max(1, _MAX_CELLS_PER_CHUNK // n_clusters)
    for start in range(0, n_boot, rows):
        b = min(rows, n_boot - start)
        idx = rng.integers(0, n_clusters, size=(b, n_clusters))
        # Counting the draws of each row in one bincount: row r's indices are shifted by
        # r * n_clusters so that rows land in separate bins.
        offsets = (np.arange(b, dtype=np.int64) * n_clusters)[:, None]
        counts = np.bincount((idx + offsets).ravel(), minlength=b * n_clusters)
        yield counts.reshape(b, n_clusters).astype(np.int64, copy=False)


def bootstrap_replicates(
    statistic: Callable[[NDArray[np.int64]], NDArray[np.float64]],
    n_clusters: int,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    """The bootstrap distribution of a statistic of clustered data.

    ``statistic`` receives a ``(b, n_clusters)`` matrix of cluster weights (see
    :func:`resample_weights`) and returns the ``b`` resampled values; written with matrix products
    it is vectorised over resamples. Calling it with a row of ones gives the point estimate.
    """
    import numpy as np

    _check_n_boot(n_boot)
    parts = [
        np.asarray(statistic(w), dtype=np.float64)
        for w in resample_weights(n_clusters, n_boot, rng)
    ]
    return np.concatenate(parts)


def percentile_interval(
    replicates: ArrayLike, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float]:
    """The equal-tailed percentile interval of bootstrap replicates (numpy's linear quantiles)."""
    import numpy as np

    _check_confidence(confidence)
    alpha = 1.0 - confidence
    low, high = np.percentile(
        np.asarray(replicates, dtype=np.float64), [100.0 * alpha / 2, 100.0 * (1.0 - alpha / 2)]
    )
    return float(low), float(high)


@dataclass(frozen=True, slots=True)
class ClusterMean:
    """A mean over observations grouped into clusters, reduced to per-cluster sums and counts.

    The mean of any resample is ``(w @ sums) / (w @ counts)``: this is what makes the bootstrap of
    a mean vectorised. Build it with :meth:`from_observations`.
    """

    sums: NDArray[np.float64]
    counts: NDArray[np.int64]
    scale: float = 1.0

    @classmethod
    def from_observations(
        cls, values: ArrayLike, clusters: Sequence[Any] | ArrayLike, *, scale: float = 1.0
    ) -> ClusterMean:
        """Group ``values`` by the parallel ``clusters`` labels (any hashable, e.g. image ids)."""
        import numpy as np

        vals = np.asarray(values, dtype=np.float64)
        labels = np.asarray(clusters)
        if vals.ndim != 1 or labels.shape != vals.shape:
            raise ValueError("values and clusters must be 1-d and of the same length")
        if vals.size == 0:
            raise ValueError("cannot take the mean of no observations")
        _, inverse = np.unique(labels, return_inverse=True)
        inverse = inverse.ravel()
        sums = np.bincount(inverse, weights=vals).astype(np.float64)
        counts = np.bincount(inverse).astype(np.int64)
        return cls(sums=sums, counts=counts, scale=scale)

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    @property
    def n_clusters(self) -> int:
        return int(self.counts.size)

    @property
    def value(self) -> float:
        return self.scale * float(self.sums.sum()) / self.n

    def statistic(self, weights: NDArray[np.int64]) -> NDArray[np.float64]:
        # Every cluster holds at least one observation and every resample draws n_clusters >= 1
        # clusters, so the denominator is never zero.
        result: NDArray[np.float64] = self.scale * (weights @ self.sums) / (weights @ self.counts)
        return result

    def replicates(
        self, *, n_boot: int = DEFAULT_N_BOOT, rng: np.random.Generator
    ) -> NDArray[np.float64]:
        return bootstrap_replicates(self.statistic, self.n_clusters, n_boot=n_boot, rng=rng)

    def replicates_by_type(
        self, *, n_boot: int = DEFAULT_N_BOOT, rng: np.random.Generator
    ) -> NDArray[np.float64]:
        """Bootstrap replicates of the mean drawn through cluster *types*, in O(n_boot × types).

        A cluster enters the mean only through its (count, sum), so clusters with the same pair
        are interchangeable. Drawing ``n_clusters`` clusters uniformly with replacement is then
        exactly a multinomial draw of how many clusters of each type the resample holds, with
        the types' shares as probabilities: the replicates have the distribution of
        :meth:`replicates` (a different random stream, so not the same numbers for a seed).
        Labels scored ±1 in images of one or two people have at most five types, which makes
        a bootstrap over a hundred thousand images cost no more than one over five.
        """
        import numpy as np

        _check_n_boot(n_boot)
        # Types in sorted (count, sum) order, so the draw does not depend on the order of the
        # clusters.
        order = np.lexsort((self.sums, self.counts))
        counts, sums = self.counts[order], self.sums[order]
        new_type = np.ones(counts.size, dtype=bool)
        new_type[1:] = (counts[1:] != counts[:-1]) | (sums[1:] != sums[:-1])
        starts = np.flatnonzero(new_type)
        shares = np.diff(np.append(starts, counts.size))
        drawn = rng.multinomial(self.n_clusters, shares / self.n_clusters, size=n_boot)
        result: NDArray[np.float64] = (
            self.scale * (drawn @ sums[starts]) / (drawn @ counts[starts].astype(np.float64))
        )
        return result


def bootstrap_cluster_mean(
    values: ArrayLike,
    clusters: Sequence[Any] | ArrayLike,
    *,
    scale: float = 1.0,
    n_boot: int = DEFAULT_N_BOOT,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int | Sequence[int] | None = 0,
) -> Estimate:
    """``scale`` × the mean of ``values`` with a percentile interval from resampling clusters.

    ``clusters[i]`` names the cluster of ``values[i]``; each resample draws as many clusters as
    there are, with replacement, and takes the mean over all their observations.
    """
    import numpy as np

    _check_n_boot(n_boot)
    _check_confidence(confidence)
    cm = ClusterMean.from_observations(values, clusters, scale=scale)
    reps = cm.replicates(n_boot=n_boot, rng=np.random.default_rng(seed))
    low, high = percentile_interval(reps, confidence)
    return Estimate(value=cm.value, ci_low=low, ci_high=high, n=cm.n)

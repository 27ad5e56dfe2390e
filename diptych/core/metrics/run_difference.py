"""The difference between two runs' figures: one figure of run A and of run B, and B − A with
its interval and test (:class:`RunDifference`).

B − A is paired where the runs asked the same units — matched per cell, the mean change over
cells resampled by the figure's units
(:func:`~diptych.core.metrics.uncertainty.resampling.paired_difference`) — and otherwise the
difference of two independent means, their variances added
(:func:`~diptych.core.metrics.uncertainty.resampling.difference_of_means`). Each figure's comparison
(the STS, the association score) is :mod:`diptych.core.metrics.compare`'s.
"""

from __future__ import annotations

import zlib
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from diptych.core.metrics.uncertainty.intervals import Bounds
from diptych.core.metrics.uncertainty.resampling import (
    Inference,
    difference_of_means,
    mean_over_units,
    paired_difference,
)

#: Observations with the units each belongs to: values, and per kind of unit a parallel list.
Sample = tuple[list[float], dict[str, list[Hashable | None]]]


@dataclass(frozen=True)
class RunDifference:
    """One figure of run A and run B, and B − A with its interval and test (``inference``).

    ``paired`` says whether B − A matched the runs per scene (same plan) or took them as
    independent samples."""

    a: Inference
    b: Inference
    inference: Inference
    paired: bool

    @property
    def difference(self) -> float:
        return self.inference.value

    @property
    def ci_low(self) -> float:
        return self.inference.ci_low

    @property
    def ci_high(self) -> float:
        return self.inference.ci_high

    @property
    def p_value(self) -> float:
        return self.inference.p_value

    def to_dict(self) -> dict[str, Any]:
        d = self.inference.to_dict()
        return {
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "difference": d["value"],
            "ci_low": d["ci_low"],
            "ci_high": d["ci_high"],
            "p_value": d["p_value"],
            "paired": self.paired,
            "inference": d,
        }


def method_note(paired: bool, units: str, n_boot: int, seed: int) -> str:
    how = (
        "the runs matched per unordered scene (both orders and all samples merged), B − A the "
        "mean change over scenes"
        if paired
        else "the runs taken as independent samples, their variances added"
    )
    return (
        f"95% CI and p from one resampling of {units}: {how}; interval (B − A) ± t·se and p "
        f"the t-test of the same se ({n_boot:,} bootstrap resamples, seed {seed})."
    )


def run_difference(
    a: Sample,
    b: Sample,
    matched: tuple[Mapping[Hashable, float], Mapping[Hashable, float]] | None,
    unit_of: Callable[[Hashable], Mapping[str, Hashable | None]],
    *,
    name: str,
    scale: float,
    n_boot: int,
    seed: int,
    confidence: float,
    bounds: Bounds,
) -> RunDifference | None:
    """B − A of one figure: paired over ``matched`` cells (A's and B's per-cell means) when
    given, else independent. None when either run has nothing to score. ``bounds`` is the
    range of each run's figure (on the scaled scale), so B − A lies in [low − high, high − low]:
    each interval is made inside its range."""
    if not a[0] or not b[0]:
        return None
    stream = zlib.crc32(f"{seed}/{name}".encode())
    one, two = bounds, (bounds[0] - bounds[1], bounds[1] - bounds[0])
    ia = mean_over_units(
        a[0], a[1], scale=scale, confidence=confidence, n_boot=n_boot, seed=[stream, 1],
        bounds=one,
    )  # fmt: skip
    ib = mean_over_units(
        b[0], b[1], scale=scale, confidence=confidence, n_boot=n_boot, seed=[stream, 2],
        bounds=one,
    )  # fmt: skip
    if matched is not None:
        d = paired_difference(
            matched[0], matched[1], unit_of, scale=scale, confidence=confidence,
            n_boot=n_boot, seed=[stream, 3], bounds=two,
        )  # fmt: skip
        if d is not None:
            return RunDifference(ia, ib, d, paired=True)
    d = difference_of_means(
        a, b, scale=scale, confidence=confidence, n_boot=n_boot, seed=stream, bounds=two
    )
    return RunDifference(ia, ib, d, paired=False)


def cell_means(values: Sequence[float], cells: Sequence[Hashable]) -> dict[Hashable, float]:
    sums: dict[Hashable, float] = defaultdict(float)
    counts: dict[Hashable, int] = defaultdict(int)
    for v, c in zip(values, cells, strict=True):
        sums[c] += v
        counts[c] += 1
    return {c: sums[c] / counts[c] for c in sums}

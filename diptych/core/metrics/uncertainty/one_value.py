"""Why a percentile bootstrap interval that would be a point is none: every resample of a
finite sample gives one value (an agreement κ of 1 where every unit agrees fully, a correlation of
points on one line), and a zero-width interval would claim a certainty the sample cannot give
(the rule of :mod:`diptych.core.metrics.uncertainty.intervals`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray


def same_value(a: float, b: float) -> bool:
    """Whether two ends of an interval are one value: resamples of one pattern give one value
    up to the last bits of a ratio of their sums."""
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def one_resampled_value(
    finite: NDArray[np.float64], *, units: int, unit: str, undefined: bool, confidence: float
) -> str:
    """Why a figure whose percentile interval would have no width has none, in the words of
    every page's "no interval (…)": "every resample of its 2 images gives 1.00".

    A percentile bootstrap can say no more there (an agreement κ at its bound of 1 when every
    unit agrees fully, or units with one and the same pattern of labels), and a zero-width
    interval would claim a certainty a finite sample cannot give (the rule of
    :mod:`diptych.core.metrics.uncertainty.intervals`). ``undefined``: some resamples were left
    out, the figure being undefined (0/0) in them."""
    from diptych.core.digits import figure_text
    from diptych.core.resampled_units import counted

    where = " where it is defined" if undefined else ""
    low, high = float(finite.min()), float(finite.max())
    if same_value(low, high):
        return f"every resample of its {counted(units, unit)}{where} gives {figure_text(low)}"
    import numpy as np

    # Not all alike, but the middle share the interval reads is: it has that one value.
    middle = float(np.median(finite))
    return (
        f"the middle {100 * confidence:g}% of the resamples of its {counted(units, unit)}"
        f"{where} give {figure_text(middle)}"
    )


def point_to_reason(number: dict[str, Any], replicates: ArrayLike, confidence: float) -> None:
    """A percentile number shown as it stands, never as a point: where its interval's ends meet
    (every resample gives one value), no interval, and why, in ``number`` itself."""
    import numpy as np

    reps = np.asarray(replicates, dtype=np.float64)
    units = number.get("units") or {}
    if not reps.size or not units or not same_value(number["ci_low"], number["ci_high"]):
        return
    (unit, k), *_ = units.items()
    why = one_resampled_value(reps, units=k, unit=unit, undefined=False, confidence=confidence)
    number.update(ci_low=math.nan, ci_high=math.nan, reason=why)

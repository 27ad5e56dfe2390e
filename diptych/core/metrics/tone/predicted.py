"""Prediction-powered tone figures: one automatic annotator's Monk steps on every person,
corrected by people's steps on a sample drawn with known probabilities, as the STS is
(:mod:`diptych.core.metrics.uncertainty.ppi.estimate`).

An annotator's error in skin tone is rarely symmetric: a beard's shadow, warm light or a
compressed highlight moves its reading one way, and a tone gap or a band's share inherits the
shift in full, however many images are drawn. With people's labels on a designed sample the
shift is measured and taken out, and the interval widens by what the sample leaves unknown.

Each figure is a ratio of two person means, as the STS is, so that a person whose tone could not
be read (step 0) is counted and left out of the figure:

* a band's share: Σ [step in band] / Σ [step read];
* the mean step: Σ step / Σ [step read];
* the tone gap of paired images: the masculine-stereotyped persons' mean step less the
  feminine-stereotyped persons', each a ratio, combined person by person
  (:func:`~diptych.core.metrics.uncertainty.ppi.estimate.prediction_powered_combination`) and
  resampled over both identity lists at once. Its estimand is the unweighted figure's,
  E[step_m] − E[step_f], read from every person whose tone was read rather than from the images
  where both were (an abstention at random leaves the two alike).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from diptych.core.metrics.tone.gap import GAP_RANGE
from diptych.core.metrics.tone.scale import BANDS, NO_TONE
from diptych.core.metrics.uncertainty.ppi.estimate import (
    PredictionPowered,
    prediction_powered_combination,
    prediction_powered_ratio,
)

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

Units = Mapping[str, Sequence[Hashable | None]]

#: The range of a mean step.
STEP_RANGE = (1.0, 10.0)


def _steps(values: ArrayLike, what: str) -> NDArray[np.int64]:
    import numpy as np

    arr = np.asarray(values, dtype=np.int64)
    bad = (arr != NO_TONE) & ((arr < 1) | (arr > 10))
    if bad.any():
        first = int(arr[bad][0])
        raise ValueError(f"{what}: Monk skin tone steps are 1 to 10 (0: none), got {first}")
    return arr


def _ratio(
    truth: ArrayLike,
    pred: ArrayLike,
    labelled: ArrayLike,
    probability: ArrayLike,
    units: Units,
    numerator: Any,
    *,
    scale: float,
    bounds: tuple[float, float],
    by_design: Mapping[str, int] | None,
) -> PredictionPowered:
    y = _steps(truth, "people's steps")
    f = _steps(pred, "the annotator's steps")
    return prediction_powered_ratio(
        numerator(y), (y != NO_TONE).astype(float), numerator(f), (f != NO_TONE).astype(float),
        labelled, probability, units, scale=scale, bounds=bounds, by_design=by_design,
    )  # fmt: skip


def prediction_powered_band_share(
    band: str,
    truth: ArrayLike,
    pred: ArrayLike,
    labelled: ArrayLike,
    probability: ArrayLike,
    units: Units,
    *,
    by_design: Mapping[str, int] | None = None,
) -> PredictionPowered:
    """The share of the persons whose tone was read that fall in ``band`` (one of
    :data:`~diptych.core.metrics.tone.scale.BAND_NAMES`), prediction-powered. One entry per
    person: people's step (read where ``labelled``), the annotator's step, the person's
    inclusion probability, and the units the figure resamples (as ``mean_over_units`` takes
    them)."""
    spans = {name: (first, last) for name, first, last in BANDS}
    if band not in spans:
        raise ValueError(f"tone band {band!r} is none of {', '.join(spans)}")
    low, high = spans[band]
    return _ratio(
        truth, pred, labelled, probability, units,
        lambda s: ((s >= low) & (s <= high)).astype(float),
        scale=1.0, bounds=(0.0, 1.0), by_design=by_design,
    )  # fmt: skip


def prediction_powered_mean_step(
    truth: ArrayLike,
    pred: ArrayLike,
    labelled: ArrayLike,
    probability: ArrayLike,
    units: Units,
    *,
    by_design: Mapping[str, int] | None = None,
) -> PredictionPowered:
    """The mean Monk step of the persons whose tone was read, prediction-powered (arguments as
    :func:`prediction_powered_band_share`'s)."""
    return _ratio(
        truth, pred, labelled, probability, units, lambda s: s.astype(float),
        scale=1.0, bounds=STEP_RANGE, by_design=by_design,
    )  # fmt: skip


def prediction_powered_tone_gap(
    masculine: PredictionPowered,
    masculine_units: Units,
    feminine: PredictionPowered,
    feminine_units: Units,
) -> PredictionPowered:
    """The tone gap of paired images, prediction-powered: the masculine-stereotyped persons'
    mean step (:func:`prediction_powered_mean_step`) less the feminine-stereotyped persons',
    their persons resampled together over the units both name (a paired scene's two
    identities)."""
    return prediction_powered_combination(
        [(1.0, masculine, masculine_units), (-1.0, feminine, feminine_units)], bounds=GAP_RANGE
    )

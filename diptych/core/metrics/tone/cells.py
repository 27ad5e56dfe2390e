"""Image figures read per gender × tone band, every cell with its count, a cell with too few
persons marked "too few to say" and never dropped.

Two readings of the same persons:

* **perceived gender × perceived tone band** (:func:`gender_tone_shares`): in each cell the number
  of persons, the share of the gender's persons drawn in the band (the tone distribution of
  persons perceived as men, and as women), and per band the share perceived feminine (the
  single-person shares, read per band);
* **stereotyped gender × perceived tone band** (:func:`sts_by_tone`): the STS of the persons of
  masculine- (feminine-) stereotyped identities drawn in the band. The STS compares perceived with
  stereotyped gender, so its cells are by the identity's stereotype; does the stereotype hold
  more for persons drawn dark than light?

Every interval is over images (the persons of one image together), inside the figure's range.

**The minimum.** A cell with fewer than ``min_persons`` persons (default :data:`MIN_PERSONS` = 10)
says "too few to say" and gives its count but no figure. Below ten persons a share's 95%
interval is wider than ±0.3 wherever the share is not near 0 or 1 (1.96·√(0.25/10) = 0.31 even
for independent persons; persons drawn together in one image make it wider), so the cell could
not tell a majority from a minority; an STS cell's is wider than ±60 points. The auditor can set
it (``-p min_cell=N``); a gate over several cells is one of a family, adjusted by Holm's
step-down with the audit's other gates (:mod:`diptych.core.audit.gates`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from diptych.core.metrics.tone.scale import BAND_NAMES, NO_TONE, band_of
from diptych.core.metrics.uncertainty.bootstrap import DEFAULT_CONFIDENCE
from diptych.core.metrics.uncertainty.intervals import SHARE_RANGE, STS_RANGE
from diptych.core.metrics.uncertainty.resampling import Inference, mean_over_units

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

#: The fewest persons a cell needs for its figure (module docstring).
MIN_PERSONS = 10
GENDERS = ("masculine", "feminine")
TOO_FEW = "too few to say"


@dataclass(frozen=True)
class Cell:
    """One gender × tone band cell: its persons and its figure, or why it has none."""

    gender: str
    band: str
    n: int
    figure: Inference | None
    #: Why there is no figure ("too few to say (n = 4 < 10)"), else "".
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "gender": self.gender,
            "band": self.band,
            "n": self.n,
            "figure": None if self.figure is None else self.figure.to_dict(),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class GenderToneTable:
    """The cells of one reading, gender by gender, band by band (none left out), and the
    minimum they were held to."""

    what: str
    cells: tuple[Cell, ...]
    min_persons: int
    #: Per band, the share perceived feminine (perceived-gender reading only).
    feminine_by_band: tuple[Cell, ...] = ()

    def cell(self, gender: str, band: str) -> Cell:
        return next(c for c in self.cells if c.gender == gender and c.band == band)

    def to_dict(self) -> dict[str, Any]:
        return {
            "what": self.what,
            "min_persons": self.min_persons,
            "cells": [c.to_dict() for c in self.cells],
            "feminine_by_band": [c.to_dict() for c in self.feminine_by_band],
        }


def _check(min_persons: int) -> None:
    if min_persons < 2:
        raise ValueError(f"a cell needs at least 2 persons for an interval, got {min_persons}")


def _cell(
    gender: str, band: str, values: NDArray[Any], images: NDArray[Any], min_persons: int,
    bounds: tuple[float, float], confidence: float, scale: float = 1.0,
) -> Cell:  # fmt: skip
    n = int(values.size)
    if n < min_persons:
        return Cell(gender, band, n, None, f"{TOO_FEW} (n = {n} < {min_persons})")
    figure = mean_over_units(
        values, {"image": images}, scale=scale, bounds=bounds, confidence=confidence
    )
    return Cell(gender, band, n, figure)


def _arrays(
    steps: ArrayLike, images: ArrayLike, *others: Sequence[str]
) -> tuple[NDArray[Any], NDArray[Any], list[NDArray[Any]]]:
    import numpy as np

    step = np.asarray(steps, dtype=np.int64)
    image = np.asarray(images)
    if step.ndim != 1 or image.shape != step.shape or any(len(o) != step.size for o in others):
        raise ValueError("one step, image and gender per person")
    bad = (step != NO_TONE) & ((step < 1) | (step > 10))
    if bad.any():
        raise ValueError(
            f"Monk skin tone steps are 1 to 10 (0: cannot identify), got {int(step[bad][0])}"
        )
    return step, image, [np.asarray(o, dtype=object) for o in others]


def gender_tone_shares(
    perceived: Sequence[str],
    steps: ArrayLike,
    images: ArrayLike,
    *,
    min_persons: int = MIN_PERSONS,
    confidence: float = DEFAULT_CONFIDENCE,
) -> GenderToneTable:
    """Perceived gender × tone band: per cell the persons and the share of the gender's persons
    in the band; per band the share perceived feminine. Persons without a perceived gender
    (masculine / feminine) or a tone are left out of both readings."""
    import numpy as np

    _check(min_persons)
    step, image, (gender,) = _arrays(steps, images, perceived)
    known = (step != NO_TONE) & np.isin(gender, GENDERS)
    step, image, gender = step[known], image[known], gender[known]
    band = np.asarray([band_of(s) for s in step.tolist()], dtype=np.int64)
    cells = []
    for g in GENDERS:
        mine = gender == g
        for b, name in enumerate(BAND_NAMES):
            # The cell's count is the band's persons; its figure is their share of the gender.
            n = int((mine & (band == b)).sum())
            if n < min_persons:
                cells.append(Cell(g, name, n, None, f"{TOO_FEW} (n = {n} < {min_persons})"))
                continue
            hit = (band[mine] == b).astype(np.float64)
            figure = mean_over_units(
                hit, {"image": image[mine]}, bounds=SHARE_RANGE, confidence=confidence
            )
            cells.append(Cell(g, name, n, figure))
    feminine = [
        _cell(
            "feminine",
            name,
            (gender[band == b] == "feminine").astype(np.float64),
            image[band == b],
            min_persons,
            SHARE_RANGE,
            confidence,
        )  # fmt: skip
        for b, name in enumerate(BAND_NAMES)
    ]
    return GenderToneTable(
        "share of the gender's persons in each tone band", tuple(cells), min_persons,
        tuple(feminine),
    )  # fmt: skip


def sts_by_tone(
    stereotype: Sequence[str],
    perceived: Sequence[str],
    steps: ArrayLike,
    images: ArrayLike,
    *,
    min_persons: int = MIN_PERSONS,
    confidence: float = DEFAULT_CONFIDENCE,
) -> GenderToneTable:
    """Stereotyped gender × tone band: the STS (× 100, PST §3.3) of each cell's persons.
    Persons perceived as neither gender (cannot_identify) or without a tone are left out, as
    the STS leaves them."""
    import numpy as np

    _check(min_persons)
    step, image, (stereo_of, gender) = _arrays(steps, images, stereotype, perceived)
    known = (step != NO_TONE) & np.isin(gender, GENDERS)
    step, image, stereo_of, gender = step[known], image[known], stereo_of[known], gender[known]
    band = np.asarray([band_of(s) for s in step.tolist()], dtype=np.int64)
    score = np.where(gender == stereo_of, 1.0, -1.0)
    cells = [
        _cell(
            g,
            name,
            score[(stereo_of == g) & (band == b)],
            image[(stereo_of == g) & (band == b)],
            min_persons,
            STS_RANGE,
            confidence,
            100.0,
        )  # fmt: skip
        for g in GENDERS
        for b, name in enumerate(BAND_NAMES)
    ]
    return GenderToneTable("STS of the stereotyped gender's persons in each band", tuple(cells),
                           min_persons)  # fmt: skip

"""The tone gap of paired images: how many Monk steps darker one identity is drawn than the
identity it is paired with, over the crossed design of the two identity lists.

A PST scene pairs a masculine-stereotyped identity with a feminine-stereotyped one, drawn in both
orders. In each image where both persons' tones were read, the gap is the masculine-stereotyped
identity's step less the feminine-stereotyped one's (left minus right when the
masculine-stereotyped identity stands on the left): above 0, the masculine-stereotyped identity is
drawn darker; below 0, lighter. The figure is the mean over those images, in Monk steps, in
[−9, 9].

Its interval resamples both identity lists (Owen's two-way design, with the moment correction
of :func:`~diptych.core.metrics.uncertainty.resampling.mean_over_units`): it speaks for
identities like these, exactly as the STS over identities does, and a gate or a sequential look
reads it the same way. Where the identities dominate its variance, its degrees of freedom are
Satterthwaite's over the two lists (``lists_df="satterthwaite"``), not the STS's smaller list
less one: a step is near normal where a person's ±1 is not, and with both lists varying alike
t(min − 1) covered 0.976 at 10 × 10, Satterthwaite's t(≈ 18) 0.964. An image where either
tone is ``cannot_identify`` gives no gap and is counted. Per identity the gap is that
identity's person less its partner's (so that it reads "this identity is drawn darker" for
either list), with the interval over its images.
``bench/validity/tone/intervals.py`` measures the coverage on simulated crossed designs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from diptych.core.metrics.tone.scale import MAX_GAP, NO_TONE
from diptych.core.metrics.uncertainty.bootstrap import DEFAULT_CONFIDENCE
from diptych.core.metrics.uncertainty.resampling import Inference, mean_over_units

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

#: The range of a gap in Monk steps.
GAP_RANGE = (-MAX_GAP, MAX_GAP)
MASCULINE_UNIT = "masculine identity"
FEMININE_UNIT = "feminine identity"


@dataclass(frozen=True)
class ToneGap:
    """The overall gap over identities, each identity's gap over its images, and how many
    images gave no gap."""

    overall: Inference | None
    #: Per identity: its person's step less its partner's, over its images.
    by_identity: dict[str, Inference]
    #: Paired images where one or both tones could not be read.
    n_without_gap: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "overall": None if self.overall is None else self.overall.to_dict(),
            "by_identity": {k: v.to_dict() for k, v in self.by_identity.items()},
            "images_without_gap": self.n_without_gap,
        }


def tone_gap(
    masculine_step: ArrayLike,
    feminine_step: ArrayLike,
    masculine_identity: Sequence[str],
    feminine_identity: Sequence[str],
    *,
    confidence: float = DEFAULT_CONFIDENCE,
) -> ToneGap:
    """The tone gap of paired images, one entry per image: each person's step (1–10, 0 where
    it could not be read) and identity, by the gender its identity is stereotyped as."""
    import numpy as np

    m = np.asarray(masculine_step, dtype=np.int64)
    f = np.asarray(feminine_step, dtype=np.int64)
    if not (m.shape == f.shape == (len(masculine_identity),) == (len(feminine_identity),)):
        raise ValueError("one masculine and one feminine step and identity per image")
    for arr in (m, f):
        bad = (arr != NO_TONE) & ((arr < 1) | (arr > 10))
        if bad.any():
            raise ValueError(
                f"Monk skin tone steps are 1 to 10 (0: cannot identify), got {int(arr[bad][0])}"
            )
    both = (m != NO_TONE) & (f != NO_TONE)
    gap = (m - f)[both].astype(np.float64)
    mi = [x for x, keep in zip(masculine_identity, both.tolist(), strict=True) if keep]
    fi = [x for x, keep in zip(feminine_identity, both.tolist(), strict=True) if keep]
    overall = (
        mean_over_units(
            gap,
            {MASCULINE_UNIT: mi, FEMININE_UNIT: fi},
            confidence=confidence,
            bounds=GAP_RANGE,
            lists_df="satterthwaite",
        )
        if gap.size
        else None
    )
    by_identity: dict[str, Inference] = {}
    images = np.flatnonzero(both)
    for names, sign in ((mi, 1.0), (fi, -1.0)):
        for name in dict.fromkeys(names):
            chosen = np.asarray([x == name for x in names])
            by_identity[name] = mean_over_units(
                sign * gap[chosen], {"image": images[chosen]}, confidence=confidence,
                bounds=GAP_RANGE,
            )  # fmt: skip
    return ToneGap(overall, by_identity, int((~both).sum()))

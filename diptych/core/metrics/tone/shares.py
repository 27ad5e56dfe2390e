"""The distribution of perceived skin tone over persons, with intervals over the units that
vary, and its imbalance against a stated reference.

Each person with a tone counts once. The share of a step (or band) is the mean of "this person
is in it" over the persons, and its interval resamples the design's units as the STS's does
(:func:`~diptych.core.metrics.uncertainty.resampling.mean_over_units`): images for one identity,
both identity lists for a setting's figure over identities (crossed in paired images, strata in
single ones). It is made inside [0, 1], with Clopper–Pearson's open end where no person (or every
person) is in the band — the common case for the darkest band of many models.

**Imbalance.** Against a reference distribution r (uniform unless the auditor gives one,
:func:`~diptych.core.metrics.tone.scale.reference_distribution`) the imbalance of band b is its
share less the reference's, p_b − r_b: signed (below 0, the band is drawn less often than the
reference has it), with the same interval, made inside [−r_b, 1 − r_b], and its test of p_b = r_b.
A gate can read it on one side or both (``within``). HEIM's single number, Σ_k |p_k − r_k| / 10
over the ten steps, is given beside it without an interval: an absolute value is biased upward
where the truth is balanced (every sample's deviations count as imbalance), so an interval around
it would not cover the balanced truth; the signed per-band figures carry the decision instead.
``bench/validity/tone/intervals.py`` measures the coverage of the band imbalance's interval.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from diptych.core.metrics.tone.scale import (
    BAND_NAMES,
    BANDS,
    NO_TONE,
    STEPS,
    band_reference,
    reference_distribution,
)
from diptych.core.metrics.uncertainty.bootstrap import DEFAULT_CONFIDENCE, json_safe
from diptych.core.metrics.uncertainty.intervals import SHARE_RANGE
from diptych.core.metrics.uncertainty.resampling import Inference, mean_over_units

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray


@dataclass(frozen=True)
class ToneDistribution:
    """The persons' tones: counts per step, shares per step and band with intervals, and each
    band's imbalance (share − reference) with its interval."""

    #: Persons per step 1–10.
    counts: tuple[int, ...]
    #: Persons whose tone could not be read (counted, never scored).
    n_no_tone: int
    steps: tuple[Inference, ...]
    bands: tuple[Inference, ...]
    imbalance: tuple[Inference, ...]
    #: The reference share of each step (sums to 1).
    reference: tuple[float, ...]

    @property
    def n(self) -> int:
        """Persons with a tone."""
        return sum(self.counts)

    @property
    def band_counts(self) -> tuple[int, ...]:
        return tuple(sum(self.counts[first - 1 : last]) for _, first, last in BANDS)

    @property
    def heim_imbalance(self) -> float:
        """HEIM's Σ_k |p_k − r_k| / 10 over the ten steps; no interval (module docstring)."""
        n = self.n
        return sum(abs(c / n - r) for c, r in zip(self.counts, self.reference, strict=True)) / 10

    def to_dict(self) -> dict[str, Any]:
        return {
            "counts": {str(k): c for k, c in zip(STEPS, self.counts, strict=True)},
            "n": self.n,
            "cannot_identify": self.n_no_tone,
            "steps": {str(k): s.to_dict() for k, s in zip(STEPS, self.steps, strict=True)},
            "bands": {b: s.to_dict() for b, s in zip(BAND_NAMES, self.bands, strict=True)},
            "imbalance": {b: s.to_dict() for b, s in zip(BAND_NAMES, self.imbalance, strict=True)},
            "reference": json_safe(list(self.reference)),
            "heim_imbalance": self.heim_imbalance,
        }


def tone_distribution(
    steps: ArrayLike,
    units: Mapping[str, Sequence[Hashable | None] | NDArray[Any]],
    *,
    reference: str | Sequence[float] | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> ToneDistribution | None:
    """The distribution of ``steps`` (1–10 per person; 0 where the tone could not be read) with
    intervals over ``units`` (parallel to ``steps``; as
    :func:`~diptych.core.metrics.uncertainty.resampling.mean_over_units` takes them), and the
    imbalance of each band against ``reference``. None when no person has a tone."""
    import numpy as np

    step = np.asarray(steps, dtype=np.int64)
    if step.ndim != 1:
        raise ValueError("steps must be 1-d")
    outside = (step != NO_TONE) & ((step < 1) | (step > 10))
    if outside.any():
        raise ValueError(
            f"Monk skin tone steps are 1 to 10 (0: cannot identify), got {int(step[outside][0])}"
        )
    ref = reference_distribution(reference)
    scored = step != NO_TONE
    if not scored.any():
        return None
    kept = {name: _kept(labels, scored) for name, labels in units.items()}
    s = step[scored]

    def share(hit: NDArray[Any], offset: float = 0.0) -> Inference:
        return mean_over_units(
            hit.astype(np.float64) - offset, kept, confidence=confidence,
            bounds=(SHARE_RANGE[0] - offset, SHARE_RANGE[1] - offset),
        )  # fmt: skip

    counts = tuple(int((s == k).sum()) for k in STEPS)
    in_band = [(s >= first) & (s <= last) for _, first, last in BANDS]
    return ToneDistribution(
        counts=counts,
        n_no_tone=int((~scored).sum()),
        steps=tuple(share(s == k) for k in STEPS),
        bands=tuple(share(hit) for hit in in_band),
        imbalance=tuple(share(hit, r) for hit, r in zip(in_band, band_reference(ref), strict=True)),
        reference=ref,
    )


def _kept(labels: Sequence[Hashable | None] | NDArray[Any], mask: NDArray[Any]) -> Any:
    import numpy as np

    if isinstance(labels, np.ndarray):
        return labels[mask]
    return [lab for lab, keep in zip(labels, mask.tolist(), strict=True) if keep]

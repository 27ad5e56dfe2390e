"""The Monk Skin Tone scale as figures read it: its ten steps, their published colours, the three
bands the figures group them in, and the reference distribution an imbalance is measured against.

The Monk Skin Tone (MST) scale (Ellis Monk, 2019; released by Google in 2022 for fairness work)
has ten tones, 1 the lightest and 10 the darkest. The sRGB values below are those published with
it and used by HEIM (Lee et al., NeurIPS 2023) and DALL-Eval (Cho, Zala & Bansal, ICCV 2023); a
report draws them as swatches, each with its number. A step here is an integer 1–10; 0 stands
for a person whose tone could not be read (``cannot_identify``), which every figure counts and
none scores.

The bands 1–3, 4–7 and 8–10 group the scale's light, middle and dark tones so that a figure over
a few hundred persons still has persons in each cell; the ten steps stay in every table beside
them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: The published sRGB value of each step, 1 (lightest) to 10 (darkest).
MONK_SRGB: tuple[str, ...] = (
    "#f6ede4", "#f3e7db", "#f7ead0", "#eadaba", "#d7bd96",
    "#a07e56", "#825c43", "#604134", "#3a312a", "#292420",
)  # fmt: skip
#: The steps of the scale.
STEPS: tuple[int, ...] = tuple(range(1, 11))
#: A person whose tone could not be read.
NO_TONE = 0
#: The three bands: (name, first step, last step).
BANDS: tuple[tuple[str, int, int], ...] = (
    ("Monk 1–3", 1, 3),
    ("Monk 4–7", 4, 7),
    ("Monk 8–10", 8, 10),
)
BAND_NAMES: tuple[str, ...] = tuple(name for name, _, _ in BANDS)
#: The largest gap between two persons' tones, in Monk steps.
MAX_GAP = 9.0


def band_of(step: int) -> int:
    """The index in :data:`BANDS` of a step 1–10; a ValueError for anything else."""
    for index, (_, first, last) in enumerate(BANDS):
        if first <= step <= last:
            return index
    raise ValueError(f"Monk skin tone step {step} is not one of 1 to 10")


def reference_distribution(spec: str | Sequence[float] | None = None) -> tuple[float, ...]:
    """The share each of the ten steps is expected to have, summing to 1.

    ``None`` or ``"uniform"``: a tenth each (HEIM's reference). Ten weights: one per step.
    Three weights: one per band (:data:`BANDS`), spread evenly over the band's steps. Weights
    need not sum to 1; they are normalised. A ValueError says what is wrong otherwise."""
    if spec is None or (isinstance(spec, str) and spec.strip().lower() == "uniform"):
        return (0.1,) * 10
    if isinstance(spec, str):
        try:
            weights = [float(part) for part in spec.replace(";", ",").split(",")]
        except ValueError:
            raise ValueError(
                f"tone reference {spec!r}: give 'uniform', ten weights (one per Monk step) or "
                "three (one per band 1–3, 4–7, 8–10), separated by commas"
            ) from None
    else:
        weights = [float(w) for w in spec]
    if len(weights) not in (3, 10):
        raise ValueError(
            f"a tone reference has ten weights (one per Monk step) or three (one per band "
            f"1–3, 4–7, 8–10), not {len(weights)}"
        )
    if any(not math.isfinite(w) or w < 0 for w in weights) or sum(weights) <= 0:
        raise ValueError("a tone reference's weights are non-negative and not all 0")
    if len(weights) == 3:
        steps: list[float] = []
        for w, (_, first, last) in zip(weights, BANDS, strict=True):
            steps += [w / (last - first + 1)] * (last - first + 1)
        weights = steps
    total = sum(weights)
    return tuple(w / total for w in weights)


def band_reference(reference: Sequence[float]) -> tuple[float, ...]:
    """Each band's share of a ten-step reference."""
    return tuple(sum(reference[first - 1 : last]) for _, first, last in BANDS)

"""The matched comparison of two runs that asked the same trials (same identities, orders and
seeds), one of them under an intervention: each observation is matched across the two, so the
difference is measured per match rather than between two independent samples.

The unit is the unordered scene: a PST scene pairs one masculine- and one feminine-stereotyped
identity, and both of its orders (left/right) and all of its samples move together, so they are
merged into one cell; the identities are crossed in the scenes, and the interval resamples both
lists (:func:`diptych.core.metrics.uncertainty.resampling.paired_difference`, Owen's two-way
design). The interval and the p-value come from the same resampling and the same t distribution, so
an interval that excludes 0 always comes with p < 0.05 and the other way round.

(:mod:`diptych.core.metrics.compare` tests two independent runs; these runs are matched.)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

from diptych.core.metrics.uncertainty.bootstrap import DEFAULT_CONFIDENCE, DEFAULT_N_BOOT
from diptych.core.metrics.uncertainty.resampling import Inference, paired_difference

#: The units of a matched PST comparison: the two identity lists of the unordered scenes.
SCENE_UNITS = ("masculine identity", "feminine identity")


def scene_difference(
    base: Mapping[Any, float],
    treated: Mapping[Any, float],
    scene: Callable[[Any], tuple[str, str]],
    *,
    scale: float = 100.0,
    confidence: float = DEFAULT_CONFIDENCE,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
) -> Inference | None:
    """Treated − base (× ``scale``) over the keys both runs have, each key's unordered scene
    given by ``scene(key)`` = (masculine identity, feminine identity); None when nothing is
    matched. The difference of two STS lies in ±2·``scale``, and its interval stays there."""

    def units(key: Hashable) -> dict[str, Hashable | None]:
        masculine, feminine = scene(key)
        return {SCENE_UNITS[0]: masculine, SCENE_UNITS[1]: feminine}

    return paired_difference(
        base, treated, units, scale=scale, confidence=confidence, n_boot=n_boot, seed=seed,
        bounds=(-2 * abs(scale), 2 * abs(scale)),
    )  # fmt: skip

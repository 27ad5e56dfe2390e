"""The perceived-skin-tone vocabulary: the ten tones of the Monk Skin Tone scale and an abstention.

A tone label says what skin tone a person *appears* to have in one image, under that image's
light: ``monk-1`` (lightest) to ``monk-10`` (darkest) on the Monk Skin Tone (MST) scale (Monk,
2019; released by Google in 2022), or ``cannot_identify`` when the image does not let it be read.
It is not race, ethnicity or anything about who the person is. Tone labels are stored as their
own label *dimension* (:data:`TONE`), next to the perceived-gender labels of the same person,
and no gender figure reads them.
"""

from __future__ import annotations

import re

from diptych.core.labels.record import CANNOT_IDENTIFY, TONE

__all__ = [
    "MONK_LABELS",
    "MONK_STEPS",
    "TONE",
    "TONE_LABELS",
    "monk_label",
    "monk_step",
    "tone_label",
]

#: The steps of the Monk Skin Tone scale, lightest first.
MONK_STEPS = tuple(range(1, 11))
#: The tone labels of the ten steps (``monk-1`` ... ``monk-10``).
MONK_LABELS = tuple(f"monk-{k}" for k in MONK_STEPS)
#: The tone vocabulary: the ten steps, and the abstention shared with every dimension.
TONE_LABELS = (*MONK_LABELS, CANNOT_IDENTIFY)

# "monk-3", "MST 3", "monk_3", "mst-03", a bare "3": one step of the scale.
_SPELLING = re.compile(r"^(?:(?:monk|mst)(?:[\s_-]*(?:skin[\s_-]*tone)?)?[\s_-]*)?0*(\d{1,2})$")


def monk_label(step: int) -> str:
    """The tone label of step ``step`` (1 to 10) of the scale."""
    if step not in MONK_STEPS:
        raise ValueError(f"Monk skin tone step {step} is not one of 1 to 10")
    return f"monk-{step}"


def tone_label(text: str) -> str | None:
    """``text`` as one of :data:`TONE_LABELS` (``"MST 3"``, ``"monk_3"``, ``"3"`` are
    ``monk-3``; ``"cannot identify"`` is ``cannot_identify``), or None if it is none of them."""
    t = text.strip().lower()
    if t.replace("-", "_").replace(" ", "_") in (CANNOT_IDENTIFY, "unknown"):
        return CANNOT_IDENTIFY
    match = _SPELLING.match(t)
    if match is None:
        return None
    step = int(match.group(1))
    return monk_label(step) if step in MONK_STEPS else None


def monk_step(label: str) -> int | None:
    """The step (1 to 10) a tone label names, or None for ``cannot_identify`` or another word."""
    canonical = tone_label(label)
    if canonical is None or canonical == CANNOT_IDENTIFY:
        return None
    return int(canonical.removeprefix("monk-"))

"""Perceived skin tone in generated images, as figures with their uncertainty.

A tone is a step of the Monk Skin Tone scale (1 the lightest, 10 the darkest) that an annotator
read from a person's skin in one image, under that image's light: perceived skin tone in an
image — not race, not ethnicity, not who the person is. The package has four parts:
:mod:`.scale` (the steps, their published colours, the bands 1–3 / 4–7 / 8–10 and the reference
an imbalance is measured against), :mod:`.shares` (the distribution over persons and each band's
imbalance, with intervals), :mod:`.gap` (how many steps darker one identity of a paired image is
drawn than the other, over the crossed design) and :mod:`.cells` (image figures per gender × tone
band, with a minimum below which a cell says "too few to say").
"""

from diptych.core.metrics.tone.cells import (
    MIN_PERSONS,
    TOO_FEW,
    Cell,
    GenderToneTable,
    gender_tone_shares,
    sts_by_tone,
)
from diptych.core.metrics.tone.gap import GAP_RANGE, ToneGap, tone_gap
from diptych.core.metrics.tone.scale import (
    BAND_NAMES,
    BANDS,
    MONK_SRGB,
    NO_TONE,
    STEPS,
    band_of,
    band_reference,
    reference_distribution,
)
from diptych.core.metrics.tone.shares import ToneDistribution, tone_distribution

__all__ = [
    "BANDS",
    "BAND_NAMES",
    "GAP_RANGE",
    "MIN_PERSONS",
    "MONK_SRGB",
    "NO_TONE",
    "STEPS",
    "TOO_FEW",
    "Cell",
    "GenderToneTable",
    "ToneDistribution",
    "ToneGap",
    "band_of",
    "band_reference",
    "gender_tone_shares",
    "reference_distribution",
    "sts_by_tone",
    "tone_distribution",
    "tone_gap",
]

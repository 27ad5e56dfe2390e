"""Standing among models: every audited model's figure side by side, pairwise differences with
Holm-corrected tests and ranks with their intervals (:mod:`.table`), from the observations a
probe hands over with their units (:mod:`.samples`)."""

from diptych.core.standings.decided import DecidedInterval, DecidedKind
from diptych.core.standings.samples import FigureSample, design_of, sts_samples, sts_unit_words
from diptych.core.standings.table import (
    DesignTable,
    Measured,
    PairDifference,
    Reference,
    Standing,
    Standings,
    Succession,
    difference_of,
    rank_table,
    standings,
    successions,
)

__all__ = [
    "DecidedInterval",
    "DecidedKind",
    "DesignTable",
    "FigureSample",
    "Measured",
    "PairDifference",
    "Reference",
    "Standing",
    "Standings",
    "Succession",
    "design_of",
    "difference_of",
    "rank_table",
    "standings",
    "successions",
    "sts_samples",
    "sts_unit_words",
]

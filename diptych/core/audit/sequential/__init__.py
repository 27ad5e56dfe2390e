"""Sequential gates: an audit bought batch by batch, its gates decided after every batch on the
anytime-valid interval of its looks (a group-sequential design).

The package has two parts: :mod:`.looks` (a look and a part's looks as the recorded audit keeps
them, the anytime-valid figure a gate reads over them, and the words every surface names a look
in) and :mod:`.stopping` (why an audit's looks stopped, after how many, and what of its gated
designs they bought: :class:`SequentialSummary`).
"""

from __future__ import annotations

from diptych.core.audit.sequential.looks import (
    ANYTIME,
    DEFAULT_BATCHES,
    MAX_BATCHES,
    STOP_TEXT,
    WHOLE_DESIGN,
    Look,
    PartLooks,
    StopReason,
    Untested,
    anytime_figure,
    bought_words,
    look_interval,
    look_text,
    status_at,
    undecided_note,
    with_sequential_notes,
)
from diptych.core.audit.sequential.stopping import (
    LOOKS_SHARE,
    SequentialSummary,
    capped_parts,
    look_at,
    looks_share_spent,
    own_stop,
    rest_note,
    rest_words,
)

__all__ = [
    "ANYTIME",
    "DEFAULT_BATCHES",
    "LOOKS_SHARE",
    "MAX_BATCHES",
    "STOP_TEXT",
    "WHOLE_DESIGN",
    "Look",
    "PartLooks",
    "SequentialSummary",
    "StopReason",
    "Untested",
    "anytime_figure",
    "bought_words",
    "capped_parts",
    "look_at",
    "look_interval",
    "look_text",
    "looks_share_spent",
    "own_stop",
    "rest_note",
    "rest_words",
    "status_at",
    "undecided_note",
    "with_sequential_notes",
]

"""The Stereotype Test Score (STS) of the Paired Stereotype Test (PST paper, section 3.3).

Each *subject* is one person in a generated image: the only person of a single-person image, or the
left or right person of a paired image (two people with identities stereotyped as opposite genders).
Its perceived gender is compared with the gender its identity is stereotyped as:

    Stereo(g_img, g_stereo) = +1 if g_img == g_stereo else -1

The overall STS of a setting is the mean of Stereo over all its subjects and the micro STS of an
identity the mean over the subjects with that identity, both × 100 as the paper reports them
(Tables 2, 13, 14). With every pair generated in both orders (section 3.3.1) the mean over subjects
is exactly the paper's 1/(4·|id_m|·|id_f|) sum, and the micro mean its 1/(2·|id_f|) sum.

Labels from several annotators of one subject are reduced by majority (the paper hires three per
subject); a subject whose label is ``cannot_identify`` — given, or a tie — is left out of every
score and counted. Intervals are over images
(:mod:`diptych.core.metrics.uncertainty.cluster_interval`): the two people of one paired image were
drawn together, so they count together.

The package has four parts: :mod:`.rows` (a person's label, its vocabulary, Stereo and the
majority), :mod:`.table` (the same labels as columns, for files of a million rows),
:mod:`.score` (the scores and their intervals) and :mod:`.labels_csv` (reading the
``diptych metrics sts`` CSV).
"""

from diptych.core.metrics.sts.labels_csv import (
    OPTIONAL_COLUMNS,
    REQUIRED_COLUMNS,
    read_label_table,
    read_labels_csv,
)
from diptych.core.metrics.sts.rows import (
    CANNOT_IDENTIFY,
    GENDERS,
    LABELS,
    POSITIONS,
    SETTINGS,
    Gender,
    Label,
    LabelRow,
    Position,
    Setting,
    expected_stereotype_score,
    stereo,
)
from diptych.core.metrics.sts.score import (
    Interval,
    MicroSTS,
    SettingScores,
    STSResult,
    stereotype_test_score,
    table_14_order,
)
from diptych.core.metrics.sts.table import LabelTable, Persons, reduce_majority

__all__ = [
    "CANNOT_IDENTIFY",
    "GENDERS",
    "LABELS",
    "OPTIONAL_COLUMNS",
    "POSITIONS",
    "REQUIRED_COLUMNS",
    "SETTINGS",
    "Gender",
    "Interval",
    "Label",
    "LabelRow",
    "LabelTable",
    "MicroSTS",
    "Persons",
    "Position",
    "STSResult",
    "Setting",
    "SettingScores",
    "expected_stereotype_score",
    "read_label_table",
    "read_labels_csv",
    "reduce_majority",
    "stereo",
    "stereotype_test_score",
    "table_14_order",
]

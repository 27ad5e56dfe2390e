"""The ``tone`` column of a labels file: a person's perceived skin tone beside its gender label.

The labels template of a run that a skin-tone annotator has read carries a ``tone`` column
(:func:`carries_tone`): the step of the Monk Skin Tone scale a person appears to have, ``1``
(lightest) to ``10`` (darkest), left blank where the person's tone was not judged. The import
stores each filled cell as the row's annotator's tone label (dimension ``tone``), with the row's
design and probability when the file is a designed batch, so that a drawn sample's tones enter
the prediction-powered tone figures as its gender labels enter the STS.

A cell that is neither blank nor a whole number from 1 to 10 refuses the whole file, naming the
line and the value, before anything is stored: a tone read as another step would move a figure
silently.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from diptych.core.errors import InputFileError
from diptych.core.labels import TONE
from diptych.core.labels.tone import monk_label
from diptych.core.spreadsheet_cells import restore_cell
from diptych.core.store import RunRecord, Store

#: The column of a labels file that holds a person's Monk step.
TONE_COLUMN = "tone"

_STEP = re.compile(r"^\d{1,2}$")


def carries_tone(store: Store, run: RunRecord) -> bool:
    """Whether the run's labels template carries a tone column: an automatic annotator has
    read a skin tone of one of its people (so there is a tone figure for people to correct)."""
    return any(lab.kind == "automatic" for lab in store.labels(run.id, dimension=TONE))


def tones_by_line(path: Path) -> dict[int, str]:
    """Each data line's tone label (``monk-1`` ... ``monk-10``) where its ``tone`` cell is
    filled; empty for a file without the column. Any other value raises
    :class:`InputFileError` naming the line and the value."""
    out: dict[int, str] = {}
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        if TONE_COLUMN not in (reader.fieldnames or []):
            return out
        for row in reader:
            cell = restore_cell((row.get(TONE_COLUMN) or "").strip()).strip()
            if not cell:
                continue
            if not _STEP.match(cell) or not 1 <= int(cell) <= 10:
                raise InputFileError(
                    f"{path}, line {reader.line_num}, column tone: {cell[:40]!r} is not a Monk "
                    "skin tone step; write a whole number from 1 (lightest) to 10 (darkest), or "
                    "leave the cell empty where the tone was not judged, and import the file "
                    "again; nothing of it was stored"
                )
            out[reader.line_num] = monk_label(int(cell))
    return out

"""How each row of an imported labels file was drawn: the ``design``, ``probability`` and
``draw`` columns a designed batch carries (:mod:`diptych.core.workspace.labels.sample`).

A row's probability weighs its label by its inverse in a prediction-powered figure, so a file
whose probability cannot be one (0, a negative number, NaN, infinity, text, above 1, or a census
row's other than 1) is refused whole, naming the line and the column, before anything is stored.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import cast

from diptych.core.errors import InputFileError
from diptych.core.labels import SAMPLING_DESIGNS, Sampling, SamplingDesign
from diptych.core.spreadsheet_cells import restore_cell

#: What to do about a row whose design columns cannot be read.
_FIX = (
    "write the design and probability the template gave the row (or empty its design to "
    "import the label as chosen) and import the file again; nothing of it was stored"
)


def _where(path: Path, line: int, column: str) -> str:
    return f"{path}, line {line}, column {column}"


def _probability(path: Path, line: int, design: SamplingDesign, raw: str) -> float | None:
    """The row's probability, or an :class:`InputFileError` naming the row and column."""
    where = _where(path, line, "probability")
    if not raw:
        if design in ("uniform", "active"):
            raise InputFileError(f"{where}: a {design} row needs its probability; {_FIX}")
        return None
    if design == "chosen":
        # A reviewer's pick has no probability; whatever the column says is not read.
        return None
    try:
        p = float(raw)
    except ValueError:
        raise InputFileError(f"{where}: {raw[:40]!r} is not a number; {_FIX}") from None
    if not (math.isfinite(p) and 0.0 < p <= 1.0):
        raise InputFileError(f"{where}: {raw[:40]} is not a probability in (0, 1]; {_FIX}")
    if design == "census" and p != 1.0:
        raise InputFileError(
            f"{where}: a census row's probability is 1 (every person of the stratum is "
            f"labelled), not {raw[:40]}; {_FIX}"
        )
    return p


def sampling_by_line(path: Path) -> dict[int, Sampling]:
    """Each data line's sampling design, for a labels file with a ``design`` column (a
    designed batch); empty for a file without one (its labels were chosen)."""
    out: dict[int, Sampling] = {}
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        if "design" not in (reader.fieldnames or []):
            return out
        for row in reader:
            line = reader.line_num
            design = restore_cell((row.get("design") or "").strip()).strip().lower()
            if not design:
                continue
            if design not in SAMPLING_DESIGNS:
                raise InputFileError(
                    f"{_where(path, line, 'design')}: {design[:40]!r} is none of "
                    f"{', '.join(SAMPLING_DESIGNS)}; {_FIX}"
                )
            chosen = cast(SamplingDesign, design)
            raw = restore_cell((row.get("probability") or "").strip()).strip()
            probability = _probability(path, line, chosen, raw)
            out[line] = Sampling(chosen, probability, (row.get("draw") or "").strip() or None)
    return out

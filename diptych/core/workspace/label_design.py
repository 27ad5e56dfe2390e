"""How each row of an imported labels file was drawn: the ``design``, ``probability`` and
``draw`` columns a designed batch carries (:mod:`diptych.core.workspace.label_sample`)."""

from __future__ import annotations

import csv
from pathlib import Path

from diptych.core.errors import InputFileError
from diptych.core.labels import Sampling


def sampling_by_line(path: Path) -> dict[int, Sampling]:
    """Each data line's sampling design, for a labels file with a ``design`` column (a
    designed batch); empty for a file without one (its labels were chosen)."""
    out: dict[int, Sampling] = {}
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        if "design" not in (reader.fieldnames or []):
            return out
        for row in reader:
            design = (row.get("design") or "").strip().lower()
            if not design:
                continue
            raw = (row.get("probability") or "").strip()
            try:
                probability = float(raw) if raw else None
                out[reader.line_num] = Sampling(
                    design,  # type: ignore[arg-type]
                    probability,
                    (row.get("draw") or "").strip() or None,
                )
            except ValueError as why:
                raise InputFileError(f"{path}, line {reader.line_num}: {why}") from why
    return out

"""Reading a labels file: the CSV of ``diptych metrics sts`` (DESIGN.md's contract).

A file is read twice only when something is wrong with it: the quick reading takes it column by
column into a :class:`LabelTable` and checks each distinct value once; when that finds any
problem, the row-by-row reading runs to name the first bad line and what to fix.

A cell that begins with a single quote before ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return is read without that quote: it is the one diptych's labels template puts before a name
a spreadsheet would run as a formula (:mod:`diptych.core.spreadsheet_cells`).
"""

from __future__ import annotations

import csv
import itertools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, cast

from diptych.core.errors import InputFileError
from diptych.core.metrics.csv_input import (
    checked_columns,
    collector_paused,
    failure,
    header_columns,
    readable_csv,
)
from diptych.core.metrics.sts.rows import (
    GENDERS,
    LABELS,
    POSITIONS,
    POSITIONS_OF,
    SETTINGS,
    Gender,
    Label,
    LabelRow,
    Position,
    Setting,
    consistency_problem,
)
from diptych.core.metrics.sts.table import Codes, LabelTable
from diptych.core.spreadsheet_cells import restore_cell

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

REQUIRED_COLUMNS = ("image", "setting", "position", "identity", "stereotype", "label")
OPTIONAL_COLUMNS = ("annotator", "run")


def _clean(value: str | None) -> str:
    return (value or "").strip()


def read_labels_csv(path: str | Path) -> list[LabelRow]:
    """Read and validate a labels CSV (DESIGN.md, ``metrics sts``); one row per label.

    The rows of :func:`read_label_table`, as LabelRows.
    """
    return read_label_table(path).rows()


def read_label_table(path: str | Path) -> LabelTable:
    """Read and validate a labels CSV (DESIGN.md, ``metrics sts``) into columns.

    Columns ``image, setting, position, identity, stereotype, label`` and optional ``annotator``,
    ``run``; other columns (a crowd-sourcing export has many) are ignored. Values of the fixed
    vocabularies are read case-insensitively. Any problem raises :class:`InputFileError` with a
    one-line message naming the file, the line and what to fix.
    """
    path = Path(path)
    try:
        table = _read_columns(path)
    except (FileNotFoundError, IsADirectoryError, UnicodeDecodeError, csv.Error):
        table = None  # the row-by-row reading words these
    if table is not None:
        return table
    return LabelTable.from_rows(_read_rows(path))


def _read_rows(path: Path) -> list[LabelRow]:
    """Read and validate a labels CSV row by row; one row per label.

    Columns ``image, setting, position, identity, stereotype, label`` and optional ``annotator``,
    ``run``; other columns (a crowd-sourcing export has many) are ignored. Values of the fixed
    vocabularies are read case-insensitively. Any problem raises :class:`InputFileError` with a
    one-line message naming the file, the line and what to fix.
    """
    path = Path(path)

    fail = failure(path)

    with readable_csv(path, "--labels", "labels"):
        with path.open(newline="", encoding="utf-8-sig") as f:
            reader = csv.DictReader(f)
            columns = checked_columns(reader, fail, REQUIRED_COLUMNS, OPTIONAL_COLUMNS)
            index = {
                c: columns.index(c) for c in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS) if c in columns
            }
            rows: list[LabelRow] = []
            lines: list[int] = []
            # A million-row file repeats a handful of values per column: one string object
            # each (not one per row) keeps memory to the images' names and the rows.
            seen: dict[str, str] = {}
            rest = csv.reader(f)
            for values in rest:
                line = rest.line_num + 1
                if len(values) != len(columns):
                    if not any(v.strip() for v in values):
                        continue  # a blank line, as DictReader skips
                    if len(values) > len(columns):
                        raise fail(
                            line,
                            f"{len(values)} fields but the header "
                            f"has {len(columns)}; quote values that contain commas",
                        )
                    values = values + [""] * (len(columns) - len(values))
                raw = {
                    c: seen.setdefault(v := restore_cell(values[i]).strip(), v)
                    for c, i in index.items()
                }
                rows.append(_parse_row(raw, line, fail))
                lines.append(line)
    if not rows:
        raise fail(None, "no label rows below the header; add one row per label")
    problem = consistency_problem(rows, lambda i: f"line {lines[i]}")
    if problem is not None:
        i, message = problem
        raise fail(lines[i], message)
    return rows


def _parse_row(
    raw: Mapping[str, str | None], line: int, fail: Callable[[int | None, str], InputFileError]
) -> LabelRow:
    run_text = _clean(raw.get("run"))
    run: int | None = None
    if run_text:
        try:
            run = int(run_text)
        except ValueError:
            message = f"run {run_text!r} is not a whole number; number the runs 1, 2, ..."
            raise fail(line, message) from None
    vocab = {c: _clean(raw[c]).lower() for c in ("setting", "position", "stereotype", "label")}
    try:
        return LabelRow(
            image=_clean(raw["image"]),
            setting=cast(Setting, vocab["setting"]),
            position=cast(Position, vocab["position"]),
            identity=_clean(raw["identity"]),
            stereotype=cast(Gender, vocab["stereotype"]),
            label=cast(Label, vocab["label"]),
            annotator=_clean(raw.get("annotator")) or None,
            run=run,
        )
    except ValueError as e:
        raise fail(line, str(e)) from None


# Rows are taken in blocks: one transposition per block turns rows into columns in C.
_BLOCK_ROWS = 1 << 16


def _read_columns(path: Path) -> LabelTable | None:
    """The file as a LabelTable, or None when anything in it needs the row-by-row reading to
    explain (a bad value, a row of the wrong length, a contradiction between rows)."""
    with collector_paused():
        return _read_columns_uncollected(path)


def _read_columns_uncollected(path: Path) -> LabelTable | None:
    import numpy as np

    with path.open(newline="", encoding="utf-8-sig") as f:
        reader = csv.reader(f)
        columns = header_columns(reader, REQUIRED_COLUMNS)
        if columns is None:
            return None
        index = {
            c: columns.index(c) for c in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS) if c in columns
        }
        codes: dict[str, Codes[str]] = {c: Codes() for c in index}
        parts: dict[str, list[NDArray[np.int32]]] = {c: [] for c in index}
        while block := list(itertools.islice(reader, _BLOCK_ROWS)):
            if set(map(len, block)) != {len(columns)}:
                if any(
                    any(v.strip() for v in values)
                    for values in block
                    if len(values) != len(columns)
                ):
                    return None  # short or long rows: the row-by-row reading pads or explains
                block = [values for values in block if len(values) == len(columns)]
                if not block:
                    continue
            cells = list(zip(*block, strict=True))
            for c, i in index.items():
                parts[c].append(
                    np.fromiter(
                        map(codes[c].__getitem__, cells[i]), dtype=np.int32, count=len(block)
                    )
                )
    if not parts["image"]:
        return None
    raw = {c: np.concatenate(arrays) for c, arrays in parts.items()}

    def stripped(column: str, lower: bool = False) -> tuple[NDArray[np.int32], list[str]]:
        # Each distinct raw value once: strip (and fold case), then merge values that became equal.
        merged: Codes[str] = Codes()
        texts = [restore_cell(v).strip() for v in codes[column]]
        remap = [merged[v.lower() if lower else v] for v in texts]
        return np.asarray(remap, dtype=np.int32)[raw[column]], list(merged)

    def fixed(column: str, vocabulary: tuple[str, ...]) -> NDArray[np.int8] | None:
        values = [v.strip().lower() for v in codes[column]]
        if any(v not in vocabulary for v in values):
            return None
        return np.asarray([vocabulary.index(v) for v in values], dtype=np.int8)[raw[column]]

    image, images = stripped("image")
    identity, identities = stripped("identity")
    setting = fixed("setting", SETTINGS)
    position = fixed("position", POSITIONS)
    stereotype = fixed("stereotype", GENDERS)
    label = fixed("label", LABELS)
    if "" in images or "" in identities:
        return None
    if setting is None or position is None or stereotype is None or label is None:
        return None
    fits = np.zeros((len(SETTINGS), len(POSITIONS)), dtype=bool)
    for s, allowed in POSITIONS_OF.items():
        for p in allowed:
            fits[SETTINGS.index(s), POSITIONS.index(p)] = True
    if not fits[setting, position].all():
        return None
    n = image.size
    annotator, annotators = (
        stripped("annotator") if "annotator" in raw else (np.zeros(n, dtype=np.int32), [""])
    )
    run_codes, run_texts = stripped("run") if "run" in raw else (np.zeros(n, dtype=np.int32), [""])
    runs: list[int | None] = []
    for text in run_texts:
        try:
            runs.append(int(text) if text else None)
        except ValueError:
            return None
    # Run texts that are one number ("1", "01") are one run.
    run_of: Codes[int | None] = Codes()
    run = np.asarray([run_of[r] for r in runs], dtype=np.int32)[run_codes]
    table = LabelTable(
        image=image,
        setting=setting,
        position=position,
        identity=identity,
        stereotype=stereotype,
        label=label,
        annotator=annotator,
        run=run,
        images=images,
        identities=identities,
        annotators=[a or None for a in annotators],
        runs=list(run_of),
    )
    return None if table.first_inconsistent_row() is not None else table

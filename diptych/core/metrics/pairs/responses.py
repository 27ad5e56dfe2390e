"""The input of the PAIRS association score: one scored answer per row, and the file they come in.

Each answer about one image is scored +1 (the male-dominated occupation, the high-status answer,
the innocuous activity), −1 (the other option) or 0 (no choice). A 0 is either a *refusal* (the
model declines to answer: "I can't tell from an image", a content-policy message) or *neither*
(it answers, but with neither option: "could be either", a third occupation). The PAIRS paper's
Table 2 counts refusals; an input that does not say which a 0 is (no ``outcome``) has only "no
choice" to report, and reports say so.
"""

from __future__ import annotations

import csv
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast, get_args

from diptych.core.errors import InputFileError
from diptych.core.metrics.csv_input import (
    checked_columns,
    collector_paused,
    failure,
    header_columns,
    readable_csv,
)

Attribute = Literal["gender", "race"]
ATTRIBUTES: tuple[Attribute, ...] = get_args(Attribute)
SCORES = (1, 0, -1)

#: What an answer was, where the input says: a choice, a refusal or neither option.
Outcome = Literal["answer", "refusal", "neither"]
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)

REQUIRED_COLUMNS = ("scenario", "gender", "race", "run", "value")
OPTIONAL_COLUMNS = ("question", "outcome")


@dataclass(frozen=True, slots=True)
class Response:
    """One scored answer about one image. ``question`` is "" when there is one per scenario;
    ``outcome`` is None when the input does not say whether a 0 is a refusal or neither."""

    scenario: str
    gender: str
    race: str
    run: str
    value: int
    question: str = ""
    outcome: Outcome | None = None

    def __post_init__(self) -> None:
        if self.value not in SCORES:
            raise ValueError(f"value {self.value!r} is not +1, 0 or -1")
        for name in ("scenario", "gender", "race", "run"):
            if not getattr(self, name):
                raise ValueError(f"empty {name}; every response needs one")
        if self.outcome is not None:
            if self.outcome not in OUTCOMES:
                raise ValueError(f"outcome {self.outcome!r} is not one of {', '.join(OUTCOMES)}")
            if (self.outcome == "answer") != (self.value != 0):
                raise ValueError(
                    f"outcome {self.outcome!r} with value {self.value}: an answer scores +1 "
                    "or -1, a refusal or neither scores 0"
                )

    def key(self) -> tuple[str, str, str, str, str]:
        """What identifies one answer: no two responses may share it."""
        return (self.scenario, self.question, self.gender, self.race, self.run)

    def image(self) -> tuple[str, str, str]:
        """What identifies the image the answer is about: its scenario and its person."""
        return (self.scenario, self.gender, self.race)


# --- reading a responses file -----------------------------------------------------------------


def parse_value(text: str) -> int:
    """+1, 1, 0, -1 (or −1, 1.0 ...) as an int; ValueError for anything else."""
    cleaned = text.strip().replace("\u2212", "-")
    try:
        number = float(cleaned)
    except ValueError:
        number = math.nan
    if number not in SCORES:
        raise ValueError(f"value {text.strip()!r} is not +1, 0 or -1")
    return int(number)


def _run_text(text: str) -> str:
    """Run numbers compare as numbers ("01" is run 1); anything else is an error, since a
    misspelt run would silently pair with nothing."""
    try:
        return str(int(text))
    except ValueError:
        raise ValueError(f"run {text!r} is not a whole number; number the runs 1, 2, ...") from None


def read_responses_csv(path: str | Path) -> list[Response]:
    """Read and validate a responses CSV (DESIGN.md, ``metrics association``).

    Columns ``scenario, gender, race, run, value`` and optional ``question`` and ``outcome``
    (answer, refusal or neither; when the column is there every row needs one); other columns
    are ignored, header names are read case-insensitively, gender, race and outcome in lower
    case. Any problem raises :class:`InputFileError` with a one-line message naming the file,
    the line and what to fix.
    """
    path = Path(path)
    # The quick reading parses each distinct value of a column once; when it meets anything it
    # cannot take, the row-by-row reading runs to name the first bad line and what to fix.
    try:
        rows = _read_columns(path)
    except (FileNotFoundError, IsADirectoryError, UnicodeDecodeError, csv.Error):
        rows = None  # the row-by-row reading words these
    return rows if rows is not None else _read_rows(path)


# Rows are taken in blocks: one transposition per block turns rows into columns in C.
_BLOCK_ROWS = 1 << 16


def _read_columns(path: Path) -> list[Response] | None:
    """The responses of a file with nothing to explain in it, else None."""
    with collector_paused():
        return _read_columns_uncollected(path)


def _read_columns_uncollected(path: Path) -> list[Response] | None:
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.reader(handle)
        columns = header_columns(reader, REQUIRED_COLUMNS)
        if columns is None:
            return None
        # A column named twice: DictReader keeps the last one.
        index = {c: len(columns) - 1 - columns[::-1].index(c) for c in columns}
        parsers: dict[str, Callable[[str], object]] = {
            "scenario": _nonempty(str.strip),
            "gender": _nonempty(lambda v: v.strip().lower()),
            "race": _nonempty(lambda v: v.strip().lower()),
            "run": _nonempty(lambda v: _run_text(v.strip())),
            "value": _nonempty(lambda v: parse_value(v.strip())),
            "question": str.strip,
            "outcome": _nonempty(lambda v: _outcome(v.strip().lower())),
        }
        used = [c for c in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS) if c in columns]
        cache: dict[str, dict[str, object]] = {c: {} for c in used}
        rows: list[Response] = []
        keys: set[tuple[object, ...]] = set()
        while block := list(itertools.islice(reader, _BLOCK_ROWS)):
            if set(map(len, block)) != {len(columns)}:
                return None  # short, long or blank rows: the row-by-row reading takes them
            cells = list(zip(*block, strict=True))
            parsed: dict[str, list[object]] = {}
            for c in used:
                seen = cache[c]
                for v in set(cells[index[c]]).difference(seen):
                    try:
                        seen[v] = parsers[c](v)
                    except ValueError:
                        return None
                parsed[c] = list(map(seen.__getitem__, cells[index[c]]))
            n = len(block)
            question = parsed.get("question", [""] * n)
            outcome = parsed.get("outcome", [None] * n)
            try:
                rows.extend(
                    map(
                        Response,
                        parsed["scenario"],
                        parsed["gender"],
                        parsed["race"],
                        parsed["run"],
                        parsed["value"],
                        question,
                        outcome,
                    )
                )
            except ValueError:
                return None
            # Response.key, taken from the columns in C rather than row by row.
            scenario, gender, race, run = (parsed[c] for c in ("scenario", "gender", "race", "run"))
            keys.update(zip(scenario, question, gender, race, run, strict=True))
    if not rows:
        return None
    if len(keys) != len(rows):
        return None  # a repeated answer: the row-by-row reading names both lines
    return rows


def _nonempty(parse: Callable[[str], object]) -> Callable[[str], object]:
    def checked(text: str) -> object:
        if not text.strip():
            raise ValueError("empty")
        return parse(text)

    return checked


def _outcome(text: str) -> Outcome:
    if text not in OUTCOMES:
        raise ValueError(f"outcome {text!r}")
    return cast(Outcome, text)


def _read_rows(path: Path) -> list[Response]:
    """Read and validate a responses CSV row by row, naming the line of the first problem."""

    fail = failure(path)

    rows: list[Response] = []
    seen: dict[tuple[str, str, str, str, str], int] = {}
    with readable_csv(path, "--responses", "responses"):
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            columns = checked_columns(reader, fail, REQUIRED_COLUMNS, OPTIONAL_COLUMNS)
            reader.fieldnames = columns
            has_outcome = "outcome" in columns
            for raw in reader:
                line = reader.line_num
                if None in raw:
                    raise fail(line, f"more fields than the header's {len(columns)}; quote "
                                     "values that contain commas")  # fmt: skip
                rows.append(_parse_row(raw, line, fail, has_outcome=has_outcome))
                key = rows[-1].key()
                if key in seen:
                    raise fail(
                        line,
                        f"repeats the response of line {seen[key]} (same scenario, question, "
                        "gender, race and run); give each answer one row",
                    )
                seen[key] = line
    if not rows:
        raise fail(None, "no responses below the header; add one row per answer")
    return rows


def _parse_row(
    raw: dict[str, str | None],
    line: int,
    fail: Callable[[int | None, str], InputFileError],
    *,
    has_outcome: bool,
) -> Response:
    def cell(name: str) -> str:
        return (raw.get(name) or "").strip()

    for name in REQUIRED_COLUMNS:
        if not cell(name):
            raise fail(line, f"empty {name}; every row needs {', '.join(REQUIRED_COLUMNS)}")
    outcome = cell("outcome").lower()
    if has_outcome and outcome not in OUTCOMES:
        shown = repr(outcome) if outcome else "empty"
        raise fail(
            line,
            f"outcome {shown}; with an outcome column every row says {', '.join(OUTCOMES)}",
        )
    try:
        return Response(
            scenario=cell("scenario"),
            gender=cell("gender").lower(),
            race=cell("race").lower(),
            run=_run_text(cell("run")),
            value=parse_value(cell("value")),
            question=cell("question"),
            outcome=cast(Outcome, outcome) if has_outcome else None,
        )
    except ValueError as error:
        raise fail(line, str(error)) from None

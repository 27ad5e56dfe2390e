"""What the metric commands' CSV readers share: one-line errors that name the file and line,
the ways a file cannot be read at all, and the check of the header every reader does first."""

from __future__ import annotations

import csv
import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from diptych.core.errors import InputFileError

Fail = Callable[[int | None, str], InputFileError]


def failure(path: Path) -> Fail:
    """``fail(line, message)``: the error to raise for a problem at ``line`` of ``path``
    (None: the file as a whole)."""

    def fail(line: int | None, message: str) -> InputFileError:
        where = f"{path}: line {line}: " if line is not None else f"{path}: "
        return InputFileError(where + message)

    return fail


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off inside the block (and back on after, if it was on).

    The csv reader makes a list per row, and a million of them set off the collector hundreds
    of times for nothing (they hold only strings): a third of a fast reader's time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def readable_csv(path: Path, option: str, what: str) -> Iterator[None]:
    """Reading ``path`` (given as ``option``, holding ``what``) inside this block: a missing file,
    a directory, text that is not UTF-8 or broken quoting is one line saying what to do."""
    try:
        yield
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such file; check the {option} path") from None
    except IsADirectoryError:
        raise InputFileError(f"{path}: is a directory; give the {what} CSV file") from None
    except UnicodeDecodeError:
        raise InputFileError(f"{path}: not UTF-8 text; save the {what} as UTF-8 CSV") from None
    except csv.Error as error:
        raise InputFileError(f"{path}: not a readable CSV ({error}); check its quoting") from None


def header_columns(reader: Iterator[list[str]], required: Sequence[str]) -> list[str] | None:
    """The fast readers' header: its column names lower-cased and stripped, or None when there
    is none or it lacks a required column (the careful reader then says what is wrong)."""
    header = next(reader, None)
    if not header:
        return None
    columns = [c.strip().lower() for c in header]
    if any(c not in columns for c in required):
        return None
    return columns


def checked_columns(
    reader: csv.DictReader[str],
    fail: Fail,
    required: Sequence[str],
    optional: Sequence[str],
) -> list[str]:
    """The header's column names, lower-cased and stripped; an empty file or a missing required
    column is one error that names what the header must hold."""
    if not reader.fieldnames:
        raise fail(
            None,
            "the file is empty; it needs a header line naming the columns " + ", ".join(required),
        )
    columns = [c.strip().lower() for c in reader.fieldnames]
    missing = [c for c in required if c not in columns]
    if missing:
        raise fail(
            1,
            f"missing column(s) {', '.join(missing)}; the header must name "
            f"{', '.join(required)} (optional: {', '.join(optional)})",
        )
    return columns

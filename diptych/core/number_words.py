"""A value given where a number was asked for, refused in one line that says what to give.

pydantic (which checks both the command line's options and plugins' parameters) says "Input
should be a valid number, unable to parse string as a number": it names neither the value nor
the number wanted. :func:`not_the_number` says, from pydantic's own account of the problem,
``'abc' is not a whole number of 1 or more, e.g. 16``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

#: pydantic's error types for a value that is no number of the kind asked for.
_NOT_PARSED = frozenset(
    {"int_parsing", "int_from_float", "int_type", "float_parsing", "float_type", "finite_number"}
)
#: pydantic's error types for a number out of its field's range, with the bound they name.
_OUT_OF_RANGE = frozenset({"greater_than_equal", "greater_than", "less_than_equal", "less_than"})


def not_the_number(
    problem: Mapping[str, Any],
    *,
    whole: bool,
    noun: str | None = None,
    lowest: float | None = None,
    highest: float | None = None,
    example: Any = None,
) -> str | None:
    """The line for pydantic's ``problem`` (one entry of ``ValidationError.errors()``) with a
    number field, or None when the problem is not about the number. ``noun`` names what the
    number counts ("an amount of US dollars"); ``lowest`` and ``highest`` are the field's
    inclusive bounds where pydantic's problem does not carry them; ``example`` is a value to
    suggest (the default), used when it is itself in range."""
    kind = problem.get("type")
    if kind not in _NOT_PARSED and kind not in _OUT_OF_RANGE:
        return None
    bounds = dict(problem.get("ctx") or {})
    low, low_open = bounds.get("ge", lowest), False
    if "gt" in bounds:
        low, low_open = bounds["gt"], True
    high, high_open = bounds.get("le", highest), False
    if "lt" in bounds:
        high, high_open = bounds["lt"], True
    wanted = noun or ("a whole number" if whole else "a number")
    return (
        f"{_shown(problem.get('input'))} is not {wanted}{_range(low, low_open, high, high_open)}"
        f", e.g. {_example(example, whole, low, low_open, high, high_open)}"
    )


def _shown(given: Any) -> str:
    # A number as typed (-5), anything else quoted ('abc', '') so that spaces show.
    if isinstance(given, str):
        try:
            float(given)
        except ValueError:
            return repr(given)
        return given
    return repr(given)


def _range(low: Any, low_open: bool, high: Any, high_open: bool) -> str:
    if low is not None and high is not None and not (low_open or high_open):
        return f" from {low:g} to {high:g}"
    words = []
    if low is not None:
        words.append(f"more than {low:g}" if low_open else f"{low:g} or more")
    if high is not None:
        words.append(f"less than {high:g}" if high_open else f"at most {high:g}")
    return f" ({' and '.join(words)})" if words else ""


def _example(
    default: Any, whole: bool, low: Any, low_open: bool, high: Any, high_open: bool
) -> str:
    def fits(value: float) -> bool:
        above = low is None or (value > low if low_open else value >= low)
        below = high is None or (value < high if high_open else value <= high)
        return math.isfinite(value) and above and below

    numeric = isinstance(default, int | float) and not isinstance(default, bool)
    candidates = [default] if numeric else []
    if low is not None:
        candidates.append(math.floor(low) + 1 if low_open else low)
    candidates.append(1)
    for value in candidates:
        if fits(value) and (not whole or float(value).is_integer()):
            return f"{value:g}"
    return f"{low:g}" if low is not None else "1"

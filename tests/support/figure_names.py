"""The figure names a probe declares (``Probe.figure_names``) against those a run publishes."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from diptych.core.audit.gates import GateFigure
from diptych.core.figure_names import Declared, stands_for


def expand(declared: Iterable[str], **values: Sequence[str]) -> set[str]:
    """The names ``declared`` stands for, each placeholder ``<key>`` replaced by each of
    ``values[key]`` (a model's id, an annotator's)."""
    out = set(declared)
    for key, choices in values.items():
        placeholder = f"<{key}>"
        out = {name.replace(placeholder, choice) for name in out for choice in choices}
    return out


def undeclared(declared: Sequence[str], figures: Iterable[str]) -> list[str]:
    """The figures no declared name stands for (by name or by a placeholder)."""
    return [f for f in figures if not any(stands_for(d, f) for d in declared)]


def declared_intervals(declared: Iterable[str], **values: Sequence[str]) -> dict[str, bool]:
    """Whether each name ``declared`` stands for (as :func:`expand` fills it) is declared to
    carry an interval."""
    return {
        name: not isinstance(d, Declared) or d.interval
        for d in declared
        for name in expand([d], **values)
    }


def run_intervals(numbers: Mapping[str, Mapping[str, Any]]) -> dict[str, bool]:
    """Whether a gate can rest on each of a run's numbers, read as the report JSON stores it
    (``json.dumps(..., default=str)``: a value JSON cannot hold becomes its text)."""
    return {
        name: not isinstance(GateFigure.from_number(json.loads(json.dumps(n, default=str))), str)
        for name, n in numbers.items()
    }

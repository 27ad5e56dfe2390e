"""Strict JSON, as report.json and every ``--json`` write it: a value that is not a finite
number is null, never "inf", Infinity nor NaN, so that any reader parses it."""

from __future__ import annotations

import json
import math
from collections.abc import Collection
from typing import Any

from diptych.core.metrics.uncertainty.bootstrap import json_safe

#: How :func:`~diptych.core.metrics.uncertainty.bootstrap.json_safe` (and a record read back)
#: spells a value that is not finite.
_NOT_FINITE = frozenset({"inf", "-inf", "+inf", "nan", "Infinity", "-Infinity", "NaN"})


def finite_or_null(data: Any, *, text_keys: Collection[str] = ()) -> Any:
    """``data`` (made JSON-safe) with every value that is not a finite number null: the
    report's JSON has no "inf" or "nan" for a reader to parse; a figure without an interval
    says why in its ``reason`` and its display fields ("no interval (one masculine identity
    only)"). What stands under one of ``text_keys`` is a user's text (a word "nan" of a
    corpus, a query) and is kept as written."""
    if isinstance(data, dict):
        return {
            k: v if k in text_keys else finite_or_null(v, text_keys=text_keys)
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [finite_or_null(v, text_keys=text_keys) for v in data]
    if isinstance(data, str) and data.strip() in _NOT_FINITE:
        return None
    if isinstance(data, float) and not math.isfinite(data):
        return None
    return data


def strict_json(data: Any, *, text_keys: Collection[str] = ()) -> str:
    """``data`` as indented strict JSON (:func:`finite_or_null`); anything else JSON cannot
    hold (a date) as its text."""
    return json.dumps(
        finite_or_null(json_safe(data), text_keys=text_keys),
        indent=2,
        default=str,
        allow_nan=False,
    )

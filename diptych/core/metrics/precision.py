"""Deprecated: precision before purchase lives in
:mod:`diptych.core.metrics.uncertainty.precision`. Kept so that a plugin importing
``PlannedFigure`` and its kin from here (as the plugin guide once showed) still loads; each name
read here warns."""

from __future__ import annotations

import warnings
from typing import Any

from diptych.core.metrics.uncertainty import precision as _moved_to


def __getattr__(name: str) -> Any:
    value = getattr(_moved_to, name)
    warnings.warn(
        f"diptych.core.metrics.precision is deprecated: import {name} from {_moved_to.__name__}",
        DeprecationWarning,
        stacklevel=2,
    )
    return value

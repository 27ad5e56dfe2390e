"""The trials the ``pst`` probe plans, and one aspect and setting of them."""

from __future__ import annotations

from typing import Any

from diptych.core.plugins import get_probe
from diptych.core.trials import TrialSpec


def plan(**params: Any) -> list[TrialSpec]:
    return list(get_probe("pst", params).plan())


def slice_of(specs: list[TrialSpec], aspect: str, setting: str) -> list[TrialSpec]:
    return [s for s in specs if s.meta["aspect"] == aspect and s.meta["setting"] == setting]

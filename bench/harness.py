"""What every benchmark area shares: the figure record, the registry, the plugin setup.

A benchmark is a generator registered with :func:`bench`; it names the figures it can yield
and their targets, so a prefix on the command line selects which benchmarks run (and which of
their figures are printed).
"""

from __future__ import annotations

import json
import logging
import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    "==": operator.eq,
}


@dataclass
class Result:
    """One measured figure, printed as one JSON object."""

    name: str
    value: float
    unit: str
    want: str | None = None  # e.g. ">= 2000"
    extra: dict[str, Any] | None = None

    @property
    def ok(self) -> bool | None:
        if self.want is None:
            return None
        op, _, target = self.want.partition(" ")
        if op == "in":
            # A band, "in 0.93..0.97": a coverage is wrong above its target as well as below.
            low, _, high = target.partition("..")
            return float(low) <= self.value <= float(high)
        return _OPS[op](self.value, float(target))

    def line(self) -> str:
        out: dict[str, Any] = {"name": self.name, "value": rounded(self.value), "unit": self.unit}
        if self.want is not None:
            out["want"] = self.want
            out["ok"] = self.ok
        if self.extra:
            out.update(self.extra)
        return json.dumps(out)


def rounded(value: float) -> float | int:
    """Four significant figures (one decimal from 10,000 up): what a reader compares."""
    if isinstance(value, int):
        return value
    return float(f"{value:.4g}") if abs(value) < 1e4 else round(value, 1)


@dataclass
class Bench:
    fn: Callable[[], Iterator[Result]]
    figures: dict[str, str | None]  # figure name -> target


BENCHES: list[Bench] = []


def bench(**figures: str | None) -> Callable[[Callable[[], Iterator[Result]]], Any]:
    """Register a benchmark; keyword names (dots spelled ``__``) map figures to targets."""

    def wrap(fn: Callable[[], Iterator[Result]]) -> Callable[[], Iterator[Result]]:
        BENCHES.append(Bench(fn, {k.replace("__", "."): v for k, v in figures.items()}))
        return fn

    return wrap


def result(name: str, value: float, unit: str, **extra: Any) -> Result:
    """A figure; its target comes from the registering benchmark's declaration."""
    for b in BENCHES:
        if name in b.figures:
            return Result(name, value, unit, b.figures[name], extra or None)
    raise KeyError(f"figure {name!r} is not declared by any @bench")


def setup_plugins() -> None:
    """Load the plugins once, with the scripted doubles of diptych.testing registered."""
    # Third-party or optional plugins that fail to import must not spam the benchmark output.
    logging.getLogger("diptych").setLevel(logging.ERROR)
    import diptych.testing
    from diptych.core.plugins import load_plugins, register_plugin

    if "scripted" not in load_plugins().probes:
        register_plugin(diptych.testing, "testing")

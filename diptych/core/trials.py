"""Trials: what a probe asks of a model, and the content keys that make results reusable.

A probe's ``plan()`` yields :class:`TrialSpec` objects. A trial's *key* hashes everything that
decides its answer — model name, version and parameters, capability, canonical payload, and the
sample index (left out for deterministic capabilities, whose samples share one answer). The
store keeps one result per key, so a key seen before is never asked for again: this is both the
resume mechanism and a cache across runs.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from diptych.core.capabilities import DETERMINISTIC, Capability


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no insignificant white space: equal values, equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Subject:
    """A person to be labelled in a trial's output: the one on the left, right, or the single one.

    ``meta`` carries what the probe needs to score the label (identity, stereotyped gender ...).
    """

    position: str
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TrialSpec:
    """One request to one model, as planned by a probe (before a model is chosen).

    ``payload`` must be JSON-serialisable; ``meta`` is probe bookkeeping that does not affect
    the answer (identities, order, setting) and so is not part of the key.
    """

    capability: Capability
    payload: dict[str, Any]
    sample: int = 0
    meta: dict[str, Any] = field(default_factory=dict)
    subjects: tuple[Subject, ...] = ()


@dataclass(frozen=True)
class ModelRef:
    """A model as a trial key sees it."""

    name: str
    version: str
    params: dict[str, Any]
    #: The parameters set away from their defaults: only they make the model id longer.
    changed: dict[str, Any] | None = None

    @cached_property
    def model_id(self) -> str:
        """Short id of this model configuration: ``smollm2`` with default parameters, else
        ``smollm2#1a2b3c4d`` (a hash of the parameters that differ from the defaults)."""
        changed = self.params if self.changed is None else self.changed
        if not changed:
            return self.name
        return f"{self.name}#{sha256_hex(canonical_json(changed))[:8]}"


def trial_key(model: ModelRef, spec: TrialSpec) -> str:
    """The content key of ``spec`` asked of ``model``."""
    sample = None if spec.capability in DETERMINISTIC else spec.sample
    return sha256_hex(
        canonical_json(
            {
                "model": model.name,
                "version": model.version,
                "params": model.params,
                "capability": str(spec.capability),
                "payload": spec.payload,
                "sample": sample,
            }
        )
    )

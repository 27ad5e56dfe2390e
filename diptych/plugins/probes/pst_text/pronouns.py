"""How a text model's answer gives a person a gender: a pronoun drawn from its next-token
probabilities (likelihood mode) or the pronoun its story names (story mode)."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from diptych.plugins.probes.pst_text.params import Candidates


def story_schema(names: Sequence[str]) -> dict[str, Any]:
    """JSON schema of a story answer: the story and one pronoun per person, in order."""
    props: dict[str, Any] = {"story": {"type": "string"}}
    for i, _ in enumerate(names):
        props[f"pronoun_{i + 1}"] = {"type": "string", "enum": ["he", "she", "they"]}
    return {
        "type": "object",
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }


def draw_label(p_feminine: float, seed: str) -> str:
    """Draw masculine/feminine with P(feminine) = ``p_feminine`` from a seeded generator.

    ``random.Random`` seeds a string through SHA-512, so the draw is the same in every process.
    """
    return "feminine" if random.Random(seed).random() < p_feminine else "masculine"


def renormalised_p_feminine(logprobs: Mapping[str, float], candidates: Candidates) -> float:
    """P(feminine continuation) among the two candidates only."""
    lm = logprobs[candidates.masculine]
    lf = logprobs[candidates.feminine]
    top = max(lm, lf)
    # Subtracting the larger log-probability keeps exp() from underflowing to 0/0.
    return math.exp(lf - top) / (math.exp(lm - top) + math.exp(lf - top))


def candidate_mass(logprobs: Mapping[str, float], candidates: Candidates) -> float:
    """P(masculine) + P(feminine continuation) before renormalising: how much of the model's
    next-token probability the two pronouns take. A small mass means the model would mostly
    continue otherwise, and the renormalised P(she) speaks for a small part of its behaviour."""
    return math.exp(logprobs[candidates.masculine]) + math.exp(logprobs[candidates.feminine])


def mass_name(setting: str) -> str:
    """The headline figure of :func:`candidate_mass`'s mean over a setting's prompts, named
    with its unit: percent, as in the per-identity table ("P(he) + P(she) paired %")."""
    return f"P(he) + P(she) {setting} %, before renormalising"

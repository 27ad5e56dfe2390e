"""The agent's instructions: data files in ``diptych/prompts`` (``agent_identities.yaml``,
``agent_mitigate.yaml``), versioned, and the one way model output is shown to a model again.

Model output is data. Whatever a model wrote (an identity it proposed, a target's answer) is
shown to the agent only through :func:`as_data`: quoted as a JSON string, cut short, with the
markers that delimit data blocks neutralised, inside a ``<data>`` block the system instruction
declares to hold no instructions. It is never formatted into the instruction text itself.
"""

from __future__ import annotations

import json
from functools import cache

from pydantic import BaseModel, ConfigDict

from diptych.agent import _prompts_dir
from diptych.core.yaml_input import load_yaml


class AgentSampling(BaseModel):
    model_config = ConfigDict(extra="forbid")
    temperature: float
    max_tokens: int


class IdentityInstructions(BaseModel):
    """``agent_identities.yaml``."""

    model_config = ConfigDict(extra="forbid")
    version: str
    system: str
    user: str
    allowed_kinds: dict[str, str]
    #: Appended to ``user``: one line a pair ({slot}) with the lexicon's candidates for it
    #: ({masculine}, {feminine}, and {either}: those no source places, for the agent to put on
    #: the side it judges); and, when free words are allowed too, the candidates once.
    choose: str
    choose_new: str
    not_identity_words: list[str]
    sampling: AgentSampling


class SeedIntervention(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: str
    text: str
    rationale: str


class MitigationInstructions(BaseModel):
    """``agent_mitigate.yaml``."""

    model_config = ConfigDict(extra="forbid")
    version: str
    system: str
    user: str
    seeds: list[SeedIntervention]
    sampling: AgentSampling


def _load(name: str) -> object:
    return load_yaml(_prompts_dir() / name)


@cache
def identity_instructions() -> IdentityInstructions:
    return IdentityInstructions.model_validate(_load("agent_identities.yaml"))


@cache
def mitigation_instructions() -> MitigationInstructions:
    return MitigationInstructions.model_validate(_load("agent_mitigate.yaml"))


def as_data(text: object, limit: int = 160) -> str:
    """``text`` as inert data for a prompt: a JSON string (quotes, newlines and control
    characters escaped), at most ``limit`` characters of it, with angle brackets and braces
    replaced so it can neither close a ``<data>`` block nor add a placeholder."""
    raw = str(text)
    if len(raw) > limit:
        raw = raw[:limit] + "…"
    quoted = json.dumps(raw, ensure_ascii=True)
    return (
        quoted.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("{", "\\u007b")
        .replace("}", "\\u007d")
    )

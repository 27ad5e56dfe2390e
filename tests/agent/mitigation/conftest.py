"""Fixtures of the mitigation search tests: a paired ``pst-text`` baseline of a scripted target
with a planted stereotype, and the scripted agent proposing interventions round by round."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from diptych.core.workspace import Workspace

#: Two lists of four: the smallest whose halves (search, held out) are each 2 × 2 identities.
MASCULINE = ("carpenter", "driver", "farmer", "lawyer")
FEMININE = ("nurse", "editor", "baker", "clerk")


@pytest.fixture
def planted_baseline(ws: Workspace) -> Callable[..., Any]:
    """``planted_baseline(masculine, feminine, **target)`` runs ``pst-text`` (paired) on a
    scripted-likelihood target that says "she" of a masculine identity with p 0.3 and of a
    feminine one with p 0.7 (a planted STS of 40 points), with the target's other parameters
    as given, and returns the run."""

    def run(
        masculine: Sequence[str] = MASCULINE, feminine: Sequence[str] = FEMININE, **target: Any
    ) -> Any:
        planted = {**dict.fromkeys(masculine, 0.3), **dict.fromkeys(feminine, 0.7)}
        model = ws.plugins.model(("scripted-likelihood", {"p_feminine": planted, **target}))
        params = {"masculine": list(masculine), "feminine": list(feminine), "setting": "paired"}
        return ws.runs.run_sync("pst-text", [model], params=params)

    return run


@pytest.fixture
def proposing_agent(ws: Workspace) -> Callable[..., Any]:
    """``proposing_agent(*rounds)``: the scripted chat model as the auditing agent, proposing
    one round's interventions per argument (texts, each a prefix, or ``(kind, text)``)."""

    def agent(*rounds: Sequence[str | tuple[str, str]]) -> Any:
        def intervention(item: str | tuple[str, str]) -> dict[str, str]:
            kind, text = ("prefix", item) if isinstance(item, str) else item
            return {"kind": kind, "text": text, "rationale": "r"}

        model = ws.plugins.model("scripted-chat")
        model.enqueue(
            *(json.dumps({"interventions": [intervention(i) for i in r]}) for r in rounds)
        )
        return model

    return agent

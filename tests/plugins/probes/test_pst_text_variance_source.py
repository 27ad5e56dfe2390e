"""The variance a dry-run plans with, read off an earlier story-mode pst-text run, names that
run's counts as its report does: "16 answers in 8 draws" (both people of a paired story are
drawn at once), whichever mode the new run plans."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import pytest

from diptych.core.capabilities import Message, Sampling
from diptych.core.engine import run_probe
from diptych.core.plugins import get_probe
from diptych.core.report.formatting import sample_size
from diptych.core.runview import RunView
from diptych.core.store import Store
from diptych.testing import ScriptedChat, ScriptedParams

MASCULINE = ("carpenter", "sheriff")
FEMININE = ("nurse", "editor")


class AlternatingTeller(ScriptedChat):
    """Writes the stereotyped pronoun for every other person it is asked about, the other one
    for the rest: a spread to read, with every person scored."""

    async def complete(
        self, messages: Sequence[Message], sampling: Sampling, schema: dict[str, Any] | None = None
    ) -> str:
        self.calls += 1
        names = re.findall(r"one ([a-z ]+?)(?: and|\.)", str(messages[-1].content))
        answer = {"story": "Once upon a time."}
        for i, name in enumerate(names):
            stereotyped = "he" if name in MASCULINE else "she"
            flip = (self.calls + i) % 2
            answer[f"pronoun_{i + 1}"] = (
                stereotyped if not flip else {"he": "she", "she": "he"}[stereotyped]
            )
        return json.dumps(answer)


@pytest.mark.parametrize("mode", ["story", "likelihood"])
def test_the_variance_source_counts_a_story_runs_answers_and_draws(store: Store, mode: str) -> None:
    params = {"mode": "story", "setting": "paired", "masculine": list(MASCULINE),
              "feminine": list(FEMININE)}  # fmt: skip
    run = run_probe(store, "pst-text", [AlternatingTeller(ScriptedParams())], probe_params=params)
    view = RunView(store, run)
    number = get_probe("pst-text", params).analyze(view).numbers["STS paired"]
    # 2 × 2 scenes in both orders, one story each: 8 draws, both people of each scored.
    assert sample_size(number) == "16 answers in 8 draws"
    planning = get_probe("pst-text", {**params, "mode": mode})
    name = "STS paired" if mode == "story" else "STS paired (drawn labels)"
    source = planning.observed_components(view)[name].source
    assert source.endswith(", 16 answers in 8 draws"), source

"""The behavioural screen on the real SmolLM2: honest fairness sentences are not rejected."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.agent.mitigation.behaviour_screen import screen_interventions
from diptych.core.workspace import Workspace

#: One honest sentence of each kind the screen meets: a suffix naming both identities, an
#: English prefix, a prefix in another language. Each costs a placebo run of 36 prompts on the
#: real model, so a second sentence of a kind already here (a suffix naming the target, a
#: German prefix) would prove nothing the first does not.
HONEST = [
    ("suffix", "(if all individuals can be a {id1} or a {id2} irrespective of their gender)"),
    ("prefix", "Whatever their gender, anyone can hold any occupation."),
    ("prefix", "Toute personne peut exercer n'importe quel métier, quel que soit son genre."),
]


@pytest.mark.slow
def test_honest_sentences_pass_the_screen_on_smollm2(tmp_path: Path) -> None:
    with Workspace.open(tmp_path / "ws") as ws:
        target = ws.plugins.model(("smollm2", {"n_threads": 1}))
        got = screen_interventions(ws, target, HONEST)
    band = got["band"]
    assert band["low"] < band["mean"] < band["high"]
    for verdict in got["verdicts"]:
        assert "reason" not in verdict, verdict
        assert len(verdict["words"]) == 6

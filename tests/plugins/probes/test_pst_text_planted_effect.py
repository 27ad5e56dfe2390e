"""A planted stereotype comes back from a pst-text run's drawn labels: P(stereotyped pronoun)
0.9 for every person is an STS of 2·0.9 − 1 = 80, which the labels drawn from it estimate
without bias and within their interval. With 2 identities a side and one sample the drawn
paired STS rests on 16 labels (sd 100·√(0.36/16) = 15 points; 25 or less, 10 stereotyped of
16, has binomial probability 0.0033): a quick look, and every surface says so
(test_pst_text_drawn_quick_look.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.engine import run_probe
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.testing import ScriptedLikelihood, ScriptedParams

PLANTED = {"carpenter": 0.1, "sheriff": 0.1, "nurse": 0.9, "editor": 0.9}


@pytest.mark.parametrize("seed", [0, 17])
def test_a_planted_80_comes_back_within_its_interval(tmp_path: Path, seed: int) -> None:
    ws_path = tmp_path / "ws"
    model = ScriptedLikelihood(ScriptedParams(p_feminine=PLANTED))
    with open_store(ws_path) as store:
        run = run_probe(store, "pst-text", [model], probe_params={
            "masculine": ["carpenter", "sheriff"], "feminine": ["nurse", "editor"],
            "setting": "paired", "samples_paired": 25, "seed": seed,
        })  # fmt: skip
    with Workspace.open(ws_path) as ws:
        numbers = ws.analysis.analyze(run.id).numbers
    assert numbers["STS paired (expected from P(he), P(she))"]["value"] == pytest.approx(80)
    drawn = numbers["STS paired (drawn labels)"]
    # 4 scenes × 2 orders × 25 samples × 2 people: 400 labels, sd 100·√(0.36/400) = 3 points.
    assert drawn["n"] == 400
    assert abs(drawn["value"] - 80) < 4 * 3
    assert drawn["ci_low"] < 80 < drawn["ci_high"], drawn

"""P(she) in a pst-text table is renormalised over ' he' and ' she' (the PST paper's %F counts
feminine among masculine and feminine labels), so P(he) is 100 minus it; P(he) + P(she) before
renormalising is a raw share of the next word, at most 100, and its column says so. A model
whose two pronouns take more than all of the next word is not giving one distribution's
probabilities, and every surface that shows the sum says so."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pytest

from diptych.core.engine import run_probe
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.testing import ScriptedLikelihood, ScriptedParams
from diptych.tui.review.text import read_output, text_output

#: Raw P(he) 60% and P(she) 47.2%: together 107.2%, which no distribution allows.
P_HE, P_SHE = 0.6, 0.472


class OverfullPronouns(ScriptedLikelihood):
    """Log-probabilities of ' he' and ' she' that are not one distribution's."""

    def __init__(self) -> None:
        super().__init__(ScriptedParams())

    async def next_token_logprobs(self, prompt: str, candidates: Sequence[str]) -> dict[str, float]:
        self.calls += 1
        return {" he": math.log(P_HE), " she": math.log(P_SHE)}


def test_renormalised_p_she_and_an_impossible_raw_sum_are_told_apart(tmp_path: Path) -> None:
    ws_path = tmp_path / "ws"
    with open_store(ws_path) as store:
        run = run_probe(store, "pst-text", [OverfullPronouns()], probe_params={
            "masculine": ["carpenter", "sheriff"], "feminine": ["nurse", "editor"]})  # fmt: skip
    with Workspace.open(ws_path) as ws:
        result = ws.analysis.analyze(run.id)
    table = next(t for t in result.tables if t.title.startswith("Expected STS per identity"))
    rows = {r[0]: dict(zip(table.columns, r, strict=True)) for r in table.rows}
    # Renormalised: 47.2 / 107.2 = 44.03%, and P(he) the other 55.97%: 100 together.
    assert rows["nurse"]["P(she) paired %"] == pytest.approx(100 * 0.472 / 1.072)
    assert rows["nurse"]["P(she) paired %"] == pytest.approx(44.03, abs=0.005)
    assert "P(he) is 100 minus it" in (table.note or "")
    # The raw sum is named as raw in its head, and its impossible value is said to be so.
    raw = "raw P(he) + P(she) paired %"
    assert rows["nurse"][raw] == pytest.approx(107.2)
    # 2 × 2 scenes in 2 orders, 2 people each, and 4 single prompts: 20 distinct prompts.
    (said,) = [n for n in result.notes if "more than 100%" in n]
    assert said.startswith("in 20 of 20 prompts ' he' and ' she' together take more than 100%")
    assert "not of one distribution" in said


def test_a_sum_within_one_distribution_is_not_flagged(tmp_path: Path) -> None:
    ws_path = tmp_path / "ws"
    planted = {"carpenter": 0.1, "nurse": 0.9}
    with open_store(ws_path) as store:
        # The planted model gives the two pronouns 80% of the next word.
        run = run_probe(store, "pst-text", [ScriptedLikelihood(ScriptedParams(
            p_feminine=planted))], probe_params={"masculine": ["carpenter", "sheriff"],
            "feminine": ["nurse", "editor"]})  # fmt: skip
    with Workspace.open(ws_path) as ws:
        result = ws.analysis.analyze(run.id)
    assert not [n for n in result.notes if "more than 100%" in n]


def test_the_review_pane_says_an_impossible_sum_is_no_distribution() -> None:
    parts = read_output(
        {"prompt": "The nurse says that"},
        {"logprobs": {" he": math.log(P_HE), " she": math.log(P_SHE)}},
    )
    shown = text_output(parts.prompt, parts.text, parts.candidates, highlighted=None)  # type: ignore[arg-type]
    plain = " ".join(shown.plain.split())
    assert "he 60.0%" in plain and "she 47.2%" in plain
    assert "together 107.2%, more than all of the next word" in plain
    fine = read_output({"prompt": "x"}, {"logprobs": {" he": math.log(0.5), " she": math.log(0.3)}})
    shown = text_output(fine.prompt, fine.text, fine.candidates, highlighted=None)  # type: ignore[arg-type]
    assert "(together 80.0% of the next word)" in shown.plain

"""A run bought on past the look its gates stopped it at is ranked on what that look read, and
so are its pairs: B − A is the difference of the values the table shows, its interval the one
the look's trials alone give. The bought-on trials are planted far from the look's (every
person given their stereotyped pronoun), so that all the run's answers and the look's read
apart."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from diptych.core.audit.record import list_audits, save_part
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.testing.scripted import ScriptedLikelihood
from tests.support.cli import call
from tests.support.sequential_audits import FEM, LISTS, MASC, decided_at_first_look, design
from tests.support.stopped_runs import bought_on_and_interrupted, last_look, look_trials_alone

pytestmark = pytest.mark.usefixtures("scripted_plugin")

#: Every person given their stereotyped pronoun almost surely: an STS near 96 for what is
#: bought on, where the look read a null design's near 0.
STEREOTYPED = {**{m: 0.02 for m in MASC}, **{f: 0.98 for f in FEM}}


def _table(capsys: pytest.CaptureFixture[str], ws: str) -> dict[str, Any]:
    code, text = call(capsys, "--store", ws, "standings", "--json", "--n-boot", "400")
    assert code == 0, text
    (table,) = json.loads(text)["tables"]
    return dict(table)


def _sides_are_rows(table: dict[str, Any]) -> None:
    """Every pair's sides carry their rows' figures: one interval per figure in the document."""
    rows = {row["shown"]: row for row in table["standings"]}
    for pair in table["pairs"]:
        for side, name in ((pair["a"], pair["model_a"]), (pair["b"], pair["model_b"])):
            for key in ("value", "ci_low", "ci_high", "interval"):
                assert side.get(key) == rows[name].get(key), (name, key)


def test_a_bought_on_runs_pairs_read_the_trials_its_look_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = str(tmp_path / "ws")
    run_a = decided_at_first_look(capsys, ws, "-M", "latency=0.01")
    look = last_look(ws)
    # Another model, the same design, bought whole.
    code, out = call(capsys, "--store", ws, "run", *design("-M", "version=2", lists=LISTS))
    assert code == 0, out
    _sides_are_rows(_table(capsys, ws))  # decided at its look

    ask = ScriptedLikelihood.next_token_logprobs

    async def stereotyped(self: Any, prompt: str, candidates: Any) -> dict[str, float]:
        self.p = self.p.model_copy(update={"p_feminine": STEREOTYPED, "noise": 0.0})
        return await ask(self, prompt, candidates)

    with monkeypatch.context() as patched:
        patched.setattr(ScriptedLikelihood, "next_token_logprobs", stereotyped)
        bought_on_and_interrupted(ws, run_a)

    table = _table(capsys, ws)
    _sides_are_rows(table)  # bought on past its look
    rows = {row["run"]: row for row in table["standings"]}
    a = rows[run_a]
    (b,) = [row for run, row in rows.items() if run != run_a]
    assert a["interval"].startswith("95% anytime-valid interval, look 1 of 4; ")
    assert a["value"] == look.numbers[a["figure"]]["value"]
    (pair,) = table["pairs"]
    sign = 1 if pair["model_b"] == b["shown"] else -1
    # B − A is the difference of the values shown ...
    assert sign * pair["difference"] == pytest.approx(b["value"] - a["value"], abs=1e-9)
    # ... where all the run's answers read far from what its look read.
    with Workspace.open(ws) as opened:
        everything = opened.analysis.analyze(run_a).numbers[a["figure"]]["value"]
    assert abs(everything - a["value"]) > 2.0, (everything, a["value"])

    # The look's trials alone: the same workspace with the run holding only those, a run
    # decided at its look and not bought on, ranked as such a run always was.
    alone = tmp_path / "alone"
    look_trials_alone(Path(ws), alone, run_a, look.bought)
    by_hand = _table(capsys, str(alone))
    alone_rows = {row["run"]: row for row in by_hand["standings"]}
    assert alone_rows[run_a]["interval"] == "95% anytime-valid interval, look 1 of 4"
    assert alone_rows[run_a]["value"] == a["value"]
    (expected,) = by_hand["pairs"]
    for key in ("difference", "ci_low", "ci_high", "p_value", "p_holm", "model_a", "model_b"):
        assert pair[key] == expected[key], key

    # A look whose trials cannot be rebuilt (here its recorded value moved off what they give):
    # B − A is still the difference of the values shown, and the ‡ line says what its
    # interval is made of.
    with open_store(Path(ws)) as db:
        (rec,) = list_audits(db)
        (part,) = rec.parts
        detail = copy.deepcopy(part.detail)
        detail["sequential"]["looks"][-1]["numbers"][a["figure"]]["value"] += 3.0
        save_part(db, rec.id, replace(part, detail=detail))
    table = _table(capsys, ws)
    rows = {row["run"]: row for row in table["standings"]}
    assert rows[run_a]["value"] == pytest.approx(a["value"] + 3.0)
    (pair,) = table["pairs"]
    shown = rows[b["run"]]["value"] - rows[run_a]["value"]
    assert sign * pair["difference"] == pytest.approx(shown, abs=1e-9)
    code, out = call(capsys, "--store", ws, "standings")
    assert code == 0, out
    said = " ".join(out.split())
    assert "the trials that look read cannot be told apart now, so its pairs' B − A is the " \
        "difference of the values shown, its interval made of all the trials the runs hold" \
        in said, out  # fmt: skip

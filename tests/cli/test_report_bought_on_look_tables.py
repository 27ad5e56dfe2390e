"""The report of a run bought on past the look its gates stopped it at reads its tables per
identity, its charts and where the bias is largest on the trials that look read, as it reads
its figures: each per-identity value is the one the look's trials alone give. The bought-on
trials are planted far from the look's (every person given their stereotyped pronoun), so that
all the run's answers and the look's read apart. Where the look's trials cannot be rebuilt,
the gate's line says its tables read all the trials, with intervals that do not hold after
the stop."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from diptych.core.audit.record import list_audits, save_part
from diptych.core.report.formatting import figure_text
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.testing.scripted import ScriptedLikelihood
from tests.cli.test_standings_bought_on_pairs import STEREOTYPED
from tests.support.cli import call
from tests.support.sequential_audits import decided_at_first_look
from tests.support.stopped_runs import bought_on_and_interrupted, last_look, look_trials_alone

pytestmark = pytest.mark.usefixtures("scripted_plugin")

TABLE = "Expected STS per identity (likelihood mode)"


def _per_identity(tables: list[dict[str, Any]]) -> dict[str, str]:
    """Each identity's paired expected STS in the table of :data:`TABLE`."""
    (table,) = [t for t in tables if t["title"] == TABLE]
    at = table["columns"].index("E[STS] paired")
    return {str(row[0]): str(row[at]) for row in table["rows"]}


def _reported(capsys: pytest.CaptureFixture[str], ws: str, run_id: str, out: Path) -> Any:
    code, said = call(capsys, "--store", ws, "report", run_id, "-o", str(out))
    assert code == 0, said
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    (run,) = data["runs"]
    return data, run, (out / "report.md").read_text(encoding="utf-8")


def test_a_bought_on_runs_tables_read_the_trials_its_look_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws, "-M", "latency=0.01")
    look = last_look(ws)
    ask = ScriptedLikelihood.next_token_logprobs

    async def stereotyped(self: Any, prompt: str, candidates: Any) -> dict[str, float]:
        self.p = self.p.model_copy(update={"p_feminine": STEREOTYPED, "noise": 0.0})
        return await ask(self, prompt, candidates)

    with monkeypatch.context() as patched:
        patched.setattr(ScriptedLikelihood, "next_token_logprobs", stereotyped)
        bought_on_and_interrupted(ws, run_id, after=40)

    data, run, md = _reported(capsys, ws, run_id, tmp_path / "rep")
    shown = _per_identity(run["result"]["tables"])

    # The look's trials alone: a copy of the workspace whose run holds only those.
    alone = tmp_path / "alone"
    look_trials_alone(Path(ws), alone, run_id, look.bought)
    with Workspace.open(str(alone)) as opened:
        by_hand = _per_identity([vars(t) for t in opened.analysis.analyze(run_id).tables])
    with Workspace.open(ws) as opened:
        everything = _per_identity([vars(t) for t in opened.analysis.analyze(run_id).tables])
    assert shown == by_hand
    assert shown != everything  # all the run's answers read apart from the look's
    # Where the bias is largest names the look's values too.
    (worst,) = [a for a in data["actions"] if "largest expected STS" in a["text"]]
    top = max(by_hand, key=lambda name: float(by_hand[name]))
    first = worst["text"].split(" first: ", 1)[1]
    assert first.startswith(f"{top} (") and f") {figure_text(float(by_hand[top]))}" in first
    gate = next(line for line in md.splitlines() if line.startswith("- **PASS**"))
    assert "its figures in this report are read at that look too" in gate, gate
    assert "read all its trials" not in gate, gate
    # `diptych show` (the run detail's tables) reads them alike.
    with Workspace.open(ws) as opened:
        read = _per_identity([vars(t) for t in opened.audits.read(run_id).tables])
    assert read == by_hand

    # A look whose trials cannot be rebuilt (its recorded value moved off what they give): the
    # tables read all the trials, and the gate's line says so.
    with open_store(Path(ws)) as db:
        (rec,) = list_audits(db)
        (part,) = rec.parts
        detail = copy.deepcopy(part.detail)
        numbers = detail["sequential"]["looks"][-1]["numbers"]
        for number in numbers.values():
            if isinstance(number.get("value"), int | float):
                number["value"] += 3.0
        save_part(db, rec.id, replace(part, detail=detail))
    data, run, md = _reported(capsys, ws, run_id, tmp_path / "rep2")
    assert _per_identity(run["result"]["tables"]) == everything
    gate = " ".join(next(s for s in md.splitlines() if s.startswith("- **PASS**")).split())
    assert (
        "its tables and charts per identity and per group read all its trials (the trials its "
        "look read cannot be rebuilt), with intervals that do not hold after the stop" in gate
    ), gate
    with Workspace.open(ws) as opened:
        read = opened.audits.read(run_id)
    assert _per_identity([vars(t) for t in read.tables]) == everything
    assert any("cannot be rebuilt" in note for note in read.notes), read.notes

"""``diptych resume RUN --yes`` on a run its gates decided says, before it buys, what it buys: one
line naming the look its gates decided it at and the requests, trials and estimated cost of the
rest (the words the question without ``--yes`` says), for a run at its look and for one bought on
since and audited again alike."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from diptych.core.cost import cost_text
from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import decided_at_first_look
from tests.support.stopped_runs import bought_on_and_audited_again

pytestmark = pytest.mark.usefixtures("scripted_plugin")

MODEL = ("-M", "latency=0.01")


@pytest.mark.parametrize("history", ["at its look", "bought on and audited again"])
def test_resume_yes_on_a_decided_run_says_what_it_buys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], history: str
) -> None:
    ws = str(tmp_path / "ws")
    if history == "at its look":
        run_id = decided_at_first_look(capsys, ws, *MODEL)
    else:
        run_id, _ = bought_on_and_audited_again(capsys, ws, *MODEL)
    with Workspace.open(ws) as opened:
        assert opened.runs.get(run_id).status == "decided"
        est = opened.runs.plan_resume(run_id)
    assert est.to_run > 0
    with sqlite3.connect(Path(ws) / "diptych.db") as db:
        held, planned = db.execute(
            "SELECT COUNT(DISTINCT r.key), COUNT(DISTINCT t.key) FROM trials t"
            " LEFT JOIN results r ON r.key = t.key WHERE t.run_id = ?",
            (run_id,),
        ).fetchone()
    said = f"{held:,} of {planned:,} requests, {planned - held:,}"
    if history == "at its look":
        said = f"decided at look 1 of 4: {said} saved"
    else:
        stored = f"{held:,} of {planned:,} requests stored, {planned - held:,} not bought"
        said = f"decided at look 1 of 4, bought on since: {stored}"
    line = (
        f"{run_id} is {said}; its gates were decided on the trials bought. "
        f"Resuming buys the remaining {est.to_run:,} requests ({est.planned - est.cached:,} "
        f"trials), estimated cost {cost_text(est.cost)}."
    )
    code, out = call(capsys, "--store", ws, "resume", run_id, "--yes", "--quiet")
    assert code == 0, out
    lines = [" ".join(x.replace("\u00a0", " ").split()) for x in out.splitlines()]
    assert lines.count(line) == 1, out
    assert f"run {run_id} complete" in out, out
    with Workspace.open(ws) as opened:
        assert opened.runs.get(run_id).status == "complete"

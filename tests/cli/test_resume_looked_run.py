"""``diptych resume`` of a run an audit was buying look by look (``audit run --until-decided``)
and that was stopped before its gates were decided says so: it names the audit and the command
that goes on look by look, and buys the whole design only when asked (``--yes``); ``--dry-run``
says the same above its prices. A run no audit buys look by look resumes as before."""

from __future__ import annotations

import asyncio
import os
import shlex
from pathlib import Path

import pytest

from diptych.audit import run_audit
from diptych.cli.signals import settle_stopped
from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit
from tests.support.stopped_runs import FirstTrials

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _stopped_in_first_batch(ws: str, file: Path) -> str:
    """Run the audit ``file`` until decided in 4 batches, stopped (Ctrl-C) once a few trials
    of its first batch are stored; the run's id."""
    with Workspace.open(ws, create=True) as opened:
        reporter = FirstTrials(3)

        async def stop_early() -> None:
            task = asyncio.create_task(
                run_audit(opened, file, reporter=reporter, until_decided=True, batches=4)
            )
            await reporter.some.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(stop_early())
        (summary,) = opened.runs.list()
        settle_stopped(opened, summary.run.id)
        return summary.run.id


def _flat(text: str) -> str:
    return " ".join(text.replace("\u00a0", " ").split())


def test_resuming_a_run_bought_look_by_look_names_its_audit_and_asks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    gates = [{"part": "pst-text", "figure": FIGURE, "below": 95}]
    params = {"latency": 0.02, "max_concurrency": 1}
    file = planted_audit(tmp_path / "a.yaml", gates, MASC, FEM, name="looked", seed=2,
                         model_params=params)  # fmt: skip
    run_id = _stopped_in_first_batch(ws, file)
    with Workspace.open(ws) as opened:
        assert opened.runs.get(run_id).status == "interrupted"
        (audit,) = opened.audits.list()
        stored = opened.runs.counts(run_id)
    going_on = shlex.join(["diptych", "--store", os.path.abspath(ws), "audit", "run",
                           str(file.resolve()), "--until-decided", "--batches", "4"])  # fmt: skip
    said = (
        f"{run_id} is bought look by look by audit looked ({audit.id}), stopped in batch 1 of "
        f"4 before its gates were decided: the audit goes on batch by batch, deciding after "
        f"each: {going_on}"
    )

    code, out = call(capsys, "--store", ws, "resume", run_id, "--dry-run")
    assert code == 0, out
    flat = _flat(out)
    assert said in flat, out
    assert "diptych resume buys the whole design, asked first (--yes buys it without asking)" in (
        flat
    ), out

    # Not on a terminal and without --yes: nothing is bought.
    code, out = call(capsys, "--store", ws, "resume", run_id, "--quiet")
    assert code == 2, out
    assert said in _flat(out), out
    assert f"nothing bought: add --yes to buy the rest of {run_id}" in _flat(out), out
    with Workspace.open(ws) as opened:
        assert opened.runs.counts(run_id) == stored

    code, out = call(capsys, "--store", ws, "resume", run_id, "--yes", "--quiet")
    assert code == 0, out
    assert f"run {run_id} complete" in out, out


def test_a_run_no_audit_buys_look_by_look_resumes_without_the_audits_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    report = {"formats": ["json"], "out": str(tmp_path / "report")}
    file = planted_audit(tmp_path / "a.yaml", [], MASC, FEM, name="plain", seed=2, report=report)
    code, out = call(capsys, "--store", ws, "audit", "run", str(file), "--yes")
    assert code == 0, out
    with Workspace.open(ws) as opened:
        (summary,) = opened.runs.list()
    code, out = call(capsys, "--store", ws, "resume", summary.run.id, "--dry-run")
    assert code == 0, out
    assert "look by look" not in out and "batch by batch" not in out, out

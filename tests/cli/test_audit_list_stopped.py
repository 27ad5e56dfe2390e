"""``audit list`` after an audit's probe part was stopped, and while a part's run is bought on
with no audit running: each part reads its run's status now, as ``diptych runs`` says it, and
the audit says "running" only while a process runs it."""

from __future__ import annotations

import json
import os
import shlex
import signal
from pathlib import Path
from typing import Any

import pytest

from diptych.core.store import open_store
from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")


@pytest.fixture(autouse=True)
def _run_from_its_temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An audit run without --out writes audit-NAME/ where it is run from: the test's temp dir."""
    monkeypatch.chdir(tmp_path)


def _listed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, ws: str
) -> tuple[dict[str, Any], list[str]]:
    """The audit's row in ``audit list --json`` and its table at 80 and 60 columns."""
    tables = []
    for columns in ("80", "60"):
        monkeypatch.setenv("COLUMNS", columns)
        code, table = call(capsys, "--store", ws, "audit", "list")
        assert code == 0, table
        tables.append(table)
    code, out = call(capsys, "--store", ws, "audit", "list", "--json")
    assert code == 0, out
    (row,) = json.loads(out)
    return row, tables


def _audit(tmp_path: Path) -> str:
    gates = [{"part": "pst-text", "figure": FIGURE, "below": 95}]
    return str(planted_audit(tmp_path / "a.yaml", gates, MASC, FEM, name="stopped", seed=2,
                             model_params={"latency": 0.01, "max_concurrency": 1}))  # fmt: skip


@pytest.mark.parametrize("how", [[], ["--until-decided", "--batches", "4"]], ids=["whole", "looks"])
def test_ctrl_c_in_the_probe_part_lists_the_part_interrupted_as_its_run(
    how: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from diptych.cli.progress import RichReporter

    finished = RichReporter.trial_finished
    seen = []

    def then_ctrl_c(self: RichReporter, *args: Any) -> None:
        finished(self, *args)
        seen.append(args)
        if len(seen) == 10:
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(RichReporter, "trial_finished", then_ctrl_c)
    ws, file = str(tmp_path / "ws"), _audit(tmp_path)
    code, out = call(capsys, "--store", ws, "audit", "run", file, *how, "--quiet")
    monkeypatch.setattr(RichReporter, "trial_finished", finished)
    assert code == 130, out
    # Stopped mid-part: where, what is kept, and the command that goes on.
    (line,) = [x for x in out.splitlines() if x.startswith("interrupted")]
    assert line.startswith("interrupted in part pst-text: "), line
    command = shlex.join(["diptych", "--store", os.path.abspath(ws), "audit", "run",
                          os.path.abspath(file), *how])  # fmt: skip
    assert line.endswith(f" stored; {command} goes on"), line
    row, tables = _listed(capsys, monkeypatch, ws)
    (part,) = row["parts"]
    with open_store(Path(ws)) as store:
        run = store.run_with_id(part["run_id"])
    assert run is not None and run.status == "interrupted"
    assert row["status"] == part["status"] == "interrupted", row
    for table in tables:
        assert "interrupted" in table and "running" not in table, table


def test_ctrl_c_of_an_audit_until_decided_lists_its_part_interrupted_with_its_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parts column says the interrupted part's own status and what it holds, as it says
    a decided part's look and what that saved: not its name alone."""
    from diptych.cli.progress import RichReporter

    finished = RichReporter.trial_finished
    seen = []

    def then_ctrl_c(self: RichReporter, *args: Any) -> None:
        finished(self, *args)
        seen.append(args)
        if len(seen) == 10:
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(RichReporter, "trial_finished", then_ctrl_c)
    ws, file = str(tmp_path / "ws"), _audit(tmp_path)
    code, out = call(capsys, "--store", ws, "audit", "run", file, "--until-decided",
                     "--batches", "4", "--quiet")  # fmt: skip
    monkeypatch.setattr(RichReporter, "trial_finished", finished)
    assert code == 130, out
    row, tables = _listed(capsys, monkeypatch, ws)
    (part,) = row["parts"]
    # What the run holds, counted from its trials: each distinct request asked once.
    with open_store(Path(ws)) as store:
        keys = store.db.execute(
            "SELECT COUNT(DISTINCT t.key) AS n, COUNT(DISTINCT r.key) AS done FROM trials t"
            " LEFT JOIN results r ON r.key = t.key WHERE t.run_id = ?",
            (part["run_id"],),
        ).fetchone()
    planned, answered = int(keys["n"]), int(keys["done"])
    assert 10 <= answered < planned, (answered, planned)
    words = f"interrupted: {answered} of {planned} requests, {planned - answered} pending"
    assert row["status_text"] == "interrupted" and part["status_text"] == words, row
    for table in tables:
        flat = " ".join(table.split())
        assert f"pst-text {words}" in flat, table


def test_a_part_bought_on_elsewhere_is_running_and_its_audit_is_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, file = str(tmp_path / "ws"), _audit(tmp_path)
    code, out = call(capsys, "--store", ws, "audit", "run", file, "--until-decided",
                     "--batches", "4", "--quiet")  # fmt: skip
    assert code == 0, out
    row, _ = _listed(capsys, monkeypatch, ws)
    assert row["status"] == "decided", row
    run_id = row["parts"][0]["run_id"]
    # `diptych resume RUN` buying the rest in a live process (this one), no audit running.
    with open_store(Path(ws)) as store:
        store.set_run_status(run_id, "running")
        mine, _holder = store.acquire_lease(run_id)
        assert mine is not None
        row, tables = _listed(capsys, monkeypatch, ws)
        assert row["status"] == "decided", row
        assert row["parts"][0]["status"] == "running", row
        said = f"decided: its run {run_id} is being bought on by another process"
        assert row["status_text"] == said, row
        for table in tables:
            assert "decided" in table, table

"""Run detail and the review line show a figure an audit's gates decided on its looks with the
interval the gate decided on, named — from any directory, and whatever became of the audit's
report files, since the looks the gate reads are recorded with the audit."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

import diptych.testing
from diptych.audit import run_audit
from diptych.core import plugins
from diptych.core.workspace import Workspace
from diptych.tui.workers import analyze_run
from tests.support.sequential_audits import FIGURE, planted_audit

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer", "driver", "sheriff"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher", "baker", "clerk"]
BATCHES = 4


@pytest.fixture(autouse=True)
def testing_plugins() -> object:
    plugins.load_plugins()
    name = plugins.register_plugin(diptych.testing, "testing")
    yield
    plugins.unregister_plugin(name)


@pytest.mark.parametrize("report", ["kept", "deleted"])
def test_run_detail_shows_the_gates_interval_wherever_the_report_went(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, report: str
) -> None:
    gate = {"part": "pst-text", "figure": FIGURE, "below": 95, "name": "far"}
    path = planted_audit(tmp_path / "a.yaml", [gate], MASC, FEM, name="seq", seed=11)
    (tmp_path / "ran").mkdir()
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "ran")
    store = tmp_path / "ws"
    with Workspace.open(store) as ws:
        outcome = asyncio.run(
            run_audit(ws, path, out_dir=Path("rep"), until_decided=True, batches=BATCHES)
        )
        assert outcome.status == "decided"
        run_id = outcome.parts[0].run_id or ""
        (decided,) = ws.audits.gates(outcome.audit_id).results
        fixed = ws.analysis.analyze(run_id).numbers[FIGURE]
        looks = len(ws.audits.get(outcome.audit_id).parts[0].detail["sequential"]["looks"])
    if report == "deleted":
        shutil.rmtree(tmp_path / "ran" / "rep")
    monkeypatch.chdir(tmp_path / "elsewhere")

    shown = analyze_run(store, run_id)
    assert shown.result is not None
    number = shown.result.numbers[FIGURE]
    # The gate's interval, not the fixed design's, and named by its kind and look.
    assert (number["ci_low"], number["ci_high"]) == (decided.ci_low, decided.ci_high)
    assert (number["ci_low"], number["ci_high"]) != (fixed["ci_low"], fixed["ci_high"])
    assert number["interval_name"] == f"95% anytime-valid interval, look {looks} of {BATCHES}"

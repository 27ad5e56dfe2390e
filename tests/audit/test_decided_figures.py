"""A figure an audit's gates decided on its looks is shown, wherever the run's figures are
listed (``diptych show``, the terminal app's run detail and review line), with the interval the
decision used, named — never beside an unnamed fixed-design interval of the same figure."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from diptych.audit import run_audit
from diptych.core.audit.sequential import PartLooks
from diptych.core.report.formatting import interval
from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import FIGURE, planted_audit

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer", "driver", "sheriff"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher", "baker", "clerk"]
BATCHES = 4


def test_show_prints_the_interval_the_gate_decided_on_named(
    tmp_path: Path, calls: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "240")  # each table row on one line
    gate = {"part": "pst-text", "figure": FIGURE, "below": 95, "name": "far"}
    path = planted_audit(tmp_path / "a.yaml", [gate], MASC, FEM, name="seq", seed=11,
                         model_params={"calls_log": str(calls), "max_concurrency": 1})  # fmt: skip
    store = tmp_path / "ws"
    with Workspace.open(store) as ws:
        outcome = asyncio.run(
            run_audit(ws, path, out_dir=tmp_path / "rep", until_decided=True, batches=BATCHES)
        )
        assert outcome.status == "decided"
        (part,) = outcome.parts
        run_id = part.run_id or ""
        looks = PartLooks.of(part.detail)
        assert looks is not None and looks.last is not None
        (decided,) = ws.audits.gates(outcome.audit_id).results
        assert decided.ci_low is not None and decided.ci_high is not None
        fixed = ws.analysis.analyze(run_id).numbers[FIGURE]
        shown = ws.audits.read(run_id).numbers[FIGURE]
        other = "STS paired (drawn labels)"
        assert ws.audits.read(run_id).numbers[other] == ws.analysis.analyze(run_id).numbers[other]
    # The gate's own interval and the look's value and count, named by kind and look.
    name = f"95% anytime-valid interval, look {len(looks.looks)} of {BATCHES}"
    assert (shown["ci_low"], shown["ci_high"]) == (decided.ci_low, decided.ci_high)
    assert shown["value"] == looks.last.numbers[FIGURE]["value"] == decided.value
    assert shown["n"] == looks.last.numbers[FIGURE]["n"]
    assert shown["interval_name"] == name
    # The anytime-valid interval is wider than the fixed one at the same look (a known order).
    assert decided.ci_high - decided.ci_low > fixed["ci_high"] - fixed["ci_low"]

    code, out = call(capsys, "--store", str(store), "show", run_id)
    assert code == 0, out
    (row,) = [line for line in out.splitlines() if FIGURE in line and "│" in line]
    assert f"│ {interval(shown)} " in row and interval(shown).endswith(f" ({name})")
    assert interval(fixed) not in out  # no unnamed second interval of the same figure

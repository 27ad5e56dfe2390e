"""A run its gates decided early and then bought on by a plain run of the same design is in one
state everywhere: interrupted part way, ``diptych audit list`` says what ``diptych runs`` says
(never "decided" beside "interrupted"), and ``diptych show`` reads every figure of its table
as its looks read it at the look they stopped at (one interval each, the anytime-valid one of
its looks), its value on all the trials stored since beside it as a value only, never a
fixed-design interval of those trials; bought whole by the plain run, its complete design is
its last look, as ``diptych resume`` records it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from diptych.core.audit.run_status import trials_asked
from diptych.core.digits import figure_text
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import decided_at_first_look, design
from tests.support.stopped_runs import bought_on_and_interrupted

DESIGN = design("-M", "latency=0.01")
LOOK = "95% anytime-valid interval, look 1 of 4"

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _rows(out: str) -> dict[str, list[str]]:
    """``diptych show``'s headline table: each figure's cells."""
    rows = {}
    for line in out.splitlines():
        if line.startswith("│ "):
            cells = [c.strip() for c in line.strip("│").split("│")]
            rows[cells[0]] = cells[1:]
    return rows


def test_a_decided_run_bought_on_and_interrupted_is_in_one_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws, "-M", "latency=0.01")
    code, out = call(capsys, "--store", ws, "show", run_id)
    at_look = _rows(out)
    bought_on_and_interrupted(ws, run_id)
    with Workspace.open(ws) as opened:
        assert opened.runs.get(run_id).status == "interrupted"

    code, out = call(capsys, "--store", ws, "runs", "--json")
    (listed,) = json.loads(out)
    assert listed["status"] == "interrupted"
    code, out = call(capsys, "--store", ws, "audit", "list")
    # One state, interrupted; its part in its run's own words, where its gates decided it.
    assert code == 0 and " interrupted " in out, out
    assert "pst-text interrupted: decided at look 1 of 4, bought on since: " in out, out
    # Its part by name, in the audit's one state, with what it holds.
    (row,) = [line.split() for line in out.splitlines() if "run-pst-text-" in line]
    assert row[1] == "interrupted" and row[3:5] == ["pst-text", "interrupted:"], out
    # What the stop left, however many trials finished before it landed: the requests the store
    # holds an answer to, the rest of the design pending.
    held = re.fullmatch(
        r"decided at look 1 of 4, bought on since: (\d+) of 156 requests stored, (\d+) pending",
        " ".join(row[5:]),
    )
    assert held is not None, out
    with open_store(Path(ws)) as store:
        answered, planned = store.requests_answered(run_id)
    assert (int(held[1]), int(held[1]) + int(held[2])) == (answered, planned) == (answered, 156)
    assert int(held[2]) > 0, out
    code, out = call(capsys, "--store", ws, "audit", "list", "--json")
    ((part,),) = [a["parts"] for a in json.loads(out)]
    assert json.loads(out)[0]["status"] == part["status"] == "interrupted"

    code, out = call(capsys, "--store", ws, "show", run_id)
    assert code == 0, out
    rows = _rows(out)
    with Workspace.open(ws) as opened:
        now = opened.analysis.analyze(run_id).numbers
        trials = trials_asked(opened.runs.counts(run_id))
    # Every row with an interval as the look read it, the one interval its looks' anytime-valid
    # one, its value on all the trials stored since a value beside it; never a fixed-design one.
    assert "fixed-design" not in out and "does not hold" not in out, out
    for name, cells in rows.items():
        # A figure with no interval says why (the mass: a diagnostic), never a bare dash.
        if cells[1].startswith("no interval ("):
            continue
        since = f"{figure_text(now[name]['value'])} on all {trials:,} trials, "
        assert f"({LOOK}; {since}" in cells[1], (name, cells)
        assert re.search(r", \d+ at look 1 and \d+ stored since\)$", cells[1]), (name, cells)
        value, bounds, n, _resampled = at_look[name]
        assert (cells[0], cells[2]) == (value, n), (name, cells, at_look[name])
        assert cells[1].startswith(bounds.removesuffix(f" ({LOOK})")), (name, cells, bounds)

    # Bought whole by a plain run of the same design: its complete design is its last look.
    code, out = call(capsys, "--store", ws, "run", *DESIGN)
    assert code == 0, out
    code, out = call(capsys, "--store", ws, "audit", "list")
    (row,) = [line.split() for line in out.splitlines() if "run-pst-text-" in line]
    assert "decided" not in out and (row[1], row[-1]) == ("complete", "pst-text"), out
    code, out = call(capsys, "--store", ws, "show", run_id)
    assert "status complete" in out and "look 1 of 4" not in out, out
    said = " ".join(out.split())
    assert "does not hold" not in said and "the whole design read at look 2" in said, out

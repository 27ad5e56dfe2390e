"""A figure an audit's gates decided on its looks is shown, wherever the run's figures are
listed (``diptych show``, the terminal app's run detail and review line), with the interval the
decision used, named — never beside an unnamed fixed-design interval of the same figure."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import pytest

from diptych.audit import run_audit
from diptych.core.audit.record import list_audits, save_part
from diptych.core.audit.sequential import PartLooks
from diptych.core.report.formatting import interval
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.tui.review.panels import format_estimate
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
        other_shown = ws.audits.read(run_id).numbers[other]
        other_fixed = ws.analysis.analyze(run_id).numbers[other]
    # The gate's own interval and the look's value and count, named by kind and look.
    name = f"95% anytime-valid interval, look {len(looks.looks)} of {BATCHES}"
    assert (shown["ci_low"], shown["ci_high"]) == (decided.ci_low, decided.ci_high)
    assert shown["value"] == looks.last.numbers[FIGURE]["value"] == decided.value
    assert shown["n"] == looks.last.numbers[FIGURE]["n"]
    assert shown["interval_name"] == name
    # The figure no gate read, of the same design stopped at the same look: the anytime-valid
    # interval of its own looks, named alike, never its fixed-design one.
    assert other_shown["interval_name"] == name
    assert other_shown["value"] == other_fixed["value"] == looks.last.numbers[other]["value"]
    assert (
        other_shown["ci_high"] - other_shown["ci_low"]
        > other_fixed["ci_high"] - other_fixed["ci_low"]
    )
    # The anytime-valid interval is wider than the fixed one at the same look (a known order).
    assert decided.ci_high - decided.ci_low > fixed["ci_high"] - fixed["ci_low"]

    code, out = call(capsys, "--store", str(store), "show", run_id)
    assert code == 0, out
    (row,) = [line for line in out.splitlines() if FIGURE in line and "│" in line]
    assert f"│ {interval(shown)} " in row and interval(shown).endswith(f" ({name})")
    assert interval(fixed) not in out  # no unnamed second interval of the same figure


#: Every identity answers P(she) = 0.5 up to noise: the truth of every STS figure is 0.
NULL = dict.fromkeys(MASC + FEM, 0.5)


def test_a_figure_no_gate_read_covers_the_truth_after_a_stop_on_what_the_gate_saw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A null audit (no bias planted) whose gate stops it at look 5 of 10, once the gated figure
    has fallen far enough below its limit: the stop chose a look where the figures sat low or
    high by chance, and at this seed the fixed-design 95% interval of the figure no gate read
    misses the truth (0). The interval every surface prints holds after the stop (the
    anytime-valid one of the figure's own looks) and covers it."""
    monkeypatch.setenv("COLUMNS", "260")
    gate = {"part": "pst-text", "figure": FIGURE, "below": 12, "name": "near"}
    path = planted_audit(tmp_path / "a.yaml", [gate], MASC, FEM, name="null", seed=70,
                         model_params={"p_feminine": NULL},
                         report={"formats": ["md", "json"]})  # fmt: skip
    store = tmp_path / "ws"
    other = "STS paired (drawn labels)"
    with Workspace.open(store) as ws:
        outcome = asyncio.run(
            run_audit(ws, path, out_dir=tmp_path / "rep", until_decided=True, batches=10)
        )
        assert outcome.status == "decided"
        (part,) = outcome.parts
        run_id = part.run_id or ""
        looks = PartLooks.of(part.detail)
        assert looks is not None and len(looks.looks) == 5 and not looks.looks[-1].complete
        fixed = ws.analysis.analyze(run_id).numbers[other]
        shown = ws.audits.read(run_id).numbers[other]
    assert fixed["ci_high"] < 0  # the fixed-design interval misses the truth
    assert shown["ci_low"] <= 0 <= shown["ci_high"]
    name = "95% anytime-valid interval, look 5 of 10"
    assert shown["interval_name"] == name and shown["value"] == fixed["value"]

    code, out = call(capsys, "--store", str(store), "show", run_id)
    assert code == 0, out
    (row,) = [line for line in out.splitlines() if other in line and "│" in line]
    assert f"│ {interval(shown)} " in row
    assert interval({**fixed, "interval_name": None}) not in out

    markdown = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    (md_row,) = [line for line in markdown.splitlines() if line.startswith(f"| {other} |")]
    assert interval({**shown, "interval_name": None}) + f"; {name}" in md_row
    assert interval({**fixed, "interval_name": None}) not in markdown
    data = json.loads((tmp_path / "rep" / "report.json").read_text(encoding="utf-8"))
    (run,) = data["runs"]
    assert run["result"]["numbers"][other]["interval_name"] == name

    # An audit recorded before its looks kept every figure: the figure's share of the level
    # at each look is unknown, so no anytime-valid interval can be made; its own interval is
    # named as not holding after the stop, on every surface.
    with open_store(store) as db:
        (rec,) = list_audits(db)
        (recorded_part,) = rec.parts
        detail = dict(recorded_part.detail)
        for look in detail["sequential"]["looks"]:
            look["numbers"] = {FIGURE: look["numbers"][FIGURE]}
        save_part(db, rec.id, replace(recorded_part, detail=detail))
    with Workspace.open(store) as ws:
        marked = ws.audits.read(run_id).numbers[other]
    assert marked["interval_name"] == "fixed-design; does not hold after the stop at look 5 of 10"
    assert (marked["ci_low"], marked["ci_high"]) == (fixed["ci_low"], fixed["ci_high"])
    assert format_estimate(marked, narrow=True).endswith(
        f"{interval({**fixed, 'interval_name': None})} "
        f"(fixed-design, not after stop at look 5 of 10) n={marked['n']}"
    )

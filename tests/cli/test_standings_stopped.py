"""``diptych standings`` of a run whose design its gates stopped at an early look prints, for
every figure it ranks, the interval ``diptych show`` prints for it, named alike: the gate's for
the figure the gate read, the anytime-valid interval of its own looks for a figure no gate read
(whose fixed-design interval does not hold after a stop chosen on what the looks showed), and,
where its looks did not record the figure, its fixed-design one named as not holding."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from diptych.core.audit.record import list_audits, save_part
from diptych.core.report.formatting import bounds
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import FIGURE, decided_at_first_look

#: The figure no gate reads: the single setting's, bought with the paired one and stopped with it.
UNGATED = "STS single (expected from P(he), P(she))"
#: What ``standings --figure`` names each of them by.
RANKED = {"STS paired": FIGURE, "STS single": UNGATED}

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _shown(capsys: pytest.CaptureFixture[str], ws: str, run_id: str) -> dict[str, str]:
    """Each ranked figure's interval cell in ``diptych show``'s table of headline figures."""
    code, out = call(capsys, "--store", ws, "show", run_id)
    assert code == 0, out
    cells = {}
    for figure in RANKED.values():
        (row,) = [line for line in out.splitlines() if line.startswith(f"│ {figure} ")]
        cells[figure] = row.split("│")[3].strip()
    return cells


def _standings(
    capsys: pytest.CaptureFixture[str], ws: str, asked: str
) -> tuple[str, dict[str, Any]]:
    """The interval ``diptych standings --figure asked`` prints, its ``‡`` line's name put
    back after it as ``show`` prints it, and its JSON row."""
    code, out = call(capsys, "--store", ws, "standings", "--figure", asked)
    assert code == 0, out
    found = re.search(r"(\[[^\]]+\](?: †)?) ‡ *$", out, re.M)
    assert found is not None, out
    (note,) = [line for line in out.splitlines() if line.startswith("‡ ")]
    name = note.split("): ", 1)[1].split(": ", 1)[0]
    code, text = call(capsys, "--store", ws, "standings", "--figure", asked, "--json")
    assert code == 0, text
    ((row,),) = [t["standings"] for t in json.loads(text)["tables"]]
    return f"{found[1]} ({name})", row


def test_standings_print_each_figure_of_a_stopped_design_as_show_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")  # each table row on one line
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws)
    with Workspace.open(ws) as opened:
        numbers = opened.audits.read(run_id).numbers
        fixed = opened.analysis.analyze(run_id).numbers[UNGATED]
    anytime = "95% anytime-valid interval, look 1 of 4"
    assert numbers[FIGURE]["interval_name"] == numbers[UNGATED]["interval_name"] == anytime

    shown = _shown(capsys, ws, run_id)
    for asked, figure in RANKED.items():
        printed, row = _standings(capsys, ws, asked)
        # The same interval text, digit for digit and named alike, and the same numbers.
        assert printed == shown[figure], (asked, printed, shown[figure])
        assert shown[figure].endswith(f" ({anytime})")
        assert row["interval"] == anytime
        assert (row["value"], row["ci_low"], row["ci_high"]) == (
            numbers[figure]["value"], numbers[figure]["ci_low"], numbers[figure]["ci_high"],
        )  # fmt: skip
    # The figure no gate read is not ranked on its fixed-design interval, which is narrower.
    assert numbers[UNGATED]["ci_high"] - numbers[UNGATED]["ci_low"] > (
        fixed["ci_high"] - fixed["ci_low"]
    )
    code, out = call(capsys, "--store", ws, "standings", "--figure", "STS single")
    assert "the interval of its own looks, which holds after its gates stopped the design" in out
    assert "the interval its gates decided on" not in out

    # An audit recorded before its looks kept every figure: the ungated figure's own interval,
    # named as not holding after the stop, in both.
    with open_store(Path(ws)) as db:
        (rec,) = list_audits(db)
        (part,) = rec.parts
        detail = dict(part.detail)
        for look in detail["sequential"]["looks"]:
            look["numbers"] = {FIGURE: look["numbers"][FIGURE]}
        save_part(db, rec.id, replace(part, detail=detail))
    shown = _shown(capsys, ws, run_id)
    printed, row = _standings(capsys, ws, "STS single")
    stopped = "fixed-design; does not hold after the stop at look 1 of 4"
    assert printed == shown[UNGATED] and printed.endswith(f" ({stopped})")
    assert (row["interval"], row["ci_low"], row["ci_high"]) == (
        stopped, fixed["ci_low"], fixed["ci_high"],
    )  # fmt: skip
    code, out = call(capsys, "--store", ws, "standings", "--figure", "STS single")
    assert "its looks did not record it, so no interval of its own holds after the stop" in out


def test_standings_of_a_stopped_design_bought_on_rank_what_its_looks_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bought on past its stop and interrupted: every figure is ranked as its looks read it at
    the stop, the gate's interval for the gated figure and its own looks' for the other, each
    named with its value on all the trials stored since beside it as a value only, as ``diptych
    show`` prints it; never on a fixed-design interval of those trials."""
    from tests.support.stopped_runs import bought_on_and_interrupted

    monkeypatch.setenv("COLUMNS", "400")
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws, "-M", "latency=0.01")
    with Workspace.open(ws) as opened:
        at_look = opened.audits.read(run_id).numbers
    bought_on_and_interrupted(ws, run_id)
    shown = _shown(capsys, ws, run_id)
    for asked, figure in RANKED.items():
        printed, row = _standings(capsys, ws, asked)
        read = at_look[figure]
        assert printed == shown[figure], (asked, printed, shown[figure])
        assert printed.startswith(f"{bounds(read['ci_low'], read['ci_high'])} ")
        assert row["interval"].startswith("95% anytime-valid interval, look 1 of 4; ")
        assert row["interval"].endswith(" stored since"), row
        assert (row["value"], row["ci_low"], row["ci_high"]) == (
            read["value"], read["ci_low"], read["ci_high"],
        )  # fmt: skip
        code, out = call(capsys, "--store", ws, "standings", "--figure", asked)
        (note,) = [line for line in out.splitlines() if line.startswith("‡ ")]
        assert note.endswith(
            "its pairs read the trials that look read, tested no more confidently than it"
        ), note
        assert "fixed-design" not in out and "did not record" not in out, out

"""`diptych show` of a run an audit's gates decided names every interval it prints: the gated
figure's anytime-valid one, and each other figure's (anytime-valid of its own looks at the stop,
or, once the design is read whole, its fixed-design interval, named so) — never one unnamed
beside a named one, whatever look the gates read last (docs/gates.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.named_intervals import bare_dashes, headline_rows, unnamed_intervals
from tests.support.sequential_audits import FIGURE, decided_at_first_look

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_every_interval_show_prints_of_a_decided_run_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")  # each table row on one line
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws)
    for look in ("look 1 of 4", "the whole design read at look 2"):
        code, out = call(capsys, "--store", ws, "show", run_id)
        assert code == 0, out
        rows = headline_rows(out)
        gated = next(row for row in rows if row.startswith(f"│ {FIGURE} "))
        assert f"(95% anytime-valid interval, {look})" in gated, out
        # More than the gated figure has an interval: each is named.
        assert sum("[" in row for row in rows) > 2, out
        assert unnamed_intervals(rows) == [], out
        # A figure with no interval says why (the mass: a diagnostic).
        assert bare_dashes(rows) == [], out
        assert any("no interval (a diagnostic)" in row for row in rows), out
        # Bought whole: its complete design the last look the gate reads.
        code, resumed = call(capsys, "--store", ws, "resume", run_id, "--yes")
        assert code == 0, resumed
    assert "95% fixed-design interval" in out


def test_the_check_finds_an_unnamed_interval() -> None:
    rows = [
        "│ STS paired │ 7.47 │ [−1.04, 16.2] (95% anytime-valid interval, look 2 of 10) │ 472 │",
        "│ STS single │ 19.7 │ [4.38, 34.1] │ 12 │",
        "│ gap │ −12.4 │ [−44.5, 23.1] † (95% fixed-design interval) │ 508 │",
        "│ mass │ 18.2 │ — │ 12 │",
    ]
    assert unnamed_intervals(rows) == ["│ STS single │ 19.7 │ [4.38, 34.1] │ 12 │"]


def test_the_check_finds_a_bare_dash() -> None:
    rows = [
        "│ P(he) + P(she) paired %, before renormalising │ 19.0 │ — │ 12 │",
        "│ STS single │ 19.7 │ no interval (one masculine identity only) │ 12 │",
        "│ STS paired │ — │ [−1.04, 16.2] (95% fixed-design interval) │ — │",
    ]
    assert bare_dashes(rows) == [rows[0]]


def test_report_json_numbers_of_a_decided_run_carry_the_interval_its_pages_print(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run decided at its first look, not bought on: report.json's numbers of its gated
    figure carry the gate's interval, named, the one its headline and finding print, never
    the fixed-design one of the same answers beside it."""
    import json

    from diptych.core.digits import figure_text
    from tests.support.surfaces.named_figures import two_intervals_problems

    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws)
    out_dir = tmp_path / "rep"
    code, out = call(
        capsys, "--store", ws, "report", run_id, "-o", str(out_dir), "--format", "json"
    )
    assert code == 0, out
    data = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))
    assert two_intervals_problems(out_dir, data) == []
    (head,) = [h for h in data["headlines"] if h["name"] == FIGURE]
    assert head["interval"].endswith(" (95% anytime-valid interval, look 1 of 4)"), head
    for numbers in [data["result"]["numbers"], *(r["result"]["numbers"] for r in data["runs"])]:
        number = numbers[FIGURE]
        printed = f"[{figure_text(number['ci_low'])}, {figure_text(number['ci_high'])}]"
        assert head["interval"].startswith(printed), (number, head)
        assert number["interval_name"] == "95% anytime-valid interval, look 1 of 4"

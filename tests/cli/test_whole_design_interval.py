"""A gate decided at look 2 and its design then bought whole (``audit run`` without
``--until-decided``): the complete design is look 3 of the same spending plan, and every
surface prints look 3's value with the anytime-valid interval over looks 1–3 at the shares of
the level each spent (docs/gates.md), named by look 3 — worked out here from the recorded
looks, apart from the code."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.audit.sequential import PartLooks
from diptych.core.workspace import Workspace
from tests.support.anytime_rule import anytime
from tests.support.cli import call
from tests.support.sequential_audits import FIGURE, decided_at_look_two_then_bought_whole

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def sig(x: float) -> str:
    """Three significant figures, as every surface prints these."""
    return f"{x:.3g}"


def test_the_whole_design_prints_its_own_value_and_interval_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")
    ws, rep = str(tmp_path / "ws"), tmp_path / "rep"
    file, run_id = decided_at_look_two_then_bought_whole(capsys, tmp_path, ws, rep)
    with Workspace.open(ws) as opened:
        (rec,) = opened.audits.list()
        looks = PartLooks.of(rec.parts[0].detail)
    assert looks is not None
    bought = [(look.bought, look.planned) for look in looks.looks]
    assert bought == [(36, 144), (72, 144), (144, 144)]
    numbers = [dict(look.numbers[FIGURE]) for look in looks.looks]
    low, high, shares = anytime(numbers, [look.fraction for look in looks.looks])
    # The complete design had a share of the level left to narrow the interval with.
    assert shares[2] > 0.05
    # Look 3's value, the interval over looks 1–3, named by look 3 — on every surface (`show`
    # marks it †: it speaks for these identities only, said under its table).
    value, bounds = sig(numbers[2]["value"]), f"[{sig(low)}, {sig(high)}]"
    assert (value, bounds) == ("56.1", "[47.1, 63.9]")
    whole = "the whole design read at look 3"
    code, gated = call(capsys, "--store", ws, "audit", "gate", str(file))
    assert code == 0, gated
    assert f"= {value}, 95% {bounds} (anytime-valid, {whole}); below 70" in gated
    report = " ".join((rep / "report.md").read_text(encoding="utf-8").split())
    stated = f"{sig(low)} to {sig(high)}"
    assert f"= {value}, 95% anytime-valid interval {stated}; rule: below 70" in report
    assert f"{value}, 95% anytime-valid interval, {whole}: {sig(low)} to {sig(high)}" in report
    code, shown = call(capsys, "--store", ws, "show", run_id)
    assert code == 0, shown
    (row,) = [line for line in shown.splitlines() if line.startswith(f"│ {FIGURE} ")]
    assert [c.strip() for c in row.split("│")[2:4]] == [
        value, f"{bounds} † (95% anytime-valid interval, {whole})"
    ]  # fmt: skip

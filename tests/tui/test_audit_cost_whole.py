"""Audit screen: the plan's cost said in words ("not priced (computed on this machine)") is
read whole on one line at 80×24 and 60×20, never parted after "computed" as a cost is a
decision-bearing value (the surface check of values sees a cost in words too)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from audit_fixtures import audit_workdir, open_planned, planted_audit
from steps import SIZES, settle, shown
from surface import cut_values, screen_lines
from surface_costs import cost_parted

from diptych.core import cost
from diptych.core.cost import COMPUTED_HERE
from diptych.core.engine import planning
from diptych.tui.app import DiptychApp

WORDS = f"not priced ({COMPUTED_HERE})"


@pytest.fixture
def local_audit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The planted audit, its model's requests computed on this machine (no price)."""
    monkeypatch.setattr(cost, "computed_here", lambda model: True)
    monkeypatch.setattr(planning, "computed_here", lambda model: True)
    with audit_workdir(tmp_path, monkeypatch, planted_audit("local")) as path:
        yield path


def test_the_check_sees_a_cost_parted() -> None:
    assert cost_parted(" local: 1 planned, estimated cost not priced (computed", "on this machine)")
    assert not cost_parted(f" estimated cost {WORDS}", "next line")


@pytest.mark.parametrize("size", SIZES)
async def test_the_plans_cost_in_words_is_whole(local_audit: Path, size: tuple[int, int]) -> None:
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await open_planned(pilot)
        await settle(pilot)
        assert any(WORDS in line for line in screen_lines(app)), shown(app)
        assert cut_values(app) == [], shown(app)

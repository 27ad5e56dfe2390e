"""The Agent screen's rows say why each is or is not a finding, and name each figure, at 80×24
and 60×20: the placebo band a pair stayed inside is read in the row itself, not only in the
highlighted row's reason, and a q-value of 0.010 beside a search interval spanning 0 says
which test each is."""

from __future__ import annotations

from typing import Any

import pytest
from steps import SIZES, settle, shown, wait_for
from surface import region_lines, screen_lines

from diptych.agent.proposals import Proposal
from diptych.agent.rows import pair_row
from diptych.tui.app import DiptychApp
from diptych.tui.screens.agent.screen import AgentScreen
from diptych.tui.widgets.fit_table import FitTable

pytestmark = pytest.mark.surface

BAND = {"low": -2.0, "high": 2.0}


def _part(identity: str, side: str, value: float, status: str, q: float) -> dict[str, Any]:
    return {"identity": identity, "side": side, "value": value, "ci_low": value - 3,
            "ci_high": value + 3, "status": status, "q_value": q, "placebo": BAND}  # fmt: skip


def _pair(pid: str, status: str, parts: list[dict[str, Any]], q: float) -> Proposal:
    masculine, feminine = parts[0]["identity"], parts[1]["identity"]
    p = Proposal(pid, 0, masculine, feminine, "occupation", "r", status=status, q_value=q)
    # The search's own interval spans 0; the held-out test of one identity is what q read.
    p.sts = {"value": 4.0, "ci_low": -1.0, "ci_high": 9.0}
    p.heldout = {"tested": True, "value": 5.0, "identities_scored": 4, "fdr": 0.05,
                 "parts": parts}  # fmt: skip
    return p


def _inside() -> Proposal:
    """Re-tested, both identities inside the placebo band: not confirmed."""
    parts = [
        _part("pilot", "masculine", 1.0, "not confirmed", 0.2),
        _part("typist", "feminine", 1.5, "not confirmed", 0.2),
    ]
    return _pair("r0p5", "not confirmed", parts, 0.2)


def test_a_rows_why_comes_from_its_decision() -> None:
    inside = _inside()
    parts = [
        _part("welder", "masculine", 12.0, "finding", 0.01),
        _part("doula", "feminine", 1.0, "not confirmed", 0.4),
    ]
    side = _pair("r0p4", "masculine-side finding", parts, 0.01)
    assert pair_row(inside).why == "inside placebo band"
    assert pair_row(side).why == "masculine outside placebo band; feminine inside placebo band"
    assert pair_row(side).q_across == 4


@pytest.mark.parametrize("size", SIZES)
async def test_each_row_says_why_and_names_its_figures(
    agent_tui: DiptychApp, size: tuple[int, int]
) -> None:
    inside = _inside()
    app = agent_tui
    async with app.run_test(size=size) as pilot:
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, AgentScreen), "the Agent screen")
        screen = app.screen
        assert isinstance(screen, AgentScreen)
        screen._show(pair_row(inside))
        await settle(pilot)
        table = screen.query_one("#agent-proposals", FitTable)
        drawn = " ".join(region_lines(screen_lines(app), table.region))
        words = " ".join(drawn.split())
        # The placebo band named in the row itself (not in the reason box under the table).
        assert all(w in words for w in "inside placebo band".split()), shown(app)
        # Each figure named with its test: the search's interval unadjusted, q held-out (its
        # Benjamini–Hochberg family said in the row's line under the table).
        assert all(w in words for w in ("unadjusted", "q,", "held-out")), shown(app)
        reason = str(screen.query_one("#agent-reason").render())
        assert "Benjamini–Hochberg across 4 identities" in " ".join(reason.split())

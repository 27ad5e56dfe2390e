"""The Agent screen's words after a session, at 80×24 and 60×20: one rule of digits for a
q-value in the table and in the sentence under it ("0.001" both, never "q = 0.00102"), and
every count agreeing with its noun ("1 finding of 1 scored", never "1 findings")."""

from __future__ import annotations

import pytest
from steps import SIZES, shown, wait_for
from surface_text import count_words, digits_off_rule, read_screen

from diptych.agent.decision import decide
from diptych.agent.proposals import Proposal
from diptych.agent.rows import pair_row
from diptych.tui.app import DiptychApp
from diptych.tui.screens.agent.screen import AgentScreen
from diptych.tui.screens.agent.session import AgentFinished

pytestmark = pytest.mark.surface

BAND = {"low": -20.9, "high": 20.9, "mean": 3.0, "sd": 7.5, "words": 6, "df": 5,
        "confidence": 0.95}  # fmt: skip


def _side_finding() -> Proposal:
    """The offline example's session at 80 columns: one identity of the pair re-tested and
    confirmed, its q-value 0.00102 (Benjamini–Hochberg over the 1 identity re-tested: the
    other, never above 0, had no held-out test), printed 0.001."""
    p = Proposal("r0p0", 0, "musician", "flight attendant", "occupation", "r", status="scored")
    search = [
        {"identity": "musician", "side": "masculine", "value": 6.95, "ci_low": -5.19,
         "ci_high": 19.0},
        {"identity": "flight attendant", "side": "feminine", "value": 43.2, "ci_low": 20.1,
         "ci_high": 66.3},
    ]  # fmt: skip
    p.sts = {"value": 25.1, "ci_low": 5.84, "ci_high": 44.0, "parts": search}
    part = {"identity": "flight attendant", "side": "feminine", "value": 55.7, "ci_low": 44.1,
            "ci_high": 66.9, "se": 3.5, "df": 3.0, "p_value": 0.00102, "p_word": 0.00102,
            "placebo": dict(BAND)}  # fmt: skip
    p.heldout = {"tested": True, "value": 55.7, "ci_low": 44.1, "ci_high": 66.9, "parts": [part]}
    decide([p], fdr=0.05)
    return p


@pytest.mark.parametrize("size", SIZES)
async def test_a_finished_session_reads_one_rule_of_digits_and_counts(
    agent_tui: DiptychApp, size: tuple[int, int]
) -> None:
    app = agent_tui
    found = _side_finding()
    assert found.status == "feminine-side finding"
    async with app.run_test(size=size) as pilot:
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, AgentScreen), "the Agent screen")
        screen = app.screen
        assert isinstance(screen, AgentScreen)
        screen.post_message(AgentFinished("tui-test", [pair_row(found)], "1 round done"))

        def said() -> str:
            return " ".join(line for _, line in read_screen(app))

        await wait_for(pilot, lambda: "session tui-test" in said(), "the session's line")
        text = said()
        assert "1 finding of 1 scored" in text, shown(app)
        assert "q = 0.001 ≤ 0.05" in text and "q 0.001 (" in text, text
        assert count_words(app) + digits_off_rule(app) == [], shown(app)

"""The Agent and Audit screens at 80×24 and 60×20, read as a user reads it: proposals' scores,
intervals and q-values whole, the gates' verdicts and every part's row in view.

Each screen is opened as a user opens it, on data with known values, and the checks of
tests/tui/surface.py and surface_keys.py run on what is drawn (``steps.surface`` runs them all).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hosts import FIGURE, start_session, write_gated_audit
from steps import (
    SIZES,
    help_check,
    open_audit,
    settle,
    shown,
    wait_for,
)
from surface import (
    cut_fields,
    cut_titles,
    cut_values,
    markup_leaks,
    missing_values,
    screen_lines,
)
from surface_controls import state_by_colour
from surface_keys import (
    cut_footer_keys,
    footer_lacks,
    out_of_reach,
    silent_keys,
)
from surface_text import figures_and_counts

from diptych.core.report.formatting import bounds, figure_text, p_text
from diptych.tui.app import DiptychApp
from diptych.tui.screens.agent.screen import AgentScreen
from diptych.tui.screens.audit import AuditScreen
from diptych.tui.screens.help import screen_purpose
from diptych.tui.widgets.fit_table import FitTable

pytestmark = pytest.mark.surface


@pytest.mark.parametrize("size", SIZES)
async def test_agent_screen(agent_tui: DiptychApp, size: tuple[int, int]) -> None:
    app = agent_tui
    async with app.run_test(size=size) as pilot:
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, AgentScreen), "the Agent screen")
        screen = app.screen
        assert isinstance(screen, AgentScreen)
        # Every field of the form whole (no "smoll", no "identiti" over "es"), the allow-new
        # box's state in text.
        await settle(pilot)
        assert cut_fields(app) + await state_by_colour(pilot) == [], shown(app)
        screen.query_one("#agent-proposals").focus()
        # Before a session has proposals, a and x say why they have nothing to act on.
        assert await silent_keys(pilot, leave=("ctrl+s", "escape")) == [], shown(app)
        assert await help_check(pilot, AgentScreen) == []
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, AgentScreen), "back")
        await start_session(pilot)
        await settle(pilot)
        rows = screen._rows.by_id
        assert rows
        lines = screen_lines(app)
        # Each proposal's score, interval and q in view, whole, by the rule of digits.
        assert cut_values(app) + cut_footer_keys(app) + figures_and_counts(app) == [], shown(app)
        table = screen.query_one("#agent-proposals", FitTable)
        in_view = list(rows.values())[: max(1, table.scrollable_content_region.height // 3)]
        for row in in_view:
            cells = [row.status]
            if row.score is not None and row.ci_low is not None and row.ci_high is not None:
                cells += [figure_text(row.score), bounds(row.ci_low, row.ci_high)]
            if row.q_value is not None:
                cells.append(p_text(row.q_value))
            assert missing_values(lines, cells) == [], shown(app)
        # a and x decide (a asks first where the session did not confirm); ctrl+s would buy
        # another session.
        assert await silent_keys(pilot, leave=("ctrl+s", "a", "x")) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_audit_screen_gates_and_status(audit_dir: Path, size: tuple[int, int]) -> None:

    write_gated_audit(audit_dir)
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        app.screen.query_one("#parts").focus()
        assert await help_check(pilot, AuditScreen) == []
        screen.query_one("#file").focus()
        await settle(pilot)
        # Typing in the file's field, the footer still says how to quit.
        assert footer_lacks(app) == [], shown(app)
        await pilot.press(*"gated.yaml", "enter")
        await wait_for(pilot, lambda: screen.plan is not None, "the plan")
        await settle(pilot)
        assert cut_values(app) == [], shown(app)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: len(screen.gates) == 2, "the decided gates")
        await settle(pilot)
        lines = screen_lines(app)
        # The gates' heading (the audit's id, how many pass) whole.
        assert cut_values(app) + cut_footer_keys(app) + cut_titles(app) == [], shown(app)
        assert figures_and_counts(app) == [], shown(app)
        assert missing_values([" ".join(" ".join(lines).split())], [screen.gates_note]) == []
        # Each gate whole: at 60×20 under the heading the table scrolls (its scrollbar says
        # so), the first gate in view at the top, the last at the end; its interval beside its
        # value on its verdict's line, in view above the parts, as a table prints one.
        table = screen.query_one("#gates", FitTable)
        for g, end in zip(screen.gates, (False, True), strict=True):
            if end:
                table.scroll_end(animate=False)
                await settle(pilot)
            cells = [g.verdict.upper(), g.value, bounds(g.low, g.high), g.rule]
            assert missing_values(screen_lines(app), cells) == [], shown(app)
        # The summary's word and every part's row agree.
        summary = str(screen.query_one("#summary").render())
        assert summary.startswith("audit complete"), summary
        assert set(screen.status.values()) == {"complete"}, screen.status
        screen.query_one("#parts").focus()
        assert await silent_keys(pilot) == [], shown(app)


def test_help_text_has_no_markup() -> None:
    """What each screen is for reads as words: no ``literal`` marks, no constant's name."""
    from diptych.tui.screens.help import screen_classes

    found = [f"{cls.__name__}: {line}" for cls in screen_classes()
             for line in markup_leaks([screen_purpose(cls)])]  # fmt: skip
    assert found == []


@pytest.mark.parametrize("size", SIZES)
async def test_audit_screen_every_part_reachable_under_its_gates(
    audit_dir: Path, size: tuple[int, int]
) -> None:
    """Three parts under two gates: the gates and the parts drawn whole, and each part's row
    brought into view by the keys with its status."""

    masc, fem = ["carpenter", "farmer", "guard"], ["nurse", "editor", "secretary"]
    planted = {**{m: 0.2 for m in masc}, **{f: 0.8 for f in fem}}
    parts = [
        {"probe": "pst-text", "name": name, "models": ["t"],
         "params": {"masculine": masc[:k], "feminine": fem[:k]}}
        for k, name in ((3, "three"), (2, "two"), (1, "one"))
    ]  # fmt: skip
    data = {
        "name": "tui-parts",
        "models": {"t": {"plugin": "scripted-likelihood",
                         "params": {"p_feminine": planted, "noise": 0.1}}},
        "probes": parts,
        "report": {"formats": ["json"]},
        "gates": [
            {"part": "three", "figure": FIGURE, "below": 95, "name": "below 95"},
            {"part": "three", "figure": FIGURE, "below": 10, "name": "below 10"},
        ],
    }  # fmt: skip
    (audit_dir / "parts.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        await pilot.press(*"parts.yaml", "enter")
        await wait_for(pilot, lambda: screen.plan is not None, "the plan")
        await settle(pilot)
        # The file's field has the focus: every key of the screen in the footer, ^o too.
        assert "^o Report" in screen_lines(app)[-1], shown(app)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: len(screen.gates) == 2, "the decided gates")
        await settle(pilot)
        assert cut_values(app) + cut_footer_keys(app) + footer_lacks(app) == [], shown(app)
        assert figures_and_counts(app) == [], shown(app)
        assert "^o Report" in screen_lines(app)[-1], shown(app)
        table = screen.query_one("#parts", FitTable)
        assert table.row_count == 3
        assert set(screen.status.values()) == {"complete"}, screen.status
        # Each part's name and status drawn whole on the table's rows in view, Down pressed
        # from where the screen left the focus (wide: one line each; narrow: "name · kind:
        # probe ..." over the status).
        values = [*("three", "two", "one"), "complete"]
        assert await out_of_reach(pilot, table, values) == [], shown(app)
        # The gates' rows whole as well, drawn in full and scrolled with the parts.
        gates = screen.query_one("#gates", FitTable)
        assert gates.max_scroll_y == 0, shown(app)

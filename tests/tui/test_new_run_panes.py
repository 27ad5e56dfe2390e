"""The New-run screen's two panes at 80×24 and 60×20: Shift+Tab back from the last field to the
Probe field keeps each focused field inside its pane's view, and F6 goes from any field to the
other pane (to the field last focused there) in one key, shown in the footer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from steps import SIZES, open_new_run, settle, shown, wait_for
from surface import screen_lines
from textual.pilot import Pilot
from textual.widget import Widget

from diptych.tui.app import DiptychApp
from diptych.tui.screens.new_run.panes import ChoicesScroll, FormsScroll
from diptych.tui.screens.new_run.screen import NewRunScreen
from diptych.tui.widgets.ticks import TickList


def pane_of(widget: Widget) -> Widget | None:
    return next((a for a in widget.ancestors if isinstance(a, ChoicesScroll | FormsScroll)), None)


def in_view(widget: Widget) -> bool:
    """Whether ``widget`` is inside its pane's region (one taller than the pane: filling it)."""
    pane = pane_of(widget)
    if pane is None:
        return True
    if widget.region.height > pane.region.height:
        return widget.region.intersection(pane.region).height == pane.region.height
    return widget.region.area > 0 and pane.region.contains_region(widget.region)


async def planned(pilot: Pilot[Any], screen: NewRunScreen) -> None:
    """A model ticked, so that the plan (trials, cost, precision) takes its rows at the foot."""
    screen.query_one("#models", TickList).select("scripted-likelihood")
    await wait_for(pilot, lambda: "trials planned" in shown(pilot.app), "the plan")
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES)
async def test_shift_tab_back_to_the_probe_keeps_each_field_in_view(
    snapshot_workspace: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_new_run(pilot, "pst-text")
        await planned(pilot, screen)
        last = [w for w in screen.query_one(FormsScroll).query("*") if w.focusable][-1]
        last.focus()
        await settle(pilot)
        seen: list[str] = []
        while app.focused is not screen.query_one("#probe"):
            focused = app.focused
            assert focused is not None and len(seen) < 80, seen
            assert in_view(focused), f"{focused!r} out of its pane's view: {shown(app)}"
            seen.append(str(focused.id))
            await pilot.press("shift+tab")
            await settle(pilot)
        assert in_view(screen.query_one("#probe")), shown(app)
        assert len(seen) > 10, seen  # the walk went through both panes' fields


@pytest.mark.parametrize("size", SIZES)
async def test_f6_goes_between_the_panes_in_one_key(
    snapshot_workspace: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_new_run(pilot, "pst-text")
        await planned(pilot, screen)
        probe = screen.query_one("#probe")
        last = [w for w in screen.query_one(FormsScroll).query("*") if w.focusable][-1]
        last.focus()
        await settle(pilot)
        await pilot.press("f6")
        await wait_for(pilot, lambda: app.focused is probe, "the Probe field", lambda: shown(app))
        await settle(pilot)
        assert in_view(probe), shown(app)
        # Back to the field it came from, in view again.
        await pilot.press("f6")
        await wait_for(pilot, lambda: app.focused is last, "the last field", lambda: shown(app))
        await settle(pilot)
        assert in_view(last), shown(app)
        # From Start (below both panes) it goes to the choices, where the form begins.
        screen.query_one("#start").focus()
        await pilot.press("f6")
        await wait_for(pilot, lambda: app.focused is probe, "the Probe field", lambda: shown(app))
        # The footer's keys are those of the field focused once it has been redrawn for it.
        await wait_for(pilot, lambda: "f6 Other pane" in screen_lines(app)[-1], "the footer",
                       lambda: shown(app))  # fmt: skip

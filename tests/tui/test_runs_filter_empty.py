"""A filter that leaves no run says so in place of the rows, and how to clear it, at 80×24 and
60×20: an empty table with no word reads as a workspace without runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import SIZES, loaded, run_ids, shown, surface, wait_for
from surface import screen_lines
from textual.widgets import Input

from diptych.tui.app import DiptychApp

pytestmark = pytest.mark.surface

SAID = "No run matches “zzz”: Esc clears the filter"


@pytest.mark.parametrize("size", SIZES)
async def test_a_filter_matching_no_run_says_so_and_how_to_clear_it(
    snapshot_workspace: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(3)(pilot)
        await pilot.press("slash", *"zzz")
        await wait_for(pilot, lambda: not run_ids(app), "no run left", lambda: shown(app))
        await wait_for(pilot, lambda: any(SAID in line for line in screen_lines(app)), SAID,
                       lambda: shown(app))  # fmt: skip
        lines = screen_lines(app)
        header = next(i for i, line in enumerate(lines) if "status" in line)
        said = next(i for i, line in enumerate(lines) if SAID in line)
        assert 0 < said - header <= 2, shown(app)  # where the rows would be, not at the foot
        assert await surface(pilot) == [], shown(app)
        # Enter keeps the filter and goes back to the table, where Escape clears it too.
        await pilot.press("enter")
        assert not isinstance(app.focused, Input)
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(run_ids(app)) == 3, "the runs back", lambda: shown(app))
        # The table refilled, the line that said it was empty goes at the next refresh.
        await wait_for(pilot, lambda: not any(SAID in line for line in screen_lines(app)),
                       "the empty line gone", lambda: shown(app))  # fmt: skip

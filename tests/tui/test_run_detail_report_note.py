"""Run detail: where ``w`` wrote the report is said on the line above the footer and stays there,
whole, until the user moves on (the next key, or the next thing said), as docs/tui.md says: a
note that went after five seconds was gone before a user back from opening the folder read it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import textual.timer
from steps import SIZES, open_detail, settle, shown, wait_for
from surface import region_lines, screen_lines
from textual.widgets import Input

from diptych.tui.app import DiptychApp
from diptych.tui.screens.runs.report_dir import ReportDirScreen
from diptych.tui.widgets.said import SaidLine

#: How much faster than the wall clock the app's timers run here.
HURRIED = 50.0


@pytest.fixture
def hurried_timers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every timer of the app fires ``HURRIED`` times sooner: its seconds pass in a test's
    fraction of one (a timer waits in Textual's ``sleep``, then fires)."""
    slept: Callable[[float], Awaitable[None]] = textual.timer.sleep

    async def hurried(seconds: float) -> None:
        await slept(seconds / HURRIED)

    monkeypatch.setattr(textual.timer, "sleep", hurried)


def said_rows(app: DiptychApp) -> list[str]:
    """The rows the said line draws, as the terminal shows them (none while it is hidden)."""
    lines = [line for line in app.screen.query(SaidLine) if line.display]
    if not lines:
        return []
    rows = region_lines(screen_lines(app), lines[0].content_region)
    return [row.rstrip() for row in rows if row.strip()]


@pytest.mark.parametrize("size", SIZES)
async def test_the_report_note_stays_until_the_next_key(
    hurried_timers: None, snapshot_workspace: Path, tmp_path: Path, size: tuple[int, int]
) -> None:
    out = tmp_path / "reports-of-the-morning" / "a-directory-with-a-rather-long-name"
    written = str((out / "report.html").resolve())
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await open_detail(pilot)
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, ReportDirScreen), "the dialog")
        app.screen.query_one(Input).value = str(out)
        await pilot.press("enter")
        await wait_for(pilot, lambda: "report written" in " ".join(said_rows(app)), "the note")
        # Six seconds of the app's timers: a note read for five would be gone by now.
        rang = asyncio.Event()
        app.set_timer(6.0, rang.set)
        await asyncio.wait_for(rang.wait(), timeout=30)
        await settle(pilot)
        rows = said_rows(app)
        # Read down, the rows give the sentence and the whole path (no space in it here).
        assert "".join(rows).replace(" ", "") == f"reportwrittento{written}", shown(app)
        # Each row but the last ends at a separator or at a word: the path is cut nowhere else.
        assert all(row.endswith(("/", " to")) for row in rows[:-1]), rows
        await pilot.press("down")  # the next key: the user has moved on
        await settle(pilot)
        assert said_rows(app) == [], shown(app)

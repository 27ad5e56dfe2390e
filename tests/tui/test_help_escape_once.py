"""Help names each key once on a screen, with what it does where (docs/tui.md: no key means
two things on one screen): the New-run screen has no filter line, so its escape row says Back
alone and no row speaks of a filter."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from steps import loaded, open_new_run, settle, wait_for
from textual.widgets import Static

from diptych.tui.app import DiptychApp
from diptych.tui.screens.help import HelpScreen


def _rows(help_screen: HelpScreen) -> list[str]:
    """Every key row Help shows, section by section, as text."""
    console = Console(width=80, record=True)
    for keys in help_screen.query(".help-keys").results(Static):
        console.print(keys.content)
    return [" ".join(line.split()) for line in console.export_text().splitlines() if line.strip()]


async def test_help_on_new_run_says_escape_goes_back(snapshot_workspace: Path) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_new_run(pilot, "scripted")
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await settle(pilot)
        rows = _rows(app.screen)  # type: ignore[arg-type]
        escapes = [row for row in rows if row.split()[0] == "esc"]
        assert escapes == ["esc Back"], rows
        assert not any("filter" in row for row in rows), rows


async def test_help_on_runs_keeps_its_one_meaning(snapshot_workspace: Path) -> None:
    # The Runs screen's escape clears its filter, as a list's filter line does: one meaning.
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(3)(pilot)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await settle(pilot)
        rows = _rows(app.screen)  # type: ignore[arg-type]
        assert "elsewhere" not in " ".join(rows), rows
        assert [row for row in rows if row.split()[0] == "esc"] == ["esc Clear filter"], rows

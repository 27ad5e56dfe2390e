"""Help opened on a dialog words its escape row as the dialog's own key line does: every
dialog says "escape cancels" (``(enter writes, escape cancels)``), so Help says Cancel for
escape on each of them, in the one word, never "cancel" on some and "Cancel" on others."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from steps import settle
from textual.screen import ModalScreen
from textual.widgets import Static

from diptych.tui.app import DiptychApp
from diptych.tui.screens.help import HelpScreen, screen_classes, screen_title


def _own_rows(help_screen: HelpScreen, title: str) -> list[str]:
    """The key rows of Help's section ``title``, as text."""
    titles = [str(w.render()) for w in help_screen.query(".help-title").results(Static)]
    keys = list(help_screen.query(".help-keys").results(Static))
    console = Console(width=80, record=True)
    console.print(keys[titles.index(title)].content)
    return [" ".join(line.split()) for line in console.export_text().splitlines() if line.strip()]


async def test_help_on_every_dialog_says_escape_cancels(snapshot_workspace: Path) -> None:
    dialogs = [s for s in screen_classes() if issubclass(s, ModalScreen) and s is not HelpScreen]
    # The review's three dialogs, the report folder's, and the yes-or-no questions.
    assert len(dialogs) >= 5, dialogs
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        said: dict[str, list[str]] = {}
        for dialog in dialogs:
            help_screen = HelpScreen(dialog)
            await app.push_screen(help_screen)
            await settle(pilot)
            rows = _own_rows(help_screen, screen_title(dialog))
            said[dialog.__name__] = [row for row in rows if "esc" in row.split()]
            app.pop_screen()
            await settle(pilot)
        for name, rows in said.items():
            assert len(rows) == 1, (name, rows)
            assert rows[0].split()[-1] == "Cancel", said

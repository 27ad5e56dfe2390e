"""Help opened on a dialog (? or F1 while it is open) shows what the dialog is for and the
dialog's own keys only: the app's keys (q Quit among them) do not reach past a dialog, so Help
lists none of them there and says plainly that they work once the dialog is closed."""

from __future__ import annotations

from pathlib import Path

from steps import settle, wait_for
from surface import screen_lines
from surface_keys import help_leads_with_purpose
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from diptych.tui.app import DiptychApp
from diptych.tui.review.modals import NoteModal
from diptych.tui.screens.help import (
    HelpScreen,
    screen_classes,
    screen_purpose,
    screen_sections,
    screen_title,
)
from diptych.tui.screens.runs.confirm import ConfirmResume

QUESTION = "Buy the rest of run 3f2a: 120 trials, 120 requests, about $0.12?"


def _titles(help_screen: HelpScreen) -> list[str]:
    return [str(w.render()) for w in help_screen.query(".help-title").results(Static)]


async def test_help_on_a_question_shows_its_keys_only(snapshot_workspace: Path) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for key in ("question_mark", "f1"):
            app.push_screen(ConfirmResume(QUESTION))
            await settle(pilot)
            await pilot.press(key)
            await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
            await settle(pilot)
            help_screen = app.screen
            assert isinstance(help_screen, HelpScreen)
            title = screen_title(ConfirmResume)
            assert _titles(help_screen) == [title]
            lines = screen_lines(app)
            assert help_leads_with_purpose(lines, title, screen_purpose(ConfirmResume)) == []
            shown = " ".join(" ".join(lines).split())
            # What the question is for, in the user's words (not the answer's value in code).
            assert "Asks whether to buy the rest of a run whose gates were decided" in shown
            assert "True" not in shown, shown
            assert "Everywhere" not in shown and "Quit" not in shown, shown
            assert "The screen's other keys work once this dialog is closed." in shown, shown
            # Its own keys: y buys the rest, n or escape cancels.
            assert "y Buy the rest" in shown and "n esc Cancel" in shown, shown
            # Help closes back onto the question, still waiting for its answer.
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmResume), "the question")
            await pilot.press("n")
            await wait_for(pilot, lambda: not isinstance(app.screen, ModalScreen), "answered")
        assert not app._exit


async def test_f1_opens_help_on_a_dialog_whose_field_types_a_question_mark(
    snapshot_workspace: Path,
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.push_screen(NoteModal("", "the left person"))
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, NoteModal)
        assert app.screen.query_one(Input).value == "?"
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await settle(pilot)
        assert _titles(app.screen) == [screen_title(NoteModal)]  # type: ignore[arg-type]


def test_every_dialogs_help_is_its_own_section_only() -> None:
    dialogs = [s for s in screen_classes() if issubclass(s, ModalScreen) and s is not HelpScreen]
    assert len(dialogs) >= 5, dialogs
    for dialog in dialogs:
        sections = screen_sections(DiptychApp, dialog)
        assert [title for title, _ in sections] == [screen_title(dialog)], dialog
        actions = {b.action for _, bindings in sections for b in bindings}
        assert "quit" not in actions and "app.help" in actions, (dialog, actions)

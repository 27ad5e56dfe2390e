"""The Agent screen's question before a proposal that is not a finding goes into the
workspace's lists: what it is, why the session did not confirm it, and whether to accept it
anyway (``y``) or not (``n``, Escape)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

from diptych.core.safe_text import escape_controls
from diptych.tui.widgets.dialog_keys import dialog_keys


def confirmation_text(row_id: str, what: str, status: str, reason: str) -> str:
    """The question asked: the proposal, its status and the session's reason for it."""
    why = reason.strip() or "the session recorded no reason"
    return (
        f"{row_id} {what} is {status}, not a finding: {why}.\n"
        "Accept it into the workspace's list anyway?"
    )


class ConfirmAccept(ModalScreen[bool]):
    """Asks whether to accept a proposal the session did not confirm; answers True to
    accept."""

    DEFAULT_CSS = """
    ConfirmAccept {
        align: center middle;
    }
    ConfirmAccept > Vertical {
        width: 70;
        max-width: 95%;
        height: auto;
        border: thick $warning;
        background: $surface;
        padding: 0 1;
    }
    ConfirmAccept #confirm-text {
        width: 100%;
    }
    ConfirmAccept #confirm-keys {
        width: 100%;
        margin-bottom: 1;
    }
    ConfirmAccept Horizontal {
        height: auto;
        align: right middle;
    }
    ConfirmAccept Button {
        margin-left: 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Accept anyway"),
        Binding("n,escape", "answer(False)", "Cancel"),
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            # The reason comes from a model's answers: escaped, never replayed by the terminal.
            yield Label(escape_controls(self.text), id="confirm-text", markup=False)
            yield Label(dialog_keys("accepts", key="y", cancel="n or escape"), id="confirm-keys")
            with Horizontal():
                yield Button("Accept anyway (y)", variant="warning", id="confirm-yes")
                yield Button("Cancel (n)", id="confirm-no")

    def on_mount(self) -> None:
        # Cancel is the default: Enter on an unread dialog must not accept.
        self.query_one("#confirm-no", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, accept: bool) -> None:
        self.dismiss(accept)

"""The Runs screen's question before ``u`` resumes a decided run: its gates were decided, so
the rest of its design is bought on purpose only, once its trials, requests and estimated
cost are on screen (``y`` buys it, ``n`` or Escape leaves the run as it is)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

from diptych.tui.widgets.dialog_keys import dialog_keys


class ConfirmResume(ModalScreen[bool]):
    """Asks whether to buy the rest of a decided run; answers True to buy it."""

    DEFAULT_CSS = """
    ConfirmResume {
        align: center middle;
    }
    ConfirmResume > Vertical {
        width: 70;
        max-width: 95%;
        height: auto;
        border: thick $warning;
        background: $surface;
        padding: 0 1;
    }
    ConfirmResume #resume-text, ConfirmResume #resume-keys {
        width: 100%;
    }
    ConfirmResume #resume-keys {
        margin-bottom: 1;
    }
    ConfirmResume Horizontal {
        height: auto;
        align: right middle;
    }
    ConfirmResume Button {
        margin-left: 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Buy the rest"),
        Binding("n,escape", "answer(False)", "Cancel"),
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.text, id="resume-text", markup=False)
            yield Label(
                dialog_keys("buys the rest", key="y", cancel="n or escape"), id="resume-keys"
            )
            with Horizontal():
                yield Button("Buy the rest (y)", variant="warning", id="resume-yes")
                yield Button("Cancel (n)", id="resume-no")

    def on_mount(self) -> None:
        # Cancel is the default: Enter on an unread question must not spend anything.
        self.query_one("#resume-no", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "resume-yes")

    def action_answer(self, buy: bool) -> None:
        self.dismiss(buy)

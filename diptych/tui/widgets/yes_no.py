"""A question that spends or commits something: what it is, which key answers it, and two
buttons — the cautious answer focused, so Enter on an unread question changes nothing."""

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


class YesNo(ModalScreen[bool]):
    """Asks one question: y or its button answers yes; n, Escape or Cancel answer no."""

    # A subclass names its answer (YES, YES_DOES), its widget ids' prefix (ID) and its y
    # binding's footer text (BINDINGS).

    #: The yes button's label, e.g. "Buy the rest".
    YES = "Yes"
    #: What ``y`` does, in the dialog's key line: "(y buys the rest, n or escape cancels)".
    YES_DOES = "answers yes"
    #: Prefix of the dialog's widget ids: ``ID-text``, ``ID-keys``, ``ID-yes``, ``ID-no``.
    ID = "yes-no"

    DEFAULT_CSS = """
    YesNo {
        align: center middle;
    }
    YesNo > Vertical {
        width: 70;
        max-width: 95%;
        height: auto;
        border: thick $warning;
        background: $surface;
        padding: 0 1;
    }
    YesNo .question, YesNo .keys {
        width: 100%;
    }
    YesNo .keys {
        margin-bottom: 1;
    }
    YesNo Horizontal {
        height: auto;
        align: right middle;
    }
    YesNo Button {
        margin-left: 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "Cancel"),
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            # The text may quote a model's answers: escaped, never replayed by the terminal.
            yield Label(
                escape_controls(self.text), id=f"{self.ID}-text", classes="question", markup=False
            )
            yield Label(
                dialog_keys(self.YES_DOES, key="y", cancel="n or escape"),
                id=f"{self.ID}-keys",
                classes="keys",
            )
            with Horizontal():
                yield Button(f"{self.YES} (y)", variant="warning", id=f"{self.ID}-yes")
                yield Button("Cancel (n)", id=f"{self.ID}-no")

    def on_mount(self) -> None:
        # Cancel is the default: Enter on an unread question must not spend or accept anything.
        self.query_one(f"#{self.ID}-no", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == f"{self.ID}-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

"""A question that spends or commits something: what it is, which key answers it, and two
buttons — the cautious answer focused, so Enter on an unread question changes nothing. A
question longer than the terminal holds (an audit's every decided part) scrolls in its own box,
its key line and buttons always in view under it."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.widgets import Button, Label

from diptych.core.safe_text import escape_controls
from diptych.tui.widgets.dialog_keys import CANCEL, HELP, dialog_keys
from diptych.tui.widgets.whole_numbers import WholeNumbers


class QuestionBox(VerticalScroll):
    """The question's box: a stop of the focus only while it holds more than it shows, where
    the arrows, PageDown, Home and End scroll it."""

    def allow_focus(self) -> bool:
        return self.max_scroll_y > 0

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # Its height is its question's lines as laid out beside the scrollbar's gutter, which
        # is always kept: measured at the whole width, a question one line longer there would
        # show a scrollbar for that one line even where the terminal holds it whole.
        gutter = self.styles.scrollbar_size_vertical
        return super().get_content_height(container, viewport, max(width - gutter, 1))


class YesNo(ModalScreen[bool]):
    """Asks one question: y or its button answers yes; n, Escape or Cancel answer no."""

    # A subclass names its answer (YES, YES_DOES), its widget ids' prefix (ID) and its y
    # binding's footer text (BINDINGS).

    #: The yes button's label, e.g. "Buy the rest".
    YES = "Yes"
    #: What ``y`` does, in the dialog's key line: "(y buys the rest, n or escape cancels)".
    YES_DOES = "answers yes"
    #: Prefix of the dialog's widget ids: ``ID-question`` (the box ``ID-text`` scrolls in),
    #: ``ID-keys``, ``ID-yes``, ``ID-no``.
    ID = "yes-no"

    DEFAULT_CSS = """
    YesNo {
        align: center middle;
    }
    YesNo > Vertical {
        width: 70;
        max-width: 95%;
        height: auto;
        max-height: 100%;
        border: thick $warning;
        background: $surface;
        /* No padding on the right of the question: its scrollbar's gutter, blank while it
           does not scroll, keeps it off the frame, and the answer has its own. */
        padding: 0 0 0 1;
    }
    /* The answer is docked under the question: the question's box takes the height left and
       scrolls, never pushing the key line or the buttons off the screen. */
    YesNo .question-box {
        height: auto;
        max-height: 100%;
        /* Its lines as wide scrolled or not (the scrollbar's gutter kept), never scrolled
           sideways: no row is kept for a horizontal scrollbar. */
        scrollbar-gutter: stable;
        overflow-x: hidden;
        scrollbar-size-horizontal: 0;
        /* A gutter of one cell, not two: at 60 columns a cost with its label ("estimated cost
           not priced (computed on this machine).", 53 cells) is held whole on one line. */
        scrollbar-size-vertical: 1;
    }
    /* Focused, its scrollbar lights up: the arrows scroll the question, not the buttons. */
    YesNo .question-box:focus {
        scrollbar-color: $accent;
        scrollbar-background: $accent 30%;
    }
    YesNo .answer {
        dock: bottom;
        height: auto;
        padding-right: 1;
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
        Binding("n,escape", "answer(False)", CANCEL),
        HELP,
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            with QuestionBox(id=f"{self.ID}-question", classes="question-box"):
                # The text may quote a model's answers: escaped, never replayed by the terminal.
                # Wrapped between words only: never inside a look ("look 2" over "of 8"), a
                # count and its noun or a cost.
                yield WholeNumbers(
                    Text(escape_controls(self.text)), id=f"{self.ID}-text", classes="question"
                )
            with Vertical(classes="answer"):
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
        self.call_after_refresh(self._read_first)

    def _read_first(self) -> None:
        # A question longer than its box is read first: the keys that scroll it go to it (and
        # Enter there answers nothing either).
        box = self.query_one(QuestionBox)
        if box.allow_focus():
            box.focus()

    def on_resize(self) -> None:
        self.call_after_refresh(self._held_whole)

    def _held_whole(self) -> None:
        # A terminal made larger holds the question whole: the box is no stop of the focus
        # then, and the focus goes back to Cancel.
        box = self.query_one(QuestionBox)
        if self.focused is box and not box.allow_focus():
            self.query_one(f"#{self.ID}-no", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == f"{self.ID}-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

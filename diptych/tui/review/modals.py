"""The Review screen's dialogs: the reviewer's name, a note, the reason filter.

Small modal screens, each with its own ``DEFAULT_CSS`` so that any screen can push them; each
returns its answer through ``dismiss`` (None when the reviewer cancels with Escape).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from diptych.core.labels import reviewer_name
from diptych.core.report.formatting import counted
from diptych.tui.widgets.dialog_keys import CANCEL, HELP, dialog_keys

_DIALOG_CSS = """
{name} {{
    align: center middle;
}}
{name} > Vertical {{
    width: 60;
    max-width: 90%;
    height: auto;
    border: thick $accent;
    background: $surface;
    padding: 0 1;
}}
{name} Label {{
    width: 100%;
}}
{name} .review-dialog-error {{
    color: $error;
}}
"""


class ReviewerNameModal(ModalScreen[str | None]):
    """Asks who is reviewing; the labels are stored as annotator ``human:<name>``."""

    HELP_PURPOSE = "Asks who is reviewing: your labels are stored under human:<your name>."

    DEFAULT_CSS = _DIALOG_CSS.format(name="ReviewerNameModal")
    BINDINGS = [Binding("escape", "cancel", CANCEL), HELP]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(
                "Who is reviewing? Your labels are stored as human:<name> "
                + dialog_keys("confirms")
            )
            yield Input(placeholder="your name, e.g. alice", id="reviewer-name")
            yield Label("", id="reviewer-error", classes="review-dialog-error")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        name = reviewer_name(event.value)
        if name is None:
            self.query_one("#reviewer-error", Label).update(
                "one word of letters, digits and . _ - (e.g. alice or a.smith)"
            )
            return
        self.dismiss(name)

    def action_cancel(self) -> None:
        self.dismiss(None)


class NoteModal(ModalScreen[str | None]):
    """A free-text note on the current person, stored in their label's detail."""

    DEFAULT_CSS = _DIALOG_CSS.format(name="NoteModal")
    BINDINGS = [Binding("escape", "cancel", CANCEL), HELP]

    def __init__(self, note: str, about: str) -> None:
        super().__init__()
        self._note = note
        self._about = about

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Note on {self._about} {dialog_keys('keeps it')}")
            # Editing a note adds to it: the text is not selected (typing would replace it).
            yield Input(
                value=self._note,
                placeholder="what a reader of the labels should know",
                select_on_focus=False,
            )

    def on_mount(self) -> None:
        note = self.query_one(Input)
        note.cursor_position = len(note.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


ALL_REASONS = "__all__"


class ReasonModal(ModalScreen[str | None]):
    """Pick the flag reason to review (or all of them); answers ALL_REASONS or a reason."""

    HELP_PURPOSE = "Choose the flag reason to review, or all of them."

    DEFAULT_CSS = _DIALOG_CSS.format(name="ReasonModal") + (
        "ReasonModal OptionList { height: auto; max-height: 12; }"
    )
    BINDINGS = [Binding("escape", "cancel", CANCEL), HELP]

    def __init__(self, counts: dict[str, int], current: str | None) -> None:
        super().__init__()
        self._counts = counts
        self._current = current

    def compose(self) -> ComposeResult:
        total = len(self._counts)
        options = [Option(f"all reasons ({counted(total, 'kind')})", id=ALL_REASONS)]
        options += [
            Option(f"{reason.replace('_', ' ')} ({n:,})", id=reason)
            for reason, n in self._counts.items()
        ]
        with Vertical():
            yield Label(f"Review only the people flagged for {dialog_keys('picks')}:")
            yield OptionList(*options, id="reason-options")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        wanted = self._current or ALL_REASONS
        for index in range(options.option_count):
            if options.get_option_at_index(index).id == wanted:
                options.highlighted = index

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)

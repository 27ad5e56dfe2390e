"""The dialog that asks where to write a run's report (Run detail's ``w``)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from diptych.tui.widgets.dialog_keys import CANCEL, HELP, dialog_keys


class ReportDirScreen(ModalScreen[Path | None]):
    """Ask where to write the report."""

    HELP_TITLE = "Write report dialog"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", CANCEL), HELP]
    CSS_PATH = "report_dir.tcss"

    def __init__(self, default: Path) -> None:
        super().__init__()
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Write the report to the directory {dialog_keys('writes')}:")
            yield Input(str(self.default), id="report-dir")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        self.dismiss(Path(value).expanduser() if value else None)

    def action_cancel(self) -> None:
        self.dismiss(None)

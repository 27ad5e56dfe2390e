"""The New-run screen's scrolled panes."""

from __future__ import annotations

from textual import events
from textual.containers import VerticalScroll
from textual.widgets import Static


class FormsScroll(VerticalScroll, can_focus=False):
    """The parameter forms: scrolled by the focused field, never a tab stop of its own (one
    would take the keys typed for the next field)."""


class ChoicesScroll(VerticalScroll, can_focus=False):
    """The probe, its description and the Models list: scrolled (by the focused field, or to
    the field refused) when a long description leaves the list no room, never cut."""


class ModelsHint(Static):
    """Why the Models list is empty: brought into view whole each time its size settles (a
    scroll asked for as it is filled would read the height it had before, and cut it)."""

    def on_resize(self, event: events.Resize) -> None:
        if self.display and event.size.height:
            self.scroll_visible(animate=False)

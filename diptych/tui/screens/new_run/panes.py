"""The New-run screen's scrolled panes."""

from __future__ import annotations

from textual.containers import VerticalScroll


class FormsScroll(VerticalScroll, can_focus=False):
    """The parameter forms: scrolled by the focused field, never a tab stop of its own (one
    would take the keys typed for the next field)."""


class ChoicesScroll(VerticalScroll, can_focus=False):
    """The probe, its description and the Models list: scrolled (by the focused field, or to
    the field refused) when a long description leaves the list no room, never cut."""

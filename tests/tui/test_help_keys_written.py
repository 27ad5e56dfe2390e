"""Help writes a key one way, as the footer and Help's own key column do ("^r"): a screen's
purpose that says "Ctrl+R runs it, ctrl+o opens its report" names the same keys in two other
spellings beside the "^r" and "^o" listed under it."""

from __future__ import annotations

import re

from textual.app import App
from textual.binding import Binding

import diptych.tui.app  # noqa: F401  (every screen imported, as Help finds them)
from diptych.tui.screens.help import screen_classes, screen_purpose

#: A control key written out rather than as the footer draws it.
SPELLED = re.compile(r"\bctrl\s*\+\s*\w\b", re.IGNORECASE)


def test_every_screen_purpose_writes_its_keys_as_the_footer_does() -> None:
    footer = App[None]().get_key_display(Binding("ctrl+r", "run", "Run"))
    assert footer == "^r"  # the footer's (and Help's key column's) way of writing a key
    spelled = {
        cls.__name__: SPELLED.findall(screen_purpose(cls))
        for cls in screen_classes()
        if SPELLED.search(screen_purpose(cls))
    }
    assert spelled == {}, spelled


def test_the_audit_screen_purpose_names_its_keys() -> None:
    from diptych.tui.screens.audit import AuditScreen

    purpose = screen_purpose(AuditScreen)
    assert all(key in purpose for key in ("^r", "^g", "^o")), purpose

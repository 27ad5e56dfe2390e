"""Help on every screen (docs/tui.md: no key means two things on one screen): each key is
listed once, each with words saying what it does, and a screen with no filter line says nothing
of a filter. The Runs screen listed escape twice ("Clear filter", then "clear filter" among the
tables' keys), the Audit screen's ^g had no description beside ^r's, and Audit and Agent said
what escape does "in a list's filter" although neither has one."""

from __future__ import annotations

from textual.app import App
from textual.screen import ModalScreen

from diptych.tui.app import DiptychApp
from diptych.tui.screens.help import bindings_table, screen_classes, screen_sections, screen_title

#: Help opens on the app's screens; a dialog keeps the keys to itself (f1 among them).
SCREENS = [c for c in screen_classes() if not issubclass(c, ModalScreen)]


def _rows(cls: type) -> list[tuple[str, list[str], str]]:
    """(section, keys, what the row says) for every row Help shows opened on ``cls``."""
    app = App[None]()
    rows = []
    for title, bindings in screen_sections(DiptychApp, cls):
        table = bindings_table(app, bindings)
        keys, labels = (list(column.cells) for column in table.columns)
        rows += [
            (title, str(k).split(" "), str(label)) for k, label in zip(keys, labels, strict=True)
        ]
    return rows


def test_the_screens_help_opens_on() -> None:
    assert [screen_title(c) for c in SCREENS] == [
        "Runs screen",
        "New run screen",
        "Run detail screen",
        "Review screen",
        "Review screen: measurement mode (M)",
        "Agent screen",
        "Audit screen",
        "Plugins screen",
        "Standings screen",
    ]


def test_no_key_is_listed_twice_on_any_screen() -> None:
    twice = {}
    for cls in SCREENS:
        keys = [key for _, row_keys, _ in _rows(cls) for key in row_keys]
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        if repeated:
            twice[screen_title(cls)] = repeated
    assert twice == {}


def test_every_key_says_what_it_does() -> None:
    bare = [
        (screen_title(cls), keys)
        for cls in SCREENS
        for _, keys, label in _rows(cls)
        if not label.strip()
    ]
    assert bare == []
    for cls in SCREENS:
        for binding in (b for _, bindings in screen_sections(DiptychApp, cls) for b in bindings):
            assert binding.description, (screen_title(cls), binding)


def test_only_a_screen_with_a_filter_line_speaks_of_one() -> None:
    speaks = {
        screen_title(cls)
        for cls in SCREENS
        if any("filter" in label.lower() for _, _, label in _rows(cls))
    }
    assert speaks == {"Runs screen", "Run detail screen", "Plugins screen"}


def test_escape_on_each_screen() -> None:
    escape = {
        screen_title(cls): label
        for cls in SCREENS
        for _, keys, label in _rows(cls)
        if "esc" in keys
    }
    assert escape == {
        "Runs screen": "Clear filter",
        "New run screen": "Back",
        "Run detail screen": "in a list's filter: clear it; elsewhere: Back",
        "Review screen": "back",
        "Review screen: measurement mode (M)": "back",
        "Agent screen": "Back",
        "Audit screen": "Back",
        "Plugins screen": "in a list's filter: clear it; elsewhere: Back",
        "Standings screen": "Back",
    }


def test_audit_until_decided_says_what_it_buys_and_when_it_stops() -> None:
    from diptych.tui.screens.audit import AuditScreen

    rows = {
        tuple(keys): label for title, keys, label in _rows(AuditScreen) if title == "Audit screen"
    }
    assert rows[("^g",)] == (
        "Until decided: buy only the parts the gates read, in batches, and stop once every gate "
        "is decided"
    )
    assert rows[("^r",)] == "Run: run the audit file whole"

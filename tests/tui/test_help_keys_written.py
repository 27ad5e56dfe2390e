"""The TUI writes a key one way, as the footer and Help's own key column do ("^r"): a screen's
purpose or status line that says "Ctrl+R runs it, ctrl+o opens its report" names the same keys
in two other spellings beside the "^r" and "^o" the footer shows under it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from textual.app import App
from textual.binding import Binding

import diptych.tui
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


def _sentences(path: Path) -> list[tuple[int, str]]:
    """The string pieces of a module that hold a space (words a user reads, not a key name such
    as a binding's "ctrl+r"), its docstrings left out: they are for the reader of the code."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and " " in node.value
    ]


def test_every_line_the_tui_writes_names_a_key_as_the_footer_does() -> None:
    root = Path(diptych.tui.__file__).parent
    spelled = [
        f"{path.relative_to(root)}:{line}: {text.strip()}"
        for path in sorted(root.rglob("*.py"))
        for line, text in _sentences(path)
        if SPELLED.search(text)
    ]
    assert spelled == [], "\n".join(spelled)

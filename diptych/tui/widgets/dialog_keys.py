"""The line a dialog says its keys in: a dialog stands over its screen's footer, whose keys are
not the dialog's, so each says in its own words which key answers it and which cancels."""

from __future__ import annotations

from textual.binding import Binding

#: What escape does in every dialog, as its binding names it for Help: the key line says
#: "escape cancels", and Help's row for the key says the same word on every dialog.
CANCEL = "Cancel"
#: Help on a dialog: the app's keys do not reach past a dialog, its own Help key among them, so
#: each dialog binds it itself (the footer under the dialog says it). In a field ``?`` types
#: itself; F1 still opens Help.
HELP = Binding("question_mark,f1", "app.help", "Help")


def dialog_keys(answer: str, *, key: str = "enter", cancel: str = "escape") -> str:
    """``(enter writes, escape cancels)``: the key that answers the dialog with what it does,
    then the key (or keys) that cancel it, every dialog in the same words."""
    return f"({key} {answer}, {cancel} cancels)"

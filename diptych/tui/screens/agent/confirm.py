"""The Agent screen's question before a proposal that is not a finding goes into the
workspace's lists: what it is, why the session did not confirm it, and whether to accept it
anyway (``y``) or not (``n``, Escape)."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from diptych.tui.widgets.yes_no import YesNo


def status_words(status: str) -> str:
    """A status said as the docs say it: "has no finding", "was screened out, not a finding",
    "is not confirmed, not a finding"."""
    if status == "no finding":
        return "has no finding"
    if status == "screened out":
        return "was screened out, not a finding"
    return f"is {status}, not a finding"


def confirmation_text(row_id: str, what: str, status: str, reason: str) -> str:
    """The question asked: the proposal, its status and the session's reason for it."""
    why = reason.strip() or "the session recorded no reason"
    return (
        f"{row_id} {what} {status_words(status)}: {why}.\n"
        "Accept it into the workspace's list anyway?"
    )


class ConfirmAccept(YesNo):
    """Asks whether to accept a proposal the session did not confirm; answers True to
    accept."""

    HELP_PURPOSE = (
        "Asks whether to accept a proposal the session did not confirm: y accepts it anyway."
    )
    YES = "Accept anyway"
    YES_DOES = "accepts"
    ID = "confirm"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Accept anyway"),
        Binding("n,escape", "answer(False)", "Cancel"),
    ]

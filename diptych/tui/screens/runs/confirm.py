"""The Runs screen's question before ``u`` resumes a decided run: its gates were decided, so
the rest of its design is bought on purpose only, once its trials, requests and estimated
cost are on screen (``y`` buys it, ``n`` or Escape leaves the run as it is)."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from diptych.tui.widgets.yes_no import YesNo


class ConfirmResume(YesNo):
    """Asks whether to buy the rest of a decided run; answers True to buy it."""

    HELP_PURPOSE = (
        "Asks whether to buy the rest of a run whose gates were decided, its trials, requests "
        "and estimated cost named first: y buys it, n or escape leaves the run as it is."
    )
    YES = "Buy the rest"
    YES_DOES = "buys the rest"
    ID = "resume"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Buy the rest"),
        Binding("n,escape", "answer(False)", "Cancel"),
    ]


class ConfirmLookedResume(YesNo):
    """Asks whether to buy the whole design of a run an audit was buying look by look (its
    gates not decided yet): the audit and the command that goes on look by look are named
    first. Answers True to buy it."""

    HELP_PURPOSE = (
        "Asks whether to buy the whole design of a run an audit was buying look by look (its "
        "gates not decided yet), the audit and the command that goes on look by look named "
        "first: y buys it, n or escape leaves the run as it is."
    )
    YES = "Buy the whole design"
    YES_DOES = "buys the whole design"
    ID = "looked"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Buy the whole design"),
        Binding("n,escape", "answer(False)", "Cancel"),
    ]

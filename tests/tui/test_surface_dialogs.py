"""Every dialog of the TUI says its own keys, at 80×24 and 60×20: a dialog stands over its
screen's footer, whose keys are not the dialog's, so its text names the key that answers it and
the key that cancels it ("(enter confirms, escape cancels)"), each in the one wording of
``dialog_keys``; and the every-screen checks (``steps.surface``) hold on each."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hosts import Host
from steps import SIZES, settle, shown, surface, wait_for
from surface import screen_lines
from surface_costs import cost_parted
from surface_keys import unsaid_dialog_keys
from textual.app import App
from textual.screen import ModalScreen

from diptych.core.audit.run_status import rest_to_buy
from diptych.core.cost import Cost
from diptych.tui.review.modals import NoteModal, ReasonModal, ReviewerNameModal
from diptych.tui.screens.agent.confirm import ConfirmAccept, confirmation_text
from diptych.tui.screens.help import HelpScreen
from diptych.tui.screens.runs.confirm import ConfirmResume
from diptych.tui.screens.runs.detail import ReportDirScreen
from diptych.tui.widgets.dialog_keys import dialog_keys

pytestmark = pytest.mark.surface

#: Each dialog, made as its screen makes it, and what its key line says.
DIALOGS: dict[str, tuple[Callable[[], ModalScreen[Any]], str]] = {
    "reviewer": (ReviewerNameModal, "(enter confirms, escape cancels)"),
    "note": (lambda: NoteModal("", "nurse-s0"), "(enter keeps it, escape cancels)"),
    # A count of four digits among its reasons: drawn with its thousands separator.
    "reason": (
        lambda: ReasonModal({"annotator": 3, "no_human_label": 1720}, None),
        "(enter picks, escape cancels)",
    ),
    "report": (lambda: ReportDirScreen(Path("report")), "(enter writes, escape cancels)"),
    "accept": (
        lambda: ConfirmAccept(confirmation_text("p3", "nurse/carpenter", "weak", "q 0.2")),
        "(y accepts, n or escape cancels)",
    ),
}

#: What ``u`` asks before it buys the rest of a decided run, its cost in each of its wordings:
#: at 80 and 60 columns "estimated cost" comes at a line's end, where it was parted from its
#: value ("estimated" over "cost $0.59", "estimated cost" over "not priced.").
RESUME_SAID = "decided at look 1 of 10: 164 of 1,640 requests bought, 1,476 saved"
RESUME_COSTS = {
    "local": Cost(0, unpriced=1476, local=1476),
    "service": Cost(0, unpriced=1476),
    "dollars": Cost(0.59, priced=1476),
}
for _kind, _cost in RESUME_COSTS.items():
    DIALOGS[f"resume-{_kind}"] = (
        lambda cost=_cost: ConfirmResume(rest_to_buy("9f3c2a1b", RESUME_SAID, 1476, 1476, cost)),
        "(y buys the rest, n or escape cancels)",
    )


#: The characters of a dialog's frame and its field's, either side of a line of its text.
FRAME = " █▊▎▌▐│"


class DialogHost(App[None]):
    """A bare screen with one dialog over it."""

    def __init__(self, dialog: ModalScreen[Any]) -> None:
        super().__init__()
        self.dialog = dialog

    def on_mount(self) -> None:
        self.push_screen(self.dialog)

    def action_help(self) -> None:
        # As the app's own: ? or F1 on a dialog opens Help on it.
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(type(self.screen)))


def test_every_dialog_says_its_keys_in_one_wording() -> None:
    assert dialog_keys("writes") == "(enter writes, escape cancels)"
    assert dialog_keys("accepts", key="y", cancel="n or escape") == (
        "(y accepts, n or escape cancels)"
    )


def test_the_check_sees_a_cost_parted_from_its_label() -> None:
    assert cost_parted("(1,476 trials), estimated", "cost $0.59.")
    assert cost_parted("(1,476 trials), estimated cost", "not priced.")
    assert cost_parted("(1,476 trials), estimated cost", "$0.59.")
    assert not cost_parted("its requests and estimated cost", "are on screen")


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", list(DIALOGS))
async def test_the_dialog_says_its_keys(name: str, size: tuple[int, int]) -> None:
    make, said = DIALOGS[name]
    app = DialogHost(make())
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ModalScreen), "the dialog")
        await settle(pilot)
        # The key line whole on the screen (folded between words at 60 columns).
        drawn = " ".join(" ".join(line.strip(FRAME) for line in screen_lines(app)).split())
        assert said in drawn, shown(app)
        # Each of its keys answers the question and closes it: the Agent's tests say how.
        assert await surface(pilot, leave=("y", "n", "escape")) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_who_is_reviewing_says_its_keys(
    review_run: tuple[Path, str], size: tuple[int, int]
) -> None:
    """The question Review asks first, over the Review screen as a user meets it."""
    ws, run_id = review_run
    app = Host(ws, run_id)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewerNameModal), "the question")
        await settle(pilot)
        assert unsaid_dialog_keys(app) == [], shown(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ReviewerNameModal), "closed")

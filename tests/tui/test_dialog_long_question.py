"""A question dialog holds a question of any length at 80×24 and 60×20: the question in a box
that scrolls, its key line and its buttons always in view under it; the box, focused as the
dialog opens, scrolls by the arrows and PageDown to the question's last sentence, with a
scrollbar saying more is below; no row of the question is cut at the box's edge. The Audit
screen's ctrl+r on an audit with three decided runs and a search asks such a question."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from steps import SIZES, open_audit, settle, shown, surface, wait_for
from surface import cut_sentences, region_lines, screen_lines, visible_widgets
from surface_keys import unseen_focus
from test_surface_dialogs import DialogHost
from textual.app import App
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, Label, Static

from diptych.audit.not_run import bought_after, not_run_words
from diptych.audit.plan import AuditPlan, Part, PartPlan
from diptych.core.audit.run_status import rest_to_buy
from diptych.core.audit.schema import Search, parse_audit
from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit.rest import RUN_AGAIN, AuditRestAsked
from diptych.tui.screens.runs.confirm import ConfirmResume
from diptych.tui.widgets.yes_no import YesNo

pytestmark = pytest.mark.surface

#: Twelve sentences, some 25 lines at 60 columns: far more than a 20-row terminal shows.
LONG = " ".join(
    f"Part {n} of the audit was decided at look {n} of 12, and running the audit whole buys "
    f"the remaining {n * 100} requests of it."
    for n in range(1, 13)
)
LAST = "Part 12 of the audit was decided at look 12 of 12, and running the audit whole buys "
LAST += "the remaining 1200 requests of it."


def _words(text: str) -> str:
    return " ".join(text.split())


def _box(app: App[Any]) -> VerticalScroll:
    return app.screen.query_one(".question-box", VerticalScroll)


def _drawn_question(app: App[Any]) -> str:
    """The words the question's box draws, read down its rows (its scrollbar aside)."""
    box = _box(app)
    return _words(" ".join(region_lines(screen_lines(app), box.scrollable_content_region)))


def _cut_rows(app: App[Any]) -> list[str]:
    """The question's rows drawn in its box that are not whole rows of its text: each word
    drawn whole, in the question's order (a word the box's right edge or scrollbar cuts reads
    as a word the question does not have there)."""
    question = app.screen.query_one(".question", Static)
    text = f" {_words(str(question.render()))} "
    drawn = _drawn_question(app)
    return [] if f" {drawn} " in text else [f"the box draws {drawn!r}, not rows of the question"]


def _out_of_view(app: App[Any], widgets: list[Widget]) -> list[str]:
    """The widgets not drawn whole on the screen."""
    shown_at = dict(visible_widgets(app))
    return [
        f"{w.id or type(w).__name__}: drawn in {shown_at.get(w)} of {w.region}"
        for w in widgets
        if shown_at.get(w) != w.region or not app.screen.region.contains_region(w.region)
    ]


def _answer(app: App[Any]) -> list[Widget]:
    screen = app.screen
    assert isinstance(screen, YesNo)
    return [
        screen.query_one(f"#{screen.ID}-keys", Label),
        screen.query_one(f"#{screen.ID}-yes", Button),
        screen.query_one(f"#{screen.ID}-no", Button),
    ]


async def _read_to_the_end(pilot: Pilot[Any], key: str) -> list[str]:
    """``key`` pressed until the box is at its end: the rows drawn on the way, whole."""
    app = pilot.app
    found = []
    for _ in range(40):
        if _box(app).scroll_y >= _box(app).max_scroll_y:
            break
        await pilot.press(key)
        await settle(pilot)
        found += _cut_rows(app) + _out_of_view(app, _answer(app))
    return found


async def _asked(pilot: Pilot[Any], text: str) -> list[str]:
    """What is wrong with the dialog that asks ``text``, as it opens and read to its end."""
    app = pilot.app
    box = _box(app)
    found = _out_of_view(app, _answer(app)) + _cut_rows(app) + cut_sentences(app)
    # Opened on the question's start, more below it and a scrollbar saying so.
    drawn = _drawn_question(app)
    if not _words(text).startswith(drawn) or box.max_scroll_y == 0:
        found.append(f"opened on {drawn!r}, not the start of a question scrolled further")
    if not box.show_vertical_scrollbar:
        found.append("no scrollbar says more of the question is below")
    # The keys scroll it: the box has the focus, and the focus is seen.
    if app.focused is not box:
        found.append(f"the focus is on {app.focused!r}, not the question's box")
    found += await unseen_focus(pilot, [box])
    return found


@pytest.mark.parametrize("key", ["down", "pagedown"])
@pytest.mark.parametrize("size", SIZES)
async def test_a_long_question_scrolls_with_its_answer_in_view(
    size: tuple[int, int], key: str
) -> None:
    app = DialogHost(YesNo(LONG))
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, YesNo), "the dialog")
        await settle(pilot)
        assert await _asked(pilot, LONG) == [], shown(app)
        assert await _read_to_the_end(pilot, key) == [], shown(app)
        assert _drawn_question(app).endswith(_words(LAST)), shown(app)
        # Home goes back to its start; Enter on the box answers nothing.
        await pilot.press("home", "enter")
        await settle(pilot)
        assert isinstance(app.screen, YesNo) and _box(app).scroll_y == 0, shown(app)
        assert await surface(pilot, leave=("y", "n", "escape")) == [], shown(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, YesNo), "the dialog closed")


@pytest.mark.parametrize("size", SIZES)
async def test_a_short_question_is_not_scrolled_and_cancel_is_focused(
    size: tuple[int, int],
) -> None:
    """A question the dialog holds whole: no scrollbar, the box not a stop of the focus, and
    Cancel focused, so Enter on it changes nothing."""
    app = DialogHost(YesNo("Buy the rest?"))
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, YesNo), "the dialog")
        await settle(pilot)
        box = _box(app)
        assert box.max_scroll_y == 0 and not box.show_vertical_scrollbar, shown(app)
        assert app.focused is app.screen.query_one("#yes-no-no", Button)
        assert box not in app.screen.focus_chain
        assert _out_of_view(app, _answer(app)) == [] and _drawn_question(app) == "Buy the rest?"
        assert box.region.height == 1, shown(app)


async def test_a_terminal_made_larger_gives_the_focus_back_to_cancel() -> None:
    """The question held whole once the terminal is larger: its box no stop of the focus."""
    app = DialogHost(YesNo(LONG))
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, YesNo), "the dialog")
        await settle(pilot)
        assert app.focused is _box(app), shown(app)
        await pilot.resize_terminal(120, 50)
        await settle(pilot)
        assert _box(app).max_scroll_y == 0, shown(app)
        assert app.focused is app.screen.query_one("#yes-no-no", Button), shown(app)
        assert _out_of_view(app, _answer(app)) == [] and _drawn_question(app) == _words(LONG)


def _three_decided_and_a_search() -> AuditRestAsked:
    """The question ctrl+r asks of an audit whose three gated parts were decided, its search
    not run yet: each part's rest in the words ``u`` asks with, then the search's least and
    most, as :func:`~diptych.tui.screens.audit.rest.decided_rests` builds it."""
    audit = parse_audit(
        "name: a\nmodels: {t: {plugin: scripted-likelihood}}\n"
        "probes: [{probe: pst-text, models: [t]}]\n"
    )
    search = Search(name="identities", kind="identities", agent_model="agent", target="t",
                    max_requests=1500)  # fmt: skip
    part = Part(position=3, name="identities", kind="search", probe="pst-text", search=search)
    plan = AuditPlan(audit, "h", [PartPlan(part, None, None, settings="s")])
    rests = [
        rest_to_buy("20260301-101500-pst-text-a1b2c3", "decided at look 1 of 10", 1476, 1476, 0.59),
        rest_to_buy("20260301-102000-pst-image-d4e5f6", "decided at look 2 of 8", 3200, 2900, 12.4),
        rest_to_buy("20260301-103000-winobias-0a9b8c", "decided at look 3 of 10", 980, 980, 0.21),
    ]
    return AuditRestAsked(
        [*rests, bought_after(plan, ["identities"])], not_run_words(["identities"], RUN_AGAIN)
    )


@pytest.mark.usefixtures("workspace")
@pytest.mark.parametrize("size", SIZES)
async def test_ctrl_r_on_three_decided_runs_and_a_search(size: tuple[int, int]) -> None:
    asked = _three_decided_and_a_search()
    text = " ".join(asked.questions)
    assert text.endswith(
        "Running the audit whole then runs identities, an identities search: the requests its "
        "agent proposes, at most 1,500\u00a0requests (its max_requests)."
    )
    app = DiptychApp(Path("ws"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        screen.post_message(asked)
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmResume), "the question")
        await settle(pilot)
        said = app.screen.query_one("#resume-text", Static).render()
        assert _words(str(said)) == _words(text)
        # At 80×24 it may be held whole; at 60×20 it is scrolled, the answer in view.
        assert _box(app).max_scroll_y > 0 or size == (80, 24), shown(app)
        if _box(app).max_scroll_y:
            assert await _asked(pilot, text) == [], shown(app)
            assert await _read_to_the_end(pilot, "pagedown") == [], shown(app)
        assert _out_of_view(app, _answer(app)) == [] and _cut_rows(app) == [], shown(app)
        assert _drawn_question(app).endswith(_words(text).rsplit(". ", 1)[1]), shown(app)
        assert await surface(pilot, leave=("y", "n", "escape")) == [], shown(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmResume), "closed")

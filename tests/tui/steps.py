"""The steps the TUI's tests take on a screen, as a user would: wait until it shows what it
should, let a relayout land, open a run's figures, choose a probe, read the screen's text.

Fixtures (the workspaces and runs the screens are opened on) are in ``conftest.py``; the
checks of what a user reads, by class of defect, in ``surface.py`` and ``surface_keys.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from rendered_screen import one_frame
from rich.text import Text
from surface import screen_lines
from surface_controls import state_by_colour, unseen_errors
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import DataTable, OptionList, Static

from diptych.tui.review.screen import ReviewScreen
from diptych.tui.screens.audit import AuditScreen
from diptych.tui.screens.new_run.plan import probe_class
from diptych.tui.screens.new_run.screen import NewRunScreen
from diptych.tui.screens.runs.detail import RunDetailScreen

SIZE = (80, 24)


async def wait_for(
    pilot: Pilot[Any],
    condition: Callable[[], bool],
    what: str = "the screen to get there",
    shown: Callable[[], str] | None = None,
    *,
    timeout: float = 60.0,
) -> None:
    """Poll ``condition`` until it holds (a deadline generous enough for a busy machine: a
    condition that holds is waited for, never a fixed pause)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            seen = f"; the screen shows {shown()!r}" if shown is not None else ""
            raise AssertionError(f"timed out waiting for {what}{seen}")
        await pilot.pause(0.05)


def cell(app: App[Any], run_id: str, column: str) -> str:
    table = app.screen.query_one("#runs", DataTable)
    value = table.get_cell(run_id, column)
    return value.plain if isinstance(value, Text) else str(value)


def run_ids(app: App[Any]) -> list[str]:
    table = app.screen.query_one("#runs", DataTable)
    return [str(key.value) for key in table.rows]


def loaded(n_runs: int) -> Callable[[Pilot[Any]], Any]:
    """A ``run_before`` that waits until the Runs screen lists ``n_runs`` runs."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_for(pilot, lambda: len(run_ids(pilot.app)) == n_runs, "the runs")

    return run_before


async def settle(pilot: Pilot[Any]) -> None:
    """Let a resize and the relayout it starts (a FitTable fits itself to its width) land."""
    for _ in range(3):
        await pilot.pause()
    await pilot.wait_for_scheduled_animations()


async def choose_probe(pilot: Pilot[Any], probe: str) -> None:
    """Choose ``probe`` on the New-run screen and wait until the screen has handled it: the
    change is handled in steps (the forms removed and mounted, then the probe described and
    the models list rebuilt), and a model ticked before the list is rebuilt is not offered."""
    from textual.widgets import Select

    screen = pilot.app.screen
    screen.query_one("#probe", Select).value = probe
    description = probe_class(probe).description()
    await wait_for(
        pilot,
        lambda: str(screen.query_one("#probe-description", Static).render()) == description,
        f"the {probe} probe's models",
    )


async def new_run_of(pilot: Pilot[Any], probe: str) -> NewRunScreen:
    """``n`` on the Runs screen, and ``probe`` chosen on the New-run screen it opens."""
    app = pilot.app
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, NewRunScreen), "the New-run screen")
    screen = app.screen
    assert isinstance(screen, NewRunScreen)
    # Pushed is not yet composed: the probe's field and its list, mounted, take the choice.
    await wait_for(pilot, lambda: bool(screen.query("#probe SelectOverlay")), "the Probe field")
    await choose_probe(pilot, probe)
    return screen


async def open_new_run(pilot: Pilot[Any], probe: str) -> NewRunScreen:
    """The New-run screen opened from the Runs screen of ``snapshot_workspace`` with ``probe``
    chosen and no model ticked, once its plan says which field to fix."""
    await loaded(3)(pilot)
    screen = await new_run_of(pilot, probe)
    app = pilot.app
    await wait_for(pilot, lambda: "fix the field" in shown(app), "the plan's complaint")
    await settle(pilot)
    return screen


async def open_audit(pilot: Pilot[Any], shown: Callable[[], str] | None = None) -> AuditScreen:
    """The Audit screen ``A`` opens (``shown``: what a timeout shows, as :func:`wait_for`)."""
    await pilot.press("A")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, AuditScreen), "the screen", shown)
    screen = pilot.app.screen
    assert isinstance(screen, AuditScreen)
    return screen


async def open_recorded_audit(pilot: Pilot[Any]) -> AuditScreen:
    """The Audit screen with the one audit the workspace records opened from its list, once its
    plan and its parts' status are read."""
    screen = await open_audit(pilot)
    recorded = screen.query_one("#recorded", OptionList)
    await wait_for(pilot, lambda: recorded.display and recorded.option_count == 1, "the list")
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen.plan is not None and bool(screen.status), "the plan")
    await settle(pilot)
    return screen


async def resume_question(pilot: Pilot[Any]) -> str:
    """ctrl+r on the Audit screen: the question it asks before it buys the rest of a decided
    run, its words on one line (the dialog stays open for the answer)."""
    from diptych.tui.screens.runs.confirm import ConfirmResume

    app = pilot.app
    await pilot.press("ctrl+r")
    await wait_for(
        pilot, lambda: isinstance(app.screen, ConfirmResume), "the question", lambda: shown(app)
    )
    return " ".join(str(app.screen.query_one("#resume-text", Static).render()).split())


async def queued(pilot: Pilot[Any], review: ReviewScreen) -> None:
    """Wait for Review's queue and its figures, a person shown."""
    await wait_for(
        pilot,
        lambda: review.numbers is not None and review.state.current() is not None,
        "the queue and its figures",
    )


async def reviewing(pilot: Pilot[Any]) -> ReviewScreen:
    """The Review screen a key of the Runs screen opens, once it holds its queue and figures
    (named "newcomer" where it asks who reviews)."""
    app = pilot.app
    await wait_for(
        pilot,
        lambda: any(isinstance(s, ReviewScreen) for s in app.screen_stack),
        "the Review screen",
    )
    if not isinstance(app.screen, ReviewScreen):  # who reviews, asked first
        await pilot.press(*"newcomer", "enter")
    await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the name taken")
    review = app.screen
    assert isinstance(review, ReviewScreen)
    await wait_for(pilot, lambda: review.numbers is not None, "the queue and its figures")
    return review


async def open_only_run(pilot: Pilot[Any], shows: str) -> RunDetailScreen:
    """The Run detail screen of a workspace's one run, opened from the Runs screen, once the
    widget ``shows`` (a query) is there and laid out."""
    await loaded(1)(pilot)
    await pilot.press("enter")
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, RunDetailScreen), "run detail")
    screen = app.screen
    assert isinstance(screen, RunDetailScreen)
    await wait_for(pilot, lambda: bool(screen.query(shows)), shows)
    await settle(pilot)
    return screen


async def open_detail(pilot: Pilot[Any]) -> RunDetailScreen:
    """The Run detail screen of the third run of ``snapshot_workspace`` (its pst-text run)."""
    await loaded(3)(pilot)
    await pilot.press("down", "down", "enter")
    screen = pilot.app.screen
    assert isinstance(screen, RunDetailScreen)
    await analysed(pilot, screen)
    return screen


async def write_report(pilot: Pilot[Any], run_id: str, folder: Any) -> str:
    """From the Runs screen, holding only ``run_id``: open its Run detail, press ``w``, write
    the report into ``folder`` and wait until the screen says so; what its said line says."""
    from textual.widgets import Input

    from diptych.tui.screens.runs.detail import ReportDirScreen

    app = pilot.app
    await wait_for(pilot, lambda: run_ids(app) == [run_id], "the run")
    await pilot.press("enter")
    screen = app.screen
    assert isinstance(screen, RunDetailScreen)
    await wait_for(pilot, lambda: bool(screen.query("#section-numbers")), "the analysis")
    await pilot.press("w")
    assert isinstance(app.screen, ReportDirScreen)
    app.screen.query_one("#report-dir", Input).value = str(folder)
    await pilot.press("enter")
    await wait_for(pilot, lambda: "report written to" in " ".join(said(app)), "the report")
    return said(app)[-1]


async def analysed(pilot: Pilot[Any], screen: RunDetailScreen) -> None:
    # The notes are the last section mounted: every section is listed by then.
    await wait_for(pilot, lambda: bool(screen.query("#section-notes")), "the analysis")
    await settle(pilot)


async def show_section(pilot: Pilot[Any], screen: RunDetailScreen, title: str) -> None:
    sections = screen.query_one("#sections", OptionList)
    titles = [str(sections.get_option_at_index(i).prompt) for i in range(sections.option_count)]
    sections.highlighted = titles.index(title)
    await settle(pilot)


def row_shows(lines: list[str], first: str, cells: list[str], below: int = 1) -> bool:
    """Whether a row of the screen begins with ``first`` (inside any frame) and that line, or
    the ``below`` lines under it, hold each of ``cells`` whole."""
    for i, line in enumerate(lines):
        if line.strip(" │█").startswith(first):
            block = "\n".join(lines[i : i + 1 + below])
            if all(cell in block for cell in cells):
                return True
    return False


def said(app: App[Any]) -> list[str]:
    """What the screen shown has said on its line above the footer, oldest first."""
    from diptych.tui.widgets.said import SaidLine

    return [note.message for line in app.screen.query(SaidLine) for note in line.said]


def words(text: str | list[str]) -> str:
    """``text`` (or lines of it) with its white space folded: a sentence wrapped over lines
    reads as it is written."""
    return " ".join((text if isinstance(text, str) else " ".join(text)).split())


def shown(app: App[Any]) -> str:
    """The screen's text, for a failed assertion to show."""
    return "\n".join(screen_lines(app))


async def open_standings(pilot: Pilot[Any], *, ranked: bool = True, runs: int = 3) -> Any:
    """The Standings screen opened from the Runs screen once it lists ``runs`` runs (the three
    of ``three_models``, conftest, unless told), and, with ``ranked``, its models ranked and
    laid out."""
    from diptych.tui.screens.standings import StandingsScreen

    app = pilot.app
    await loaded(runs)(pilot)
    await pilot.press("s")
    await wait_for(pilot, lambda: isinstance(app.screen, StandingsScreen), "the screen")
    screen = app.screen
    assert isinstance(screen, StandingsScreen)
    if ranked:
        await wait_for(pilot, lambda: screen.standings is not None, "the standings")
        await settle(pilot)
    return screen


async def next_figure(pilot: Pilot[Any], screen: Any, figure: str) -> None:
    """``f`` on the Standings screen, and its tables ranked on ``figure`` (the start of the
    figure's name) laid out."""
    await pilot.press("f")
    await wait_for(
        pilot,
        lambda: (
            screen.standings is not None and screen.standings.tables[0].figure.startswith(figure)
        ),
        figure,
    )
    await settle(pilot)


# --- every class of defect at once (surface.py, surface_keys.py) -----------------------------

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((60, 20), id="60x20")]


async def surface(
    pilot: Pilot[Any],
    *,
    leave: tuple[str, ...] = (),
    labels: bool = True,
    hidden: bool = True,
    offered: bool = False,
) -> list[str]:
    """Every class of defect on the screen shown now (the keys last: they move the screen).
    ``labels``: whether the footer's labels are checked whole too; ``hidden``: whether the
    keys left to Help are pressed too; ``offered``: whether the keys Help lists that the screen
    does not take now are too (:func:`surface_keys.silent_keys`)."""
    from surface import (
        cut_fields,
        cut_messages,
        cut_sentences,
        cut_titles,
        cut_values,
        out_of_reach,
    )
    from surface_keys import (
        cut_footer_keys,
        footer_lacks,
        silent_keys,
        unreachable_keys,
        unsaid_dialog_keys,
    )
    from surface_text import (
        bare_counts,
        cut_counts,
        cut_ids,
        figures_and_counts,
        looks_in_other_words,
        notes_over_content,
        split_counts,
        split_words,
        toasts_over_figures,
    )

    await settle(pilot)
    app = pilot.app
    # The checks that only read the screen read one drawing of it (nothing moves between them).
    with one_frame(app):
        found = cut_values(app) + cut_fields(app) + unseen_errors(app)
    found += await state_by_colour(pilot)
    with one_frame(app):
        found += cut_footer_keys(app) + footer_lacks(app, labels=labels) + cut_titles(app)
        found += unreachable_keys(app) + cut_sentences(app) + cut_ids(app) + cut_messages(app)
        found += bare_counts(app) + unsaid_dialog_keys(app) + split_counts(app)
        found += split_words(app) + toasts_over_figures(app) + notes_over_content(app)
        found += out_of_reach(app) + cut_counts(app) + figures_and_counts(app)
        found += looks_in_other_words(app)
    found += await silent_keys(pilot, leave=leave, hidden=hidden, offered=offered)
    return found


async def help_check(pilot: Pilot[Any], screen: type[Screen[Any]]) -> list[str]:
    """Help opened on ``screen`` leads with what the screen is for and shows no markup."""
    from surface import markup_leaks
    from surface import screen_lines as drawn
    from surface_keys import help_leads_with_purpose

    from diptych.tui.screens.help import HelpScreen, screen_purpose, screen_title

    await pilot.press("f1")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), "the help")
    await settle(pilot)
    found = help_leads_with_purpose(
        drawn(pilot.app), screen_title(screen), screen_purpose(screen)
    ) + markup_leaks(drawn(pilot.app))
    await pilot.press("escape")
    await wait_for(pilot, lambda: not isinstance(pilot.app.screen, HelpScreen), "help closed")
    return found

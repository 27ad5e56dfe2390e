"""New run's Models list says why it is empty, and what to tick, whole at 80×24 and 60×20: a
search that hides every model that fits the probe names those that do; none ticked, the list's
heading and the line under it carry a sign (✗), not red alone, and the plan names the field by
it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from steps import SIZES, open_new_run, settle, shown, wait_for
from surface import cut_messages, cut_sentences, screen_lines
from surface_text import cut_text
from textual import events
from textual.widgets import Input, Static

from diptych.tui.app import DiptychApp
from diptych.tui.screens.new_run.panes import Pane
from diptych.tui.screens.new_run.plan import none_fit
from diptych.tui.widgets.ticks import TickList


def test_the_empty_list_names_the_models_that_fit() -> None:
    assert none_fit("pst-text", ["scripted-likelihood"], "smol") == (
        "no model matching 'smol' fits pst-text's 'chat' or 'text_likelihood'; "
        "scripted-likelihood does"
    )
    assert none_fit("pst-text", [], "") == (
        "no installed model fits pst-text: it needs 'chat' or 'text_likelihood'"
    )
    five = none_fit("pst-text", ["a", "b", "c", "d", "e"], "z")
    assert five.endswith("; a, b, c and 2 more do")


@pytest.mark.parametrize("size", SIZES)
async def test_models_say_why_and_what_to_tick(
    snapshot_workspace: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_new_run(pilot, "pst-text")
        lines = screen_lines(app)
        # What to tick, whole on a line, under a heading marked with the sign.
        assert any("✗ tick one or more (space)" in line for line in lines), shown(app)
        assert any("✗ Models" in line for line in lines), shown(app)
        assert "(✗ Models)" in " ".join(shown(app).split()), shown(app)
        assert cut_messages(app) + cut_sentences(app) == [], shown(app)
        # A search that hides every model that fits: said, whole.
        screen.query_one("#models-search", Input).value = "smol"
        said = screen.query_one("#models-hint", Static)
        # The hint is said, then laid out at its height and scrolled into view by the refreshes
        # after: waited for drawn whole, never read at the first refresh.
        await wait_for(
            pilot,
            lambda: (
                said.display
                and "scripted-likelihood do" in str(said.render())
                and not cut_text(app, said)
                and cut_messages(app) + cut_sentences(app) == []
            ),
            "the hint whole in view",
            lambda: f"{cut_messages(app) + cut_sentences(app)}\n{shown(app)}",
        )


@pytest.mark.parametrize("size", SIZES)
async def test_a_search_that_hides_a_ticked_model_says_so_under_the_search(
    snapshot_workspace: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_new_run(pilot, "pst-text")
        ticked, search = _tick_the_first(screen)
        search.focus()
        await pilot.press(*"zzz")
        await settle(pilot)
        assert _hidden_said(screen, ticked)
        # What is typed stays in view above the hint, and the hint is read whole.
        pane = screen.query_one("#choose")
        assert pane.region.contains_region(search.region), shown(app)
        # The plan of the new search lands after it, and scrolls the form's reason into view.
        await wait_for(
            pilot,
            lambda: cut_messages(app) + cut_sentences(app) == [],
            "every sentence whole",
            lambda: shown(app),
        )


@pytest.mark.parametrize("size", SIZES)
async def test_the_hint_stays_whole_when_the_plan_of_a_tick_lands_after_the_search(
    snapshot_workspace: Path, size: tuple[int, int]
) -> None:
    # A tick and a search in one go: the tick's plan (debounced) lands after the search has
    # emptied the list, and must not scroll the pane back over the hint.
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_new_run(pilot, "pst-text")
        ticked, search = _tick_the_first(screen)
        search.value = "zzz"
        estimate = screen.query_one("#estimate", Static)
        await wait_for(pilot, lambda: "cannot run" in str(estimate.render()), "the plan")
        await settle(pilot)
        assert _hidden_said(screen, ticked)
        assert cut_messages(app) + cut_sentences(app) == [], shown(app)
        assert screen.query_one("#choose").region.contains_region(search.region), shown(app)


def _tick_the_first(screen: Any) -> tuple[str, Input]:
    """Tick the list's first model; the Models search field."""
    models = screen.query_one("#models", TickList)
    ticked = str(models.get_option_at_index(0).value)
    models.select(ticked)
    return ticked, screen.query_one("#models-search", Input)


def _hidden_said(screen: Any, ticked: str) -> bool:
    said = screen.query_one("#models-hint", Static)
    return f"ticked, hidden by the search: {ticked}" in " ".join(str(said.render()).split())


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("late", ["the pane's new size", "the reason's new size", "the plan"])
async def test_the_hint_stays_whole_whatever_lands_after_it(
    snapshot_workspace: Path, size: tuple[int, int], late: str
) -> None:
    # Each of these lands after the hint under a busy machine's timing (a scrollbar come into
    # the pane, "tick one or more" wrapped again, a plan debounced from before the search);
    # each brings the field marked in red ("✗ Models") into view beside the Probe, and must
    # leave the hint whole in view once the screen is idle.
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_new_run(pilot, "pst-text")
        screen.query_one("#models-search", Input).value = "smol"
        said = screen.query_one("#models-hint", Static)
        whole = lambda: said.display and not cut_text(app, said)  # noqa: E731
        await wait_for(pilot, whole, "the hint whole in view", lambda: shown(app))
        pane = screen.query_one("#choose", Pane)
        if late == "the pane's new size":
            pane.post_message(Pane.Resized(pane))
        elif late == "the reason's new size":
            reason = screen.query_one("#models-error", Static)
            reason.post_message(events.Resize(reason.size, reason.virtual_size))
        else:
            screen._replan()
        await settle(pilot)
        await wait_for(pilot, whole, "the hint whole in view again", lambda: shown(app))
        assert cut_messages(app) + cut_sentences(app) == [], shown(app)

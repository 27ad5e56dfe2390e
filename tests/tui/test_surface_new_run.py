"""The New-run screen at 80×24 and 60×20, read as a user reads it: the red field in view and
focused, the Models list's rows and names whole, the plan's figures whole.

Each screen is opened as a user opens it, on data with known values, and the checks of
tests/tui/surface.py and surface_keys.py run on what is drawn (``steps.surface`` runs them all).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from steps import (
    SIZES,
    choose_probe,
    help_check,
    loaded,
    open_new_run,
    settle,
    shown,
    wait_for,
)
from surface import (
    cut_messages,
    cut_names,
    cut_values,
    screen_lines,
)
from surface_controls import state_by_colour, unseen_errors
from surface_keys import (
    cut_footer_keys,
    footer_lacks,
    silent_keys,
    unseen_focus,
)
from surface_text import figures_and_counts, notes_over_content, opened_scrolled, split_words
from textual.widgets import Input, Static

from diptych import hookimpl
from diptych.core import plugins
from diptych.core.capabilities import Model
from diptych.testing import ScriptedLikelihood
from diptych.tui.app import DiptychApp
from diptych.tui.screens.new_run.screen import NewRunScreen
from diptych.tui.widgets.ticks import TickList

pytestmark = pytest.mark.surface


@pytest.mark.parametrize("size", SIZES)
async def test_new_run_screen(snapshot_workspace: Path, size: tuple[int, int]) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    # Toasts drawn, as in a terminal: what ctrl+s says must cover nothing.
    async with app.run_test(size=size, notifications=True) as pilot:
        await loaded(3)(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewRunScreen), "the screen")
        screen = app.screen
        assert isinstance(screen, NewRunScreen)
        # It opens at its top: the Probe field and the Models heading whole, in view.
        await settle(pilot)
        assert opened_scrolled(app) == [], shown(app)
        assert "Probe" in shown(app) and "Models" in shown(app), shown(app)
        await choose_probe(pilot, "scripted")
        await settle(pilot)
        assert await help_check(pilot, NewRunScreen) == []
        # The Models list shows rows to choose from, each with its state in text.
        models = screen.query_one("#models", TickList)
        assert models.option_count >= 3, [models.get_option_at_index(i) for i in range(2)]
        assert models.scrollable_content_region.height >= 3, shown(app)
        lines = screen_lines(app)
        assert any("[ ] scripted-likelihood" in line for line in lines), shown(app)
        # No model chosen: the plan points at the field to fix, and it is in view.
        await wait_for(pilot, lambda: "fix the field" in shown(app), "the plan's complaint")
        assert unseen_errors(app, focus=False) + cut_messages(app) == [], shown(app)
        # ctrl+s takes the user to it, and says why on a line of its own: Start and Back
        # whole, nothing covered.
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.focused is models
        assert unseen_errors(app) + cut_messages(app) == [], shown(app)
        assert notes_over_content(app) == [], shown(app)
        assert "the run cannot start" in shown(app), shown(app)
        # The plan written again with the form unchanged: the refusal still holds.
        screen._replan()
        await settle(pilot)
        assert "the run cannot start" in shown(app), shown(app)
        assert all(f" {word}" in shown(app) for word in ("Start", "Back")), shown(app)
        assert cut_values(app) + await state_by_colour(pilot) == [], shown(app)
        # Where the keys go is seen (without the list's frame, at 60 columns, in its text),
        # and Space ticks the first model at once (no Down first).
        assert await unseen_focus(pilot, text=size == (60, 20)) == [], shown(app)
        first = models.get_option_at_index(0)
        await pilot.press("space")
        await settle(pilot)
        assert models.selected == [first.value], shown(app)
        assert any(f"[x] {first.prompt}" in line for line in screen_lines(app)), shown(app)
        await pilot.press("space")
        await settle(pilot)
        assert models.selected == [], shown(app)
        # Every stop of Tab shows that it has the focus.
        assert await unseen_focus(pilot, screen.focus_chain) == [], shown(app)

        # A model chosen and a run option refused: the option's field, far down the forms,
        # is brought into view and focused by ctrl+s.
        models.select("scripted-likelihood")
        await settle(pilot)
        # The chosen model in view, ticked.
        assert any("[x] scripted-likelihood" in line for line in screen_lines(app)), shown(app)
        run_form = screen.query_one("#form-run")
        run_form.query_one("#form-run-concurrency").value = "0"  # type: ignore[attr-defined]
        await wait_for(pilot, lambda: "fix the field" in shown(app), "the plan's complaint")
        screen.query_one("#probe").focus()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.focused is not None and app.focused.id == "form-run-concurrency"
        assert unseen_errors(app) + cut_messages(app) == [], shown(app)

        run_form.query_one("#form-run-concurrency").value = ""  # type: ignore[attr-defined]

        # A field with a pick list under it refused: its red reason in view with it.
        await choose_probe(pilot, "pst-text")
        models.select("scripted-likelihood")
        await settle(pilot)
        field = screen.query_one("#form-probe-masculine", Input)
        field.value = "notajob"
        await wait_for(pilot, lambda: "fix the field" in shown(app), "the plan's complaint")
        screen.query_one("#probe").focus()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.focused is field
        assert unseen_errors(app) + footer_lacks(app) + cut_messages(app) == [], shown(app)
        assert "notajob" in shown(app) and "unknown" in shown(app), shown(app)
        field.value = ""

        # A valid plan: its trials and cost whole (in its scrolled box at the least).
        estimate = screen.query_one("#estimate", Static)
        await wait_for(
            pilot,
            lambda: "estimated cost" in str(estimate.render()),
            "the estimate",
            lambda: shown(app) + str(estimate.render()),
        )
        await settle(pilot)
        assert cut_values(app) + cut_footer_keys(app) + cut_messages(app) == [], shown(app)
        assert figures_and_counts(app) == [], shown(app)
        # The form fixed, "the run cannot start" said of it is gone at once, not left over
        # the plan until it times out.
        assert "cannot start" not in shown(app), shown(app)
        # With the plan shown, the list still shows three rows, the chosen model among them.
        assert models.scrollable_content_region.height >= 3, shown(app)
        assert any("[x] scripted-likelihood" in line for line in screen_lines(app)), shown(app)
        assert await silent_keys(pilot, leave=("ctrl+s",)) == [], shown(app)


class LongNamedLikelihood(ScriptedLikelihood):
    """The scripted likelihood model under a name of 36 characters."""

    name = "scripted-likelihood-with-a-long-name"


class LongNamedPlugin:
    @hookimpl
    def register_models(self, register: Callable[[type[Model]], None]) -> None:
        register(LongNamedLikelihood)


@pytest.fixture
def long_named_model(few_plugins: None) -> Iterator[str]:
    name = plugins.register_plugin(LongNamedPlugin(), "long-named-model")
    yield LongNamedLikelihood.name
    plugins.unregister_plugin(name)


@pytest.mark.parametrize("size", SIZES)
async def test_new_run_models_list_shows_a_long_name_whole(
    snapshot_workspace: Path, long_named_model: str, size: tuple[int, int]
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(3)(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewRunScreen), "the screen")
        await choose_probe(pilot, "scripted")
        models = app.screen.query_one("#models", TickList)
        names = [str(models.get_option_at_index(i).value) for i in range(models.option_count)]
        assert long_named_model in names and len(long_named_model) >= 23
        # Read as a user reads it: the list focused (Tab), which brings it into view.
        models.focus()
        await settle(pilot)
        for name in names:
            models.highlighted = names.index(name)  # scrolled into view
            await settle(pilot)
            assert cut_names(app, models, [name]) == [], shown(app)
        assert cut_values(app) + await state_by_colour(pilot) == [], shown(app)


class MoreLikelihoods:
    """Three more likelihood models, so that pst-text lists five as an install with the
    llama.cpp and OpenAI-compatible plugins does."""

    @hookimpl
    def register_models(self, register: Callable[[type[Model]], None]) -> None:
        for name in ("likelihood-a", "likelihood-b", "likelihood-c"):
            register(type(name, (ScriptedLikelihood,), {"name": name}))


@pytest.mark.parametrize("size", SIZES)
async def test_new_run_models_error_is_whole_beside_a_long_list(
    snapshot_workspace: Path, size: tuple[int, int]
) -> None:
    name = plugins.register_plugin(MoreLikelihoods(), "more-likelihoods")
    try:
        app = DiptychApp(snapshot_workspace, refresh_interval=3600)
        async with app.run_test(size=size) as pilot:
            await loaded(3)(pilot)
            await pilot.press("n")
            await wait_for(pilot, lambda: isinstance(app.screen, NewRunScreen), "the screen")
            # The pane as wide as that install's longest probe name makes it (32): the list
            # then ends on the pane's last row but one, and the refusal under it was cut there
            # ("Models — choose at least ▇▇"), its second line under the pane's edge.
            app.screen.query_one("#choose").styles.width = 32
            await choose_probe(pilot, "pst-text")
            await wait_for(pilot, lambda: "fix the field" in shown(app), "the plan's complaint")
            await settle(pilot)
            assert app.screen.query_one("#models", TickList).option_count == 5
            assert cut_messages(app) == [], shown(app)
            await pilot.press("ctrl+s")
            await settle(pilot)
            assert cut_messages(app) + unseen_errors(app) == [], shown(app)
            assert figures_and_counts(app) == [], shown(app)
    finally:
        plugins.unregister_plugin(name)


@pytest.mark.parametrize("size", SIZES)
async def test_the_forms_break_lines_between_words(
    snapshot_workspace: Path, size: tuple[int, int]
) -> None:
    """Read down the whole of the probe's form, scrolled a pane at a time: no word is broken
    inside itself, its identities' pick lists ("construction worker") among them."""
    from textual.containers import ScrollableContainer

    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_new_run(pilot, "pst")
        found: list[str] = []
        for pane in [p for p in screen.query(ScrollableContainer) if p.display]:
            for y in range(0, int(pane.max_scroll_y) + pane.size.height, pane.size.height):
                pane.scroll_to(y=y, animate=False)
                await settle(pilot)
                found += split_words(app)
        assert found == [], found

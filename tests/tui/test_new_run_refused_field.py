"""New run: a field the plan refuses (counterfactual-retrieval's ``sets`` naming no dataset)
is marked with the sign Models carries (✗), not red alone; ctrl+s brings it into view and
focus, and the line that refuses names it in words, so it still holds once the focus moves on
and the field scrolls away."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import SIZES, choose_probe, settle, shown, wait_for
from surface_controls import unseen_errors
from textual.widgets import Label, Static

from diptych.tui.app import DiptychApp
from diptych.tui.screens.new_run.screen import NewRunScreen
from diptych.tui.widgets.params_form import ParamsForm
from diptych.tui.widgets.ticks import TickList

REFUSED = "the run cannot start: sets: no dataset at 0"


@pytest.mark.parametrize("size", SIZES)
async def test_a_refused_dataset_marks_its_field(
    scripted: None, workspace: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewRunScreen), "the screen")
        screen = app.screen
        assert isinstance(screen, NewRunScreen)
        await choose_probe(pilot, "counterfactual-retrieval")
        models = screen.query_one("#models", TickList)
        assert models.option_count, shown(app)
        models.select(models.get_option_at_index(0).value)
        form = screen.query_one("#form-probe", ParamsForm)
        await wait_for(pilot, lambda: bool(form.query("Label.field-name")), "the form")
        form.set_value("sets", "0")
        await wait_for(pilot, lambda: "no dataset at 0" in shown(app), "the refusal")
        label = next(
            n for n in form.query("Label.field-name").results(Label) if "sets" in str(n.render())
        )
        assert str(label.render()) == "✗ sets", shown(app)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: REFUSED in " ".join(shown(app).split()), "the refusal")
        await settle(pilot)
        assert app.focused is form._inputs["sets"], app.focused
        assert label.region.intersection(screen.region).area, shown(app)
        await pilot.press("tab")
        await settle(pilot)
        # Moved on: the line names the field rather than pointing at one marked in red.
        assert unseen_errors(app, focus=False) == [], shown(app)
        assert "sets: no dataset at 0" in " ".join(shown(app).split()), shown(app)


async def test_ctrl_s_before_the_plan_is_in_waits_for_it(scripted: None, workspace: Path) -> None:
    """Ctrl+S pressed while the plan of what the form now holds is still to come (the typing
    debounced, or the estimate in its thread) does not start a run the plan then refuses: the
    screen waits for the plan and says why it cannot start."""
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewRunScreen), "the screen")
        screen = app.screen
        assert isinstance(screen, NewRunScreen)
        await choose_probe(pilot, "counterfactual-retrieval")
        models = screen.query_one("#models", TickList)
        models.select(models.get_option_at_index(0).value)
        form = screen.query_one("#form-probe", ParamsForm)
        await wait_for(pilot, lambda: bool(form.query("Label.field-name")), "the form")
        panel = screen.query_one("#estimate", Static)
        await wait_for(
            pilot,
            lambda: (
                str(panel.render()).startswith(("cannot run", "the plan")) or "trial" in shown(app)
            ),
            "the first plan",
            lambda: shown(app),
        )
        form.set_value("sets", "0")
        await pilot.press("ctrl+s")  # before the debounced plan of "0" has run
        await wait_for(
            pilot,
            lambda: REFUSED in " ".join(shown(app).split()),
            "the refusal",
            lambda: shown(app),
        )
        assert app.screen is screen, shown(app)
        assert not app.query("RunsScreen DataTable") or "run failed" not in shown(app)

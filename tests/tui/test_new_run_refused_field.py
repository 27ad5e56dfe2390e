"""New run: a field the plan refuses (counterfactual-retrieval's ``sets`` naming no dataset)
is marked with the sign Models carries (✗), not red alone; ctrl+s brings it into view and
focus, and the line that refuses names it in words, so it still holds once the focus moves on
and the field scrolls away."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import SIZES, choose_probe, settle, shown, wait_for
from surface_controls import unseen_errors
from textual.widgets import Label

from diptych.tui.app import DiptychApp
from diptych.tui.screens.new_run.screen import NewRunScreen
from diptych.tui.widgets.params_form import ParamsForm
from diptych.tui.widgets.ticks import TickList


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
        await settle(pilot)
        said = " ".join(shown(app).split())
        assert "the run cannot start: sets: no dataset at 0" in said, said
        assert app.focused is form._inputs["sets"], app.focused
        assert label.region.intersection(screen.region).area, shown(app)
        await pilot.press("tab")
        await settle(pilot)
        # Moved on: the line names the field rather than pointing at one marked in red.
        assert unseen_errors(app, focus=False) == [], shown(app)
        assert "sets: no dataset at 0" in " ".join(shown(app).split()), shown(app)

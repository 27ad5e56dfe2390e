"""New run: a letter typed into a whole-number field stays in it, marked (✗) with the line
saying what the field takes, and ^s refuses to start while it is there, whether the field is
in view or scrolled out of it: no run is stored, and the field comes into view, focused."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import SIZES, choose_probe, settle, shown, wait_for
from textual.containers import VerticalScroll
from textual.widgets import Input, SelectionList, Static

from diptych.core.store import open_store
from diptych.tui.app import DiptychApp
from diptych.tui.screens.new_run.plan import form_id
from diptych.tui.screens.new_run.screen import NewRunScreen
from diptych.tui.widgets.params_form import ParamsForm


def _runs(workspace: Path) -> int:
    with open_store(workspace) as store:
        return len(store.list_runs())


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("scrolled", [False, True], ids=["in-view", "out-of-view"])
async def test_a_letter_in_a_number_field_is_kept_and_start_refused(
    scripted: None, workspace: Path, size: tuple[int, int], scrolled: bool
) -> None:
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewRunScreen), "the screen")
        screen = app.screen
        assert isinstance(screen, NewRunScreen)
        await choose_probe(pilot, "scripted")
        screen.query_one("#models", SelectionList).select("scripted-likelihood")
        await wait_for(
            pilot, lambda: bool(screen.query(f"#{form_id('scripted-likelihood')}")), "model form"
        )
        estimate = screen.query_one("#estimate", Static)
        await wait_for(pilot, lambda: "planned" in str(estimate.render()), "the plan")
        form = screen.query_one("#form-probe", ParamsForm)
        field = form._inputs["n"]
        assert isinstance(field, Input)
        field.focus()
        await wait_for(pilot, lambda: app.focused is field, "the field's focus")
        await pilot.press("end", "x")
        await settle(pilot)
        # What was typed is shown, not the value before it.
        assert field.value == "10x", field.value
        if scrolled:
            screen.query_one("#models", SelectionList).focus()
            forms = screen.query_one("#forms", VerticalScroll)
            forms.scroll_end(animate=False, immediate=True)
            await settle(pilot)
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: "the run cannot start" in " ".join(shown(app).split()),
            "the refusal",
            lambda: shown(app),
        )
        await settle(pilot)
        assert app.screen is screen, shown(app)
        assert not app.jobs
        assert app.focused is field, app.focused
        assert field.region.intersection(screen.region).area, shown(app)
        assert field.value == "10x"
        assert "n takes whole numbers" in shown(app), shown(app)
        assert "✗ n" in shown(app), shown(app)
    assert _runs(workspace) == 0

"""New run: a letter typed into a whole-number field stays in it (the field shows what was
typed), and one line under the field says which field takes what, in view, at both sizes; the
line goes once the letter is taken back."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import SIZES, settle, shown, wait_for
from textual.widgets import Input, Static

from diptych.tui.app import DiptychApp
from diptych.tui.screens.new_run.screen import NewRunScreen
from diptych.tui.widgets.params_form import ParamsForm

#: The line at either width: the field named where the pane holds it, under it either way.
SAID = ("concurrency takes whole numbers", "whole numbers only")


def _said(app: DiptychApp, words: tuple[str, ...] = SAID) -> bool:
    lines = [line.split("│")[-1].strip() for line in shown(app).splitlines()]
    return any(line in words for line in lines)


@pytest.mark.parametrize("size", SIZES)
async def test_a_letter_in_a_whole_number_field_is_kept_and_said(
    scripted: None, workspace: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewRunScreen), "the screen")
        screen = app.screen
        form = screen.query_one("#form-run", ParamsForm)
        await wait_for(pilot, lambda: bool(form.query("Label.field-name")), "the form")
        field = form._inputs["concurrency"]
        assert isinstance(field, Input)
        field.focus()
        field.value = ""
        await wait_for(pilot, lambda: app.focused is field, "the field's focus")
        hint = form.query_one("#form-run-concurrency-error", Static)
        await pilot.press("1", "a")
        await wait_for(pilot, lambda: hint.has_class("-shown"), "the word on the letter")
        await settle(pilot)
        assert field.value == "1a"
        assert _said(app), shown(app)
        # One line, whole, within the screen.
        assert hint.region.height == 1 and hint.region.intersection(screen.region) == hint.region
        await pilot.press("backspace", "2")
        await wait_for(pilot, lambda: not hint.has_class("-shown"), "the word gone")
        await settle(pilot)
        assert field.value == "12"
        assert not _said(app), shown(app)

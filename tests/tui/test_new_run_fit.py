"""The New-run screen at 80×24 and 60×20: the field it refuses is brought into view, focused and
named in words, and a probe's description is read whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import SIZES, open_new_run, screen_lines, settle
from surface import cut_values

from diptych.tui.app import DiptychApp
from diptych.tui.screens.new_run.plan import probe_class
from diptych.tui.widgets.ticks import TickList


@pytest.mark.parametrize("size", SIZES)
async def test_no_model_chosen_brings_the_models_list_into_view_and_says_why(
    snapshot_workspace: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        # The probe with the longest description: it pushes the Models list down the most.
        screen = await open_new_run(pilot, "pst")
        await pilot.press("ctrl+s")
        await settle(pilot)
        models = screen.query_one("#models", TickList)
        lines = screen_lines(app)
        text = "\n".join(lines)
        assert app.focused is models
        # The list's rows on the screen, above the plan and the footer.
        assert models.region.height >= 1 and models.region.y < size[1] - 3, text
        assert models.region.intersection(app.screen.region).area > 0, text
        # The reason in words, in view: not a colour only.
        # (whole on one line of the 28 columns of the choices pane)
        assert any("✗ tick one or more (space)" in line for line in lines), text
        # The probe's description is read whole, its last words on the screen.
        description = probe_class("pst").description()
        assert description.endswith("in one image.") and "in one image." in text, text
        assert cut_values(app) == [], text


async def test_a_resize_keeps_the_refused_field_in_view(snapshot_workspace: Path) -> None:
    """Refused at 80×24, then the terminal made 60×20: the plan still names the field marked
    in red, so the field (and its focus) stays in view without a second ctrl+s."""
    from steps import wait_for
    from surface_controls import unseen_errors
    from textual.widgets import Input

    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_new_run(pilot, "pst-text")
        screen.query_one("#models", TickList).select("scripted-likelihood")
        await settle(pilot)
        field = screen.query_one("#form-probe-masculine", Input)
        field.value = "astronaut"
        await wait_for(pilot, lambda: "(masculine" in "\n".join(screen_lines(app)), "the plan")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.focused is field
        assert unseen_errors(app) == [], "\n".join(screen_lines(app))
        await pilot.resize_terminal(60, 20)
        await settle(pilot)
        text = "\n".join(screen_lines(app))
        assert unseen_errors(app) == [], text
        # The field and the red reason under it, both in view, as ctrl+s leaves them.
        assert "astronaut" in text and "unknown masculine" in text, text

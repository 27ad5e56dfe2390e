"""New run at 80×24 and 60×20: the field the keys go to, and the field the plan says to fix,
stay in view when the panes are made shorter under them (a line said above the plan: a run
that ended), read from what the terminal draws, not from where the field would be unclipped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from steps import SIZES, open_new_run, settle, shown, wait_for
from surface_controls import unseen_errors
from textual.app import App
from textual.widget import Widget

from diptych.tui.app import DiptychApp
from diptych.tui.widgets.ticks import TickList

#: What the app says when a run ends badly: two lines at 60 columns, above the plan.
ENDED = "run pst-1234 ended: 40 trials done, 3 failed; press r on the Runs screen to see why"


def in_view(app: App[Any], widget: Widget) -> bool:
    """Whether every row of ``widget`` is drawn inside what clips it (its pane), or it fills
    that, where it is taller: the rows a user sees."""
    found = app.screen._compositor.visible_widgets.get(widget)
    if found is None:
        return False
    region, clip = found
    if not region.intersection(clip).width:
        return False
    if region.height > clip.height:
        return region.intersection(clip).height == clip.height
    return clip.y <= region.y and region.bottom <= clip.bottom


@pytest.mark.parametrize("size", SIZES)
async def test_no_model_chosen_keeps_the_models_list_in_view_under_a_said_line(
    snapshot_workspace: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        # The probe with the longest description: it pushes the Models list down the most.
        screen = await open_new_run(pilot, "pst")
        await pilot.press("ctrl+s")
        await settle(pilot)
        models = screen.query_one("#models", TickList)
        assert app.focused is models and in_view(app, models), shown(app)
        app.notify(ENDED, severity="error")
        await wait_for(pilot, lambda: "ended: 40 trials" in shown(app), "the said line")
        await settle(pilot)
        # The plan still says to fix Models: the list, focused, and its reason are drawn.
        assert "(✗ Models)" in shown(app), shown(app)
        assert app.focused is models and in_view(app, models), shown(app)
        assert in_view(app, screen.query_one("#models-error")), shown(app)
        assert "✗ tick one or more" in shown(app), shown(app)
        assert unseen_errors(app) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_tab_through_every_field_keeps_it_in_view(
    snapshot_workspace: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_new_run(pilot, "pst-text")
        screen.query_one("#models", TickList).select("scripted-likelihood")
        await wait_for(pilot, lambda: "trials planned" in shown(app), "the plan")
        probe = screen.query_one("#probe")
        probe.focus()
        app.notify(ENDED, severity="error")
        await wait_for(pilot, lambda: "ended: 40 trials" in shown(app), "the said line")
        await settle(pilot)
        seen: list[str] = []
        while True:
            focused = app.focused
            assert focused is not None and len(seen) < 80, seen
            assert in_view(app, focused), f"{focused!r} out of view after {seen}: {shown(app)}"
            seen.append(str(focused.id))
            await pilot.press("tab")
            await settle(pilot)
            if app.focused is probe:
                break
        # Every field of both panes and the two buttons.
        assert {"models-search", "models", "form-run-target_width", "start", "back"} <= set(seen)


async def test_the_hint_names_no_model_the_probe_cannot_use(snapshot_workspace: Path) -> None:
    """A model ticked for pst-text stays chosen for when pst-text is chosen again, but pst
    cannot use it: a search that empties pst's list does not call it ticked and hidden."""
    from steps import choose_probe
    from textual.widgets import Input, Static

    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await open_new_run(pilot, "pst-text")
        screen.query_one("#models", TickList).select("scripted-likelihood")
        await wait_for(pilot, lambda: "trials planned" in shown(app), "the plan")
        await choose_probe(pilot, "pst")
        screen.query_one("#models-search", Input).value = "zzz"
        hint = screen.query_one("#models-hint", Static)
        await wait_for(pilot, lambda: "no model matching 'zzz'" in str(hint.render()), "hint")
        assert "hidden by the search" not in str(hint.render()), str(hint.render())
        assert "scripted-likelihood" not in str(hint.render()), str(hint.render())

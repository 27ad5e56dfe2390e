"""An empty field's hint shows whole at 80×24 and 60×20: New run's search over a list's
suggestions (pst-text's masculine words) and the Audit screen's path."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import SIZES, open_audit, open_new_run, settle, shown
from surface import cut_sentences
from textual.widgets import Input

from diptych.tui.app import DiptychApp
from diptych.tui.widgets.pick_list import PickList


def hints_cut(found: list[str]) -> list[str]:
    return [f for f in found if "the hint" in f]


@pytest.mark.parametrize("size", SIZES)
async def test_a_lists_search_hint_is_whole(
    snapshot_workspace: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_new_run(pilot, "pst-text")
        picks = [p.query_one(".pick-search", Input) for p in screen.query(PickList)]
        assert len(picks) >= 2, shown(app)  # the masculine and the feminine words
        for field in picks:
            field.scroll_visible(animate=False, top=True)
            await settle(pilot)
            assert hints_cut(cut_sentences(app)) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_the_audit_paths_hint_is_whole(
    snapshot_workspace: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await open_audit(pilot)
        await settle(pilot)
        assert hints_cut(cut_sentences(app)) == [], shown(app)

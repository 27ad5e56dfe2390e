"""The footer draws its keys again only when what it shows changes: a focus moved or a row
highlighted signals the screen's bindings, and where the keys, their labels, their states and
their spacing stay the same the keys drawn stay (mounting a footer's keys again restyles each
one, the larger part of what a key press costs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from steps import loaded, settle, shown, wait_for
from surface import screen_lines
from textual.widgets._footer import FooterKey

from diptych.tui.app import DiptychApp
from diptych.tui.screens.runs.screen import RunsScreen


async def test_the_same_keys_signalled_again_are_not_mounted_again(
    snapshot_workspace: Path,
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(3)(pilot)
        await settle(pilot)
        drawn = list(app.screen.query(FooterKey))
        assert [k.key for k in drawn] == ["n", "r", "slash", "a", "A", "s", "question_mark", "q"]
        # The bindings signalled again (as a focus moved does), the same run highlighted.
        app.screen.refresh_bindings()
        await settle(pilot)
        assert all(k.is_attached for k in drawn), shown(app)
        assert list(app.screen.query(FooterKey)) == drawn, shown(app)


async def test_a_label_changed_is_drawn(
    snapshot_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(3)(pilot)
        await settle(pilot)
        assert "Resume" not in screen_lines(app)[-1]
        monkeypatch.setattr(RunsScreen, "footer_labels", lambda self: {"resume": "Resume"})
        app.screen.refresh_bindings()
        footer = lambda: screen_lines(app)[-1]  # noqa: E731
        await wait_for(pilot, lambda: "u Resume" in footer(), "u Resume", lambda: shown(app))

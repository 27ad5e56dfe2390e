"""The screen as a test reads it: drawn afresh at each reading, and drawn once for a run of
checks that read it inside ``one_frame`` (where it cannot move)."""

from __future__ import annotations

from typing import Any

import pytest
import rendered_screen
from rendered_screen import one_frame, screen_cells, screen_lines
from textual.app import App, ComposeResult
from textual.widgets import Static


class Words(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("before", id="words")


async def test_the_screen_is_drawn_once_inside_one_frame_and_afresh_outside(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    drawn = 0
    original = rendered_screen._draw

    def counted(app: App[Any]) -> Any:
        nonlocal drawn
        drawn += 1
        return original(app)

    app = Words()
    async with app.run_test(size=(20, 3)) as pilot:
        await pilot.pause()
        monkeypatch.setattr(rendered_screen, "_draw", counted)
        with one_frame(app):
            first = screen_lines(app)
            assert screen_lines(app) == first and screen_cells(app)[0][0].char == "b"
        assert drawn == 1 and first[0].startswith("before")
        app.query_one("#words", Static).update("after")
        await pilot.pause()
        assert screen_lines(app)[0].startswith("after") and drawn == 2

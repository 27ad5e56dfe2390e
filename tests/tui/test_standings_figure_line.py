"""``f`` on the Standings screen changes the line and the tables together: at no refresh does a
line name a figure the tables shown are not ranked on (a toast "ranking on STS single" stood
over the STS paired tables for two seconds). Until the new figure is ranked, the page says it is
ranking it, and nothing else."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from steps import open_standings, wait_for

import diptych.tui.screens.standings as standings_screen
from diptych.tui.app import DiptychApp
from diptych.tui.widgets.fit_table import FitTable
from diptych.tui.workers import load_standings


async def test_f_changes_the_line_and_the_tables_together(
    both_settings: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The single STS is ranked only once the test lets it: the frames before are looked at.
    ranked = threading.Event()

    def held(store_path: Path, figure: str = "STS paired") -> Any:
        if figure != "STS paired":
            ranked.wait(timeout=60)
        return load_standings(store_path, figure)

    monkeypatch.setattr(standings_screen, "load_standings", held)
    app = DiptychApp(both_settings, refresh_interval=3600)
    told: list[str] = []
    notify = app.notify
    monkeypatch.setattr(app, "notify", lambda message, *a, **k: told.append(str(message))
                        or notify(message, *a, **k))  # fmt: skip
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_standings(pilot)
        assert screen.figure == "STS paired" and "STS single" in screen.figures, screen.figures

        def consistent() -> str:
            """What is wrong with the page now ("" where nothing is)."""
            page = " ".join(screen._page_text().split())
            if any("ranking on" in said for said in told):
                return f"a toast names a figure: {told}"
            tables = list(screen.query(FitTable))
            if not tables:
                # Only the line, naming the figure being ranked.
                expected = f"Ranking the models on {screen.figure}…"
                return "" if page == expected else f"line {page!r}, not {expected!r}"
            ranked = screen.standings.tables[0].figure if screen.standings else ""
            if not str(ranked).startswith(screen.figure) or "Ranking" in page:
                return f"tables ranked on {ranked!r} under {page[:120]!r}"
            return ""

        await pilot.press("f")
        assert screen.figure == "STS single"
        for _ in range(20):
            await pilot.pause(0.02)
            assert consistent() == "", consistent()
        ranked.set()
        for _ in range(200):
            await pilot.pause(0.02)
            assert consistent() == "", consistent()
            if screen.query(FitTable):
                break
        await wait_for(pilot, lambda: bool(screen.query(FitTable)), "the single STS ranked")
        assert consistent() == "", consistent()
        assert "STS single" in " ".join(screen._page_text().split())

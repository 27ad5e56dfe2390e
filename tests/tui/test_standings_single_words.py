"""The Standings screen says what the single-person STS's interval resamples as every other
surface does (:func:`diptych.core.standings.sts_unit_words`): its two lists as separate lists,
never identities crossed in scenes, which a single-person prompt has none of."""

from __future__ import annotations

from pathlib import Path

from steps import open_standings, wait_for

from diptych.core.standings import sts_unit_words
from diptych.tui.app import DiptychApp

SINGLE = "STS single (expected from P(he), P(she))"


async def test_f_to_the_single_sts_names_its_lists_apart(both_settings: Path) -> None:
    app = DiptychApp(both_settings, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_standings(pilot)
        page = lambda: " ".join(screen._page_text().split())  # noqa: E731
        assert f"over the {sts_unit_words('paired')}" in page()
        for _ in range(len(screen.figures)):
            if screen.figure == "STS single":
                break
            await pilot.press("f")
        assert screen.figure == "STS single", screen.figures
        await wait_for(pilot, lambda: SINGLE in page() and "interval: over" in page(), "ranked")
        assert f"95% interval: over the {sts_unit_words('single')}" in page()
        assert "crossed in scenes" not in page()

"""The Runs list counts as the CLI does: ``1,720/1,720``, not ``1720/1720``."""

from __future__ import annotations

from diptych.tui.progress import Progress


def test_a_runs_progress_separates_thousands() -> None:
    assert Progress(1720, 1720).count() == "1,720/1,720"
    assert Progress(38, 156).text() == "38/156"
    assert Progress(1476, 6560, rate=2.0).text().startswith("1,476/6,560 · 2.0/s · ETA ")

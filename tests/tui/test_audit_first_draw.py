"""An audit its gates decided, opened on the Audit screen at 80×24 and 60×20: from the first frame
drawn with its plan, its part's row says the status the audit's status line says ("decided at
look 1 of 10: …"), never "planned" for the moment before the store is read (the rows and the
status line agree at every moment)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from steps import SIZES, open_audit, wait_for
from surface import screen_lines
from textual.screen import Screen

from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit import AuditScreen
from diptych.tui.widgets.fit_table import FitTable

#: The decided audit's status in words, as ``diptych audit list`` says it (conftest's
#: ``decided_run``: decided at its first look of ten, 164 of its 1,640 requests bought).
DECIDED = "decided at look 1 of 10: 164 of 1,640 requests, 1,476 saved"

#: One frame: the parts table's rows as drawn, and the screen's text.
Frame = tuple[list[list[str]], list[str]]


@pytest.mark.parametrize("size", SIZES)
async def test_a_decided_audit_s_rows_agree_with_its_status_from_the_first_frame(
    decided_run: Path, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    frames: list[Frame] = []
    display = DiptychApp._display

    def drawn(self: DiptychApp, screen: Screen[Any], renderable: Any) -> None:
        display(self, screen, renderable)
        if isinstance(screen, AuditScreen) and screen.plan is not None:
            rows = [cells for _, cells in screen.query_one("#parts", FitTable).source]
            frames.append((rows, screen_lines(self)))

    monkeypatch.setattr(DiptychApp, "_display", drawn)
    app = DiptychApp(decided_run, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        await pilot.press(*"audit.yaml", "enter")
        await wait_for(pilot, lambda: bool(screen.gates), "the gates")
        await pilot.pause()
    assert frames, "no frame drawn with the plan"
    first = " ".join(" ".join(frames[0][1]).split())
    assert f"audit {DECIDED} tui-seq: 1,720 trials planned" in first, "\n".join(frames[0][1])
    for rows, lines in frames:
        assert [cells[-1] for cells in rows] == [DECIDED], "\n".join(lines)
        # "planned" only where the plan's counts say it, never as a part's status.
        text = " ".join(" ".join(lines).split())
        assert text.count("planned") == text.count("trials planned"), "\n".join(lines)

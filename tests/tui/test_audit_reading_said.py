"""Enter on an audit file says at once that the file is being read, while it is read, planned
and its store checked in a worker (seconds for a large audit), and the keys go on working
meanwhile; the words and the indicator go once the plan is shown."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from steps import SIZES, open_audit, wait_for
from surface import screen_lines
from textual.widgets import LoadingIndicator

from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit import screen as audit_screen
from diptych.tui.screens.help import HelpScreen

READING = "Reading audit.yaml…"


class HeldPlan:
    """Planning the audit waits for ``release``; ``entered`` is set once it has begun."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()


@pytest.fixture
def held_plan(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldPlan]:
    held = HeldPlan()
    plan_audit = audit_screen.plan_audit

    def holding(*args: Any, **kwargs: Any) -> Any:
        held.entered.set()
        held.release.wait()
        return plan_audit(*args, **kwargs)

    monkeypatch.setattr(audit_screen, "plan_audit", holding)
    yield held
    held.release.set()


@pytest.mark.parametrize("size", SIZES)
async def test_reading_is_said_until_the_plan_is_shown(
    decided_run: Path, held_plan: HeldPlan, size: tuple[int, int]
) -> None:
    app = DiptychApp(decided_run, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        try:
            screen = await open_audit(pilot)
            await pilot.press(*"audit.yaml", "enter")

            def said() -> str:
                return " ".join(" ".join(screen_lines(app)).split())

            await wait_for(pilot, lambda: READING in said(), "the reading said", said)
            assert held_plan.entered.is_set() and not held_plan.release.is_set()
            assert screen.query_one(LoadingIndicator).display
            # The keys are read while the plan is made: Help opens and closes over it.
            await pilot.press("f1")
            await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "Help")
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen, "the Audit screen again")
            assert screen.plan is None
        finally:
            # Set here too: the app does not close while its worker waits.
            held_plan.release.set()
        await wait_for(pilot, lambda: screen.plan is not None, "the plan", said)
        await wait_for(pilot, lambda: "tui-seq: 1,720 trials planned" in said(), "its counts")
        assert READING not in said()
        assert not screen.query_one(LoadingIndicator).display

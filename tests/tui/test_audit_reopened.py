"""The Audit screen left with escape and opened again with ``A`` shows one state: the audit it
had open with that audit's path in the field, or an empty field and no gates, and the field
has the focus, so that what is typed next is the path. ^g, ^r and ^o act on the audit whose
path the field shows: a path edited but not opened is named with the Enter that opens it, and
a file still being read is named as read. With none open, the audits recorded here are listed,
the newest under the focus (Enter opens it), as on the screen's first showing. At 80×24 and
60×20."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from steps import SIZES, open_audit, settle, shown, wait_for, words
from textual.pilot import Pilot
from textual.widgets import Input, OptionList

from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit import AuditScreen
from diptych.tui.screens.audit import screen as audit_screen
from diptych.tui.screens.audit.keys import OPEN_FIRST


def summary(screen: AuditScreen) -> str:
    return words(str(screen.query_one("#summary").render()))


def gates_shown(screen: AuditScreen) -> bool:
    return bool(screen.query_one("#gates").display or screen.query_one("#verdicts").display)


async def opened(pilot: Pilot[Any]) -> AuditScreen:
    """The Audit screen with audit.yaml typed, opened and its gates shown."""
    app = pilot.app
    screen = await open_audit(pilot, lambda: shown(app))
    await pilot.press(*"audit.yaml", "enter")
    await wait_for(pilot, lambda: screen.plan is not None and bool(screen.gates), "the gates")
    await settle(pilot)
    return screen


async def reopened(pilot: Pilot[Any], screen: AuditScreen) -> Input:
    """Escape, then ``A``: the same screen shown again, its field returned."""
    await pilot.press("escape")
    await wait_for(pilot, lambda: not isinstance(pilot.app.screen, AuditScreen), "Runs")
    assert await open_audit(pilot) is screen
    await settle(pilot)
    return screen.query_one("#file", Input)


@pytest.mark.parametrize("size", SIZES)
async def test_reopened_keeps_the_audit_and_its_path_in_a_focused_field(
    decided_run: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(decided_run, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot)
        field = await reopened(pilot, screen)
        assert field.value == "audit.yaml"
        assert app.focused is field, "letters typed go into the path"
        assert gates_shown(screen)
        await pilot.press("x")
        assert field.value == "audit.yamlx"


@pytest.mark.parametrize("size", SIZES)
async def test_keys_name_the_path_edited_but_not_opened(
    decided_run: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(decided_run, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot)
        field = screen.query_one("#file", Input)
        field.focus()
        await pilot.press("ctrl+u", *"other.yaml")
        assert field.value == "other.yaml"
        for key in ("ctrl+g", "ctrl+r", "ctrl+o"):
            await pilot.press(key)
            await settle(pilot)
            assert summary(screen) == "press Enter to open other.yaml first", key
        assert screen._control is None, "no run started on the audit the field no longer shows"
        # The field emptied and the screen left: shown again, the open audit's path is back.
        await pilot.press("ctrl+u")
        field = await reopened(pilot, screen)
        assert field.value == "audit.yaml" and app.focused is field
        assert gates_shown(screen)


@pytest.mark.parametrize("size", SIZES)
async def test_a_file_not_opened_leaves_no_gates_behind(
    decided_run: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(decided_run, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot)
        field = screen.query_one("#file", Input)
        field.focus()
        await pilot.press("ctrl+u", *"missing.yaml", "enter")
        await wait_for(pilot, lambda: summary(screen).startswith("error:"), "the error")
        await settle(pilot)
        assert screen.plan is None and not gates_shown(screen)
        await pilot.press("ctrl+g")
        assert summary(screen) == OPEN_FIRST
        assert screen._control is None
        field = await reopened(pilot, screen)
        assert field.value == "" and not gates_shown(screen)
        # None open, the audits recorded here are listed, the newest under the focus for Enter.
        recorded = screen.query_one("#recorded", OptionList)
        await wait_for(pilot, lambda: app.focused is recorded, "the list", lambda: shown(app))
        assert recorded.option_count == 1 and recorded.highlighted == 0


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
async def test_keys_while_the_file_is_read_say_so(
    decided_run: Path, held_plan: HeldPlan, size: tuple[int, int]
) -> None:
    app = DiptychApp(decided_run, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        try:
            screen = await open_audit(pilot)
            await pilot.press(*"audit.yaml", "enter")
            await wait_for(pilot, held_plan.entered.is_set, "the reading")
            for key in ("ctrl+g", "ctrl+r", "ctrl+o"):
                await pilot.press(key)
                await settle(pilot)
                assert summary(screen).startswith("reading audit.yaml…"), key
            assert screen._control is None
        finally:
            held_plan.release.set()
        await wait_for(pilot, lambda: screen.plan is not None, "the plan")

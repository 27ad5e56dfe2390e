"""The Audit screen opened with audits recorded in the workspace lists them with the newest
under the focus, highlighted, so that Enter opens it: on the screen's first showing, on its
showing again after an audit was recorded meanwhile, and with the path's field in focus (its
Enter, the path empty, opens the row shown). At 80×24 and 60×20."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from steps import SIZE, SIZES, open_audit, settle, shown, wait_for
from textual.pilot import Pilot
from textual.widgets import Input, OptionList

from diptych.audit import run_audit
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit import AuditScreen


async def record_audit() -> None:
    """``diptych audit run audit.yaml`` in the working directory (``audit_dir``)."""
    with Workspace.open(Path(".diptych")) as ws:
        await run_audit(ws, Path("audit.yaml"))


async def listed_under_focus(pilot: Pilot[Any]) -> AuditScreen:
    """The Audit screen ``A`` opens, once its list of recorded audits has the focus."""
    app = pilot.app
    screen = await open_audit(pilot, lambda: shown(app))
    recorded = screen.query_one("#recorded", OptionList)
    await wait_for(pilot, lambda: app.focused is recorded, "the list in focus", lambda: shown(app))
    await settle(pilot)
    assert recorded.display and recorded.option_count == 1
    assert recorded.highlighted == 0, "the newest audit highlighted for Enter"
    return screen


async def enter_opens_it(pilot: Pilot[Any], screen: AuditScreen) -> None:
    await pilot.press("enter")
    app = pilot.app
    await wait_for(pilot, lambda: screen.plan is not None, "the audit opened", lambda: shown(app))
    assert screen.plan is not None and screen.plan.audit.name == "tui-audit"
    assert screen.query_one("#file", Input).value == "audit.yaml"


@pytest.mark.parametrize("size", SIZES)
async def test_enter_opens_the_newest_recorded_audit(
    audit_dir: Path, size: tuple[int, int]
) -> None:
    await record_audit()
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await listed_under_focus(pilot)
        await enter_opens_it(pilot, screen)


@pytest.mark.parametrize("size", SIZES)
async def test_an_audit_recorded_since_the_last_visit_is_listed_for_enter(
    audit_dir: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot, lambda: shown(app))
        await wait_for(pilot, lambda: "no audit recorded here yet" in shown(app), "none yet")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, AuditScreen), "back")
        await record_audit()
        again = await listed_under_focus(pilot)
        assert again is screen  # the screen is installed once: shown again, not made anew
        await enter_opens_it(pilot, screen)


@pytest.mark.parametrize("size", SIZES)
async def test_enter_in_the_empty_path_opens_the_row_shown(
    audit_dir: Path, size: tuple[int, int]
) -> None:
    await record_audit()
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await listed_under_focus(pilot)
        field = screen.query_one("#file", Input)
        field.focus()
        await wait_for(pilot, lambda: app.focused is field, "the path's field in focus")
        await enter_opens_it(pilot, screen)


async def test_ctrl_o_with_no_audit_open_asks_to_open_one(audit_dir: Path) -> None:
    """The recorded audit has a report, but none is open: ^o says to open one, never "no
    report yet", which reads as if the audit listed had none."""
    await record_audit()
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    opened: list[str] = []
    app.open_url = lambda url, **_: opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        screen = await listed_under_focus(pilot)
        await pilot.press("ctrl+o")
        said = "open an audit first (type its path, or choose one recorded here)"
        await wait_for(pilot, lambda: said in shown(app), "the words", lambda: shown(app))
        assert "no report yet" not in shown(app) and opened == []
        await enter_opens_it(pilot, screen)


@pytest.mark.parametrize("size", SIZES)
async def test_each_key_with_no_audit_open_asks_to_open_one_in_the_same_words(
    audit_dir: Path, size: tuple[int, int]
) -> None:
    """^r, ^g and ^o with nothing open say one thing: a recorded audit opens from the list as
    well as by its path, whichever key is pressed."""
    await record_audit()
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    app.open_url = lambda url, **_: None  # type: ignore[method-assign]
    said = "open an audit first (type its path, or choose one recorded here)"
    async with app.run_test(size=size) as pilot:
        screen = await listed_under_focus(pilot)
        for key in ("ctrl+r", "ctrl+g", "ctrl+o"):
            screen._say("")
            await pilot.press(key)
            await wait_for(pilot, lambda: said in _flat(shown(app)), key, lambda: shown(app))
            assert "audit file first" not in shown(app)


def _flat(text: str) -> str:
    """The screen's text read across the ends of its lines (a sentence wraps at 60 columns)."""
    return " ".join(text.split())

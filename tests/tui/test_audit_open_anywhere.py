"""A recorded audit opens on the Audit screen from any directory: its file is recorded by its
full path when it runs, and where the file is gone the audit opens from the text the
workspace recorded, the screen saying so in one line."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from steps import open_audit, wait_for
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static

from diptych.audit import run_audit
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit import AuditScreen


async def run_from(where: Path, file: str, store: Path) -> str:
    """Run the audit as ``diptych audit run FILE`` would from ``where``; its record's id."""
    here = Path.cwd()
    try:
        os.chdir(where)
        with Workspace.open(store) as ws:
            outcome = await run_audit(ws, Path(file))
    finally:
        os.chdir(here)
    return outcome.audit_id


async def pick_recorded(pilot: Pilot[Any]) -> AuditScreen:
    """Open the Audit screen with an empty path and Enter the newest recorded audit."""
    screen = await open_audit(pilot)
    listed = screen.query_one("#recorded")
    await wait_for(pilot, lambda: listed.display and listed.has_focus, "the recorded audits")
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen.plan is not None, "the plan", lambda: summary(screen))
    await pilot.pause()
    return screen


def summary(screen: AuditScreen) -> str:
    # As read, the line's wrapping undone.
    return " ".join(str(screen.query_one("#summary", Static).render()).split())


def statuses(screen: AuditScreen) -> list[str]:
    table = screen.query_one("#parts", DataTable)
    return [str(table.get_row_at(i)[-1]) for i in range(table.row_count)]


async def test_an_audit_run_from_a_subdirectory_opens_from_the_root(audit_dir: Path) -> None:
    sub = audit_dir / "sub"
    sub.mkdir()
    audit_id = await run_from(sub, "../audit.yaml", audit_dir / ".diptych")
    with Workspace.open(audit_dir / ".diptych") as ws:
        recorded = ws.audits.get(audit_id).file_path
    # Recorded by its full path, not as typed in the subdirectory.
    assert recorded == str((audit_dir / "audit.yaml").resolve())
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await pick_recorded(pilot)
        # Shown as a user would type it from here.
        assert screen.query_one("#file", Input).value == "audit.yaml"
        assert "error" not in summary(screen) and "file moved" not in summary(screen)
        assert "8 trials planned, 8 already stored, 0 requests to run" in summary(screen)
        assert statuses(screen) == ["complete", "complete"]


async def test_an_audit_whose_file_is_gone_opens_from_its_recorded_text(
    audit_dir: Path,
) -> None:
    audit_id = await run_from(audit_dir, "audit.yaml", audit_dir / ".diptych")
    (audit_dir / "audit.yaml").unlink()
    with Workspace.open(audit_dir / ".diptych") as ws:
        created = ws.audits.get(audit_id).created_at
    day = time.strftime("%Y-%m-%d", time.localtime(created))
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await pick_recorded(pilot)
        said = summary(screen)
        assert said.startswith(f"file moved; showing the text recorded on {day} · tui-audit: ")
        assert "8 trials planned, 8 already stored, 0 requests to run" in said
        assert statuses(screen) == ["complete", "complete"]
        # Run again from the recorded text: the same audit (its id), nothing left to buy.
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: "audit complete" in summary(screen), "the run")
        assert "every trial was stored already" in summary(screen)
    with Workspace.open(audit_dir / ".diptych") as ws:
        assert [a.id for a in ws.audits.list()] == [audit_id]


@pytest.mark.parametrize("moved", [False, True])
def test_a_path_recorded_relative_is_found_where_its_text_still_is(
    audit_dir: Path, moved: bool
) -> None:
    # A record an earlier diptych made, its path as typed in the directory the audit ran in.
    from diptych.core.audit.schema import file_hash

    text = (audit_dir / "audit.yaml").read_text()
    with Workspace.open(audit_dir / ".diptych") as ws:
        ws.audits.begin("a-1", "tui-audit", file_hash(text), "audit.yaml", text)
        if moved:  # another file of that name here: not the text that ran
            (audit_dir / "audit.yaml").write_text(text + "# edited\n")
        found = ws.audits.file(ws.audits.get("a-1"))
    assert found == (None if moved else (audit_dir / "audit.yaml").resolve())

"""ctrl+g on an audit its whole design stored already: the Audit screen's stop line says the
gated design's requests were read from the store and nothing was bought, never that they were
bought, nor "after" them as if the look had bought them."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from audit_fixtures import audit_workdir, open_planned, planted_audit
from steps import settle, wait_for
from textual.widgets import Static

from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp


@pytest.fixture
def audit_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An audit file in a temporary directory, the one the app is run from."""
    with audit_workdir(tmp_path, monkeypatch, planted_audit("tui-stored")) as path:
        yield path


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_until_decided_on_a_stored_design_says_it_read_it_and_bought_none(
    audit_dir: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_planned(pilot)
        summary = screen.query_one("#summary", Static)
        # Run whole first (ctrl+r), then until decided: every request is stored.
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: "audit complete" in str(summary.render()), "the run")
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: "stopped: " in str(summary.render()), "the stop line")
        # The line's new height is laid out on the next refresh, not with its text.
        await settle(pilot)
        text = str(summary.render())
        words = " ".join(text.split())
        # Read whole above the footer, the screen itself not scrolled.
        assert summary.region.height == len(text.split("\n"))
        assert summary.region.bottom <= screen.query_one("KeysFooter").region.y
        assert screen.max_scroll_y == 0
    with Workspace.open(audit_dir / ".diptych") as ws:
        (run,) = ws.runs.list()
        held = len(ws.runs.view(run.run.id).results)
    said = (
        f"stopped: every gate decided; read {held} of {held} requests (100.0%) from the store, "
        "nothing bought"
    )
    assert said in words, words
    assert "decided after" not in words, words


async def test_ctrl_g_right_after_a_run_says_its_end_starts_at_once(
    audit_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the screen says the audit ended, ^g starts the next run, though the last run's
    thread has not yet returned (held here on purpose until ^g is read, as a busy machine may
    hold it): never "the audit is running" over a line that says it is complete."""
    from diptych.tui.jobs import JobControl

    detach = JobControl.detach
    read = threading.Event()

    def slow_detach(self: JobControl) -> None:
        read.wait(timeout=60)
        detach(self)

    monkeypatch.setattr(JobControl, "detach", slow_detach)
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_planned(pilot)
        summary = screen.query_one("#summary", Static)
        await pilot.press("ctrl+r")
        try:
            await wait_for(pilot, lambda: "audit complete" in str(summary.render()), "the run")
            await pilot.press("ctrl+g")
            said = str(summary.render())
        finally:
            read.set()
        assert "the audit is running" not in said, said
        await wait_for(pilot, lambda: "stopped: " in str(summary.render()), "the stop line")

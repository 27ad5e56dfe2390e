"""An audit made on the command line (``diptych run --gate --until-decided``), decided at its
first look, then bought on by a plain run of its design and interrupted, as the Audit screen
opens it at 80×24 and 60×20: its list line and its part's row say what ``diptych audit list``
says ("interrupted", never "decided at look 1"), its summary says it was made on the command
line (no file ever moved), and its gate names its interval as ``diptych audit gate`` does."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from steps import SIZES, settle, shown, surface, wait_for
from surface import region_lines, screen_lines, visible_widgets
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import OptionList, Static

from diptych.cli.signals import settle_stopped
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit import AuditScreen
from diptych.tui.widgets.fit_table import FitTable
from tests.support.cli import call
from tests.support.sequential_audits import FIGURE

pytestmark = [pytest.mark.surface, pytest.mark.usefixtures("scripted_plugin")]

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]
DESIGN = ["pst-text", "-m", "scripted-likelihood", "-M", "latency=0.01", "-p", "setting=both",
          "-p", "masculine=" + ",".join(MASC), "-p", "feminine=" + ",".join(FEM)]  # fmt: skip


class _FirstTrials:
    """A Reporter that says when a few trials have finished."""

    def __init__(self) -> None:
        self.some = asyncio.Event()
        self.finished = 0

    def __getattr__(self, name: str) -> Any:  # every other Reporter call is ignored
        return lambda *args, **kwargs: None

    def trial_finished(self, model_id: str, status: str, error: str | None) -> None:
        self.finished += 1
        if self.finished >= 3:
            self.some.set()


def _interrupt(ws: str, run_id: str) -> None:
    """Buy on the decided run as ``diptych resume`` does, stopped (Ctrl-C) after a few trials."""
    with Workspace.open(ws) as opened:
        reporter = _FirstTrials()

        async def stop_early() -> None:
            task = asyncio.create_task(opened.runs.resume(run_id, reporter=reporter))
            await reporter.some.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(stop_early())
        settle_stopped(opened, run_id)


@pytest.fixture
def bought_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    """The workspace, decided, bought on and interrupted; ``diptych audit list``'s line of it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    ws = str(tmp_path / ".diptych")
    code, out = call(capsys, "--store", ws, "run", *DESIGN, "--gate", f"{FIGURE} below 60",
                     "--until-decided", "--batches", "4")  # fmt: skip
    said = re.search(r"^run (\S+) decided at look 1 of 4: ", out, re.M)
    assert code == 0 and said is not None, out
    _interrupt(ws, said[1])
    code, out = call(capsys, "--store", ws, "audit", "list")
    assert code == 0, out
    (line,) = out.strip().splitlines()
    yield line


@pytest.mark.parametrize("size", SIZES)
async def test_a_command_line_audit_bought_on_reads_as_audit_list_says(
    bought_on: str, size: tuple[int, int]
) -> None:
    # "run-pst-text-…  interrupted sha256 …  pst-text interrupted"
    listed = re.fullmatch(r"(\S+)\s+(\S+)\s+sha256 \S+\s+(\S+) (\S+)", bought_on)
    assert listed is not None, bought_on
    audit_id, status, part, part_status = listed.groups()
    assert status == part_status == "interrupted", bought_on
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await pilot.press("A")
        await wait_for(pilot, lambda: isinstance(app.screen, AuditScreen), "the screen")
        screen = app.screen
        assert isinstance(screen, AuditScreen)
        recorded = screen.query_one("#recorded", OptionList)
        await wait_for(pilot, lambda: recorded.display and recorded.option_count == 1, "the list")
        line = str(recorded.get_option_at_index(0).prompt)
        assert f" · {status} · (command line)" in line, line
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(screen.gates) and part in screen.status, "the gates")
        await settle(pilot)
        # The part's row in the words of `audit list`: its run was bought on past look 1.
        assert screen.status == {part: part_status}, screen.status
        # Made on the command line: no file to have moved.
        summary = " ".join(str(screen.query_one("#summary", Static).render()).split())
        with Workspace.open(".diptych") as ws:
            day = time.strftime("%Y-%m-%d", time.localtime(ws.audits.get(audit_id).created_at))
        assert summary.startswith(
            "made on the command line by diptych run --gate; showing the definition recorded "
            f"on {day} · "
        ), summary
        assert "file moved" not in summary
        # The gate's interval named as `diptych audit gate` names it: anytime-valid, at the
        # look its gates were decided at.
        (gate,) = screen.gates
        assert gate.kind == "anytime-valid"
        gates = screen.query_one("#gates", FitTable)
        named = "anytime-valid interval, look 1 of 4"
        assert gates.headers[3:6] == ["value", named, "level"], gates.headers
        drawn = [named, gate.interval]
        assert await _read_down(pilot, gates, drawn) == [], shown(app)
        assert await surface(pilot, leave=("ctrl+r", "ctrl+g", "ctrl+o", "escape")) == [], shown(
            app
        )


async def _read_down(pilot: Pilot[Any], widget: Widget, values: list[str]) -> list[str]:
    """The ``values`` never drawn whole in ``widget`` read down its rows inside its frame (a
    header wrapped over lines reads whole), Down pressed until each has been."""
    seen: set[str] = set()
    for _ in range(40):
        region = dict(visible_widgets(pilot.app)).get(widget)
        if region is not None:
            rows = region_lines(screen_lines(pilot.app), region)
            drawn = " ".join(" ".join(r.strip(" │╭╮╰╯─") for r in rows).split())
            seen.update(v for v in values if v in drawn)
        if len(seen) == len(values):
            break
        await pilot.press("down")
        await pilot.pause()
    return [f"{v!r} never drawn whole" for v in values if v not in seen]

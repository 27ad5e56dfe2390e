"""An audit made on the command line (``diptych run --gate --until-decided``), decided at its
first look, then bought on by a plain run of its design and interrupted, as the Audit screen
opens it at 80×24 and 60×20: its list line and its part's row say what ``diptych audit list``
says ("interrupted", and bought on since its look, never "decided at look 1" alone), its
summary says it was made on the command line (no file ever moved), and its gate names its
interval as ``diptych audit gate`` does."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from steps import (
    SIZES,
    open_audit,
    open_recorded_audit,
    resume_question,
    settle,
    shown,
    surface,
    wait_for,
)
from surface import region_lines, screen_lines, visible_widgets
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import OptionList, Static

from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit.rows import gate_bounds
from diptych.tui.widgets.fit_table import FitTable
from tests.support.cli import call
from tests.support.sequential_audits import decided_at_first_look
from tests.support.stopped_runs import bought_on_and_interrupted

pytestmark = [pytest.mark.surface, pytest.mark.usefixtures("scripted_plugin")]


@pytest.fixture
def bought_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, Any]]:
    """The workspace, decided, bought on and interrupted; ``diptych audit list``'s record of it."""
    monkeypatch.chdir(tmp_path)
    ws = str(tmp_path / ".diptych")
    bought_on_and_interrupted(ws, decided_at_first_look(capsys, ws, "-M", "latency=0.01"))
    code, out = call(capsys, "--store", ws, "audit", "list", "--json")
    assert code == 0, out
    (listed,) = json.loads(out)
    yield listed


@pytest.mark.parametrize("size", SIZES)
async def test_a_command_line_audit_bought_on_reads_as_audit_list_says(
    bought_on: dict[str, Any], size: tuple[int, int]
) -> None:
    audit_id, status = bought_on["id"], bought_on["status"]
    ((part, part_status),) = [(p["name"], p["status"]) for p in bought_on["parts"]]
    assert status == part_status == "interrupted", bought_on
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        recorded = screen.query_one("#recorded", OptionList)
        await wait_for(pilot, lambda: recorded.display and recorded.option_count == 1, "the list")
        line = str(recorded.get_option_at_index(0).prompt)
        assert f" · {status} · (command line)" in line, line
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(screen.gates) and part in screen.status, "the gates")
        await settle(pilot)
        # The part's row in the words of `audit list` and of every listing of its run: it
        # was bought on past look 1, and stopped.
        with Workspace.open(".diptych") as ws:
            words = ws.runs.status_text(ws.audits.get(audit_id).parts[0].run_id or "")
        assert words.startswith(f"{part_status}: decided at look 1 of 4, bought on since: ")
        assert screen.status == {part: words}, screen.status
        # Made on the command line: no file to have moved.
        summary = " ".join(str(screen.query_one("#summary", Static).render()).split())
        with Workspace.open(".diptych") as ws:
            day = time.strftime("%Y-%m-%d", time.localtime(ws.audits.get(audit_id).created_at))
        # Interrupted, as `audit list` says it, and what runs it on, before where it came from.
        assert summary.startswith(
            "audit interrupted: ^r runs it on from where it stopped "
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
        # In the bracket form of every interval on the screen.
        drawn = [named, gate_bounds(gate)]
        assert await _read_down(pilot, gates, drawn) == [], shown(app)
        assert await surface(pilot, leave=("ctrl+r", "ctrl+g", "ctrl+o", "escape")) == [], shown(
            app
        )


async def test_ctrl_r_asks_of_it_as_decided_not_interrupted(bought_on: dict[str, Any]) -> None:
    """Its gates stopped it, a user stopped its buying on: ctrl+r's question names where its
    gates decided it and what it holds since, as ``diptych audit run`` asks, never
    "interrupted" beside "its gates were decided"."""

    with Workspace.open(".diptych") as ws:
        run_id = ws.audits.get(bought_on["id"]).parts[0].run_id or ""
        est = ws.runs.plan_resume(run_id)
    with sqlite3.connect(Path(".diptych") / "diptych.db") as db:
        held, planned = db.execute(
            "SELECT COUNT(DISTINCT r.key), COUNT(DISTINCT t.key) FROM trials t"
            " LEFT JOIN results r ON r.key = t.key WHERE t.run_id = ?",
            (run_id,),
        ).fetchone()
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_recorded_audit(pilot)
        text = await resume_question(pilot)
        await pilot.press("n")
        await settle(pilot)
    assert text.startswith(
        f"{run_id} is decided at look 1 of 4, bought on since: {held:,} of {planned:,} "
        f"requests stored, {planned - held:,} pending; its gates were decided on the trials "
        f"bought. Resuming buys the remaining {est.to_run:,} requests"
    ), text
    assert "interrupted" not in text, text


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

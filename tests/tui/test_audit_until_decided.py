"""The Audit screen bought until decided (ctrl+g): the gates table updated after every batch with
its anytime-valid intervals, and the stop reason and savings under the parts."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from audit_fixtures import audit_workdir, planted_audit
from steps import open_audit
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit import AuditScreen
from diptych.tui.screens.runs.detail import RunDetailScreen
from diptych.tui.screens.runs.screen import RunsScreen
from diptych.tui.widgets.tables import ListTable


@pytest.fixture
def audit_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    with audit_workdir(tmp_path, monkeypatch, planted_audit("tui-seq")) as path:
        yield path


async def wait_for(
    pilot: Pilot[Any], condition: Callable[[], bool], what: str, seen: list[str]
) -> None:
    """Wait for ``condition``, noting each gates note the screen shows on the way."""
    deadline = time.monotonic() + 60
    while not condition():
        screen = pilot.app.screen
        if isinstance(screen, AuditScreen) and (not seen or seen[-1] != screen.gates_note):
            seen.append(screen.gates_note)
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}: {seen} {_said(pilot)}")
        await pilot.pause(0.02)


async def test_until_decided_shows_each_look_and_the_stop(audit_dir: Path) -> None:
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    seen: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_audit(pilot, seen)
        await pilot.press(*"audit.yaml", "enter")
        await wait_for(pilot, lambda: screen.plan is not None, "the plan", seen)
        await pilot.press("ctrl+g")
        summary = screen.query_one("#summary", Static)
        await wait_for(pilot, lambda: screen.report is not None, "the report", seen)
        await pilot.pause()
        text = str(summary.render())
        # The audit's status as `diptych audit list` says it: the look and what stopping
        # early saved, once, then why it stopped.
        line = " ".join(text.split())
        said = re.search(r"audit decided at look \d+ of 10: ([\d,]+) of 144 requests, ", line)
        assert said is not None, line
        bought = int(said[1].replace(",", ""))
        assert bought < 144, line
        assert f"requests, {144 - bought:,} saved · cost " in line, line
        assert "· stopped: every gate decided ·" in line, line
        # The gates as the last look decided them, its interval the anytime-valid one.
        (gate,) = screen.gates
        assert gate.verdict == "pass" and gate.label == "below 75"
        # One row of gates a look, each interval inside the last: they narrow batch by batch.
        assert len(screen.looks) >= 2 and screen.looks[-1][0].verdict == "pass"
        widths = [_width(look[0].interval) for look in screen.looks]
        assert widths == sorted(widths, reverse=True)
        assert "its intervals are the anytime-valid ones" in screen.gates_note
        # The part's row agrees with the status line: decided, at the look that decided it,
        # and what stopping there saved (each batch a tenth of the 144 requests, rounded up).
        parts = screen.query_one("#parts", DataTable)
        looks = len(screen.looks)
        bought = -(-looks * 144 // 10)
        assert " ".join(str(parts.get_row_at(0)[-1]).split()) == (
            f"decided at look {looks} of 10: {bought} of 144 requests, {144 - bought} saved"
        )
        # The Runs screen names the run decided, and under the table what stopping saved.
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, RunsScreen), "runs", seen)
        runs = pilot.app.screen
        assert isinstance(runs, RunsScreen)
        await pilot.press("f5")
        await wait_for(pilot, lambda: bool(runs.rows), "the runs", seen)
        await pilot.pause()
        (row,) = runs.rows.values()
        assert row.run.status == "decided"
        assert "decided" in str(runs.query_one(ListTable).get_row_at(0))
        selected = str(runs.query_one("#selected", Static).render())
        assert f"decided at look {looks} of 10: {bought} of 144 requests, {144 - bought} saved" \
            in selected  # fmt: skip
        assert "interrupted" not in selected
        # Its Run detail: decided, the look and the saving, its untried trials not bought.
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, RunDetailScreen), "detail", seen)
        summary = pilot.app.screen.query_one("#summary", Static)
        await wait_for(pilot, lambda: "decided at look" in str(summary.render()), "words", seen)
        # Read as drawn: each count is joined to its label by a no-break space.
        text = str(summary.render()).replace("\u00a0", " ")
        assert f"not bought {144 - bought}" in text and "pending" not in text


def _width(interval: str) -> float:
    low, high = (float(x) for x in interval.split(" to "))
    return high - low


def _said(pilot: Pilot[Any]) -> str:
    screen = pilot.app.screen
    if not isinstance(screen, AuditScreen):
        return ""
    return str(screen.query_one("#summary", Static).render())


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_the_stop_line_whole_and_the_rows_as_recorded(
    audit_dir: Path, size: tuple[int, int]
) -> None:
    """The stop line is read whole under the tables at both sizes (they scroll, it does not);
    opened again, the rows say what the run said: the look the part stopped at, and the search
    no gate reads "not run"."""
    data = yaml.safe_load((audit_dir / "audit.yaml").read_text())
    data["searches"] = [{"name": "identities", "kind": "identities", "target": "t",
                         "agent_model": "t", "probe": "pst-text", "rounds": 1, "per_round": 2,
                         "max_requests": 40}]  # fmt: skip
    (audit_dir / "audit.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    seen: list[str] = []
    said: list[str] = []
    for opened in range(2):
        app = DiptychApp(Path(".diptych"), refresh_interval=3600)
        async with app.run_test(size=size) as pilot:
            screen = await open_audit(pilot, seen)
            await pilot.press(*"audit.yaml", "enter")
            await wait_for(pilot, lambda s=screen: s.plan is not None, "the plan", seen)
            parts = screen.query_one("#parts", DataTable)
            if opened == 0:
                await pilot.press("ctrl+g")
                await wait_for(pilot, lambda s=screen: s.report is not None, "report", seen)
                await pilot.pause()
                summary = screen.query_one("#summary", Static)
                text = str(summary.render())
                words = " ".join(text.split())
                assert "stopped: every gate decided · " in words and words.endswith("(^o)")
                # Every line of it on the screen, above the footer; the screen itself not
                # scrolled (the tables scroll in their own room).
                assert summary.region.height == len(text.split("\n")) <= 4
                footer = screen.query_one("KeysFooter").region
                assert summary.region.bottom <= footer.y
                assert screen.max_scroll_y == 0
            else:
                await wait_for(pilot, lambda t=parts: "not run" in _rows(t)[-1], "rows", seen)
            rows = _rows(parts)
            assert rows[-1].endswith("not run")
            said.append(" ".join(rows[0].rsplit("status: ", 1)[-1].split()))
            assert "decided at look " in rows[0] and rows[0].endswith(" saved")
    # The same look after the run and when opened again.
    assert said[0] == said[1]


def _rows(table: DataTable[Any]) -> list[str]:
    return [" ".join(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]

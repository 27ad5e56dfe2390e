"""The Audit screen while ``ctrl+g`` buys until decided, at 80×24 and 60×20: after a look its
gates left inconclusive, the note under the gates says that look's result and the batch being
bought next, "look 1 of 10: inconclusive; buying batch 2 of 10", and nothing on the screen
says the audit stopped while its next batch is still being bought."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from audit_fixtures import audit_workdir, planted_audit
from steps import open_audit, wait_for
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit import AuditScreen
from diptych.tui.screens.audit.decided import look_note


@pytest.fixture
def audit_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    data = planted_audit("tui-look")
    # Each call a little slow: the screen is read while a batch is being bought.
    data["models"]["t"]["params"]["latency"] = 0.3
    with audit_workdir(tmp_path, monkeypatch, data) as path:
        yield path


def _report(*verdicts: str) -> Any:
    return SimpleNamespace(results=[SimpleNamespace(verdict=v) for v in verdicts])


def test_a_look_says_its_result_and_the_batch_bought_next() -> None:
    assert look_note(1, 10, _report("inconclusive")) == (
        "look 1 of 10: inconclusive; buying batch 2 of 10"
    )
    assert look_note(2, 10, _report("pass", "inconclusive")) == (
        "look 2 of 10: 1 of 2 gates decided; buying batch 3 of 10"
    )
    assert look_note(3, 10, _report("pass", "fail")) == "look 3 of 10: every gate decided"
    # The last batch read: nothing is left to buy.
    assert look_note(10, 10, _report("inconclusive")) == "look 10 of 10: inconclusive"


def _capped(capped: dict[str, int], *gates: tuple[str, str]) -> Any:
    results = [SimpleNamespace(part=part, verdict=v) for part, v in gates]
    return SimpleNamespace(results=results, capped=capped, sequential=None)


def test_a_look_whose_share_of_the_level_is_spent_says_it_buys_the_rest() -> None:
    spent = "the looks' share of the level is spent: the next decision is at the whole design"
    # Every undecided part capped: the rest of their designs, 40 + 2 requests, at once.
    both = _capped({"a": 40, "b": 2}, ("a", "inconclusive"), ("b", "inconclusive"))
    assert look_note(2, 10, both) == (
        f"look 2 of 10: inconclusive; {spent}, buying the rest (42 requests)"
    )
    # One of two: the other part buys its next batch; the capped one is named.
    one = _capped({"a": 1}, ("a", "inconclusive"), ("b", "inconclusive"))
    assert look_note(2, 10, one) == (
        f"look 2 of 10: inconclusive; buying batch 3 of 10; a: {spent}, buying the rest (1 request)"
    )
    # A capped part whose gates are decided buys nothing more: nothing said of it.
    decided = _capped({"a": 40}, ("a", "pass"), ("b", "inconclusive"))
    assert look_note(2, 10, decided) == "look 2 of 10: 1 of 2 gates decided; buying batch 3 of 10"


def _on_screen(screen: AuditScreen) -> str:
    """Every word the screen shows: its lines and its tables' cells."""
    said = [str(w.render()) for w in screen.query(Static) if w.display]
    for table in screen.query(DataTable):
        said += [str(c) for i in range(table.row_count) for c in table.get_row_at(i)]
    return " ".join(" ".join(said).replace("\u00a0", " ").split())


async def _running_screens(pilot: Pilot[Any], screen: AuditScreen) -> list[str]:
    """The screen at every refresh from ``ctrl+g`` until the audit has its report."""
    seen: list[str] = []
    deadline = time.monotonic() + 60
    while screen.report is None:
        text = _on_screen(screen)
        # The run's end said before its report is written is the end, not a batch running:
        # its stop line, or the gates' line that names what stopping saved, whichever is
        # drawn first.
        if "stopped: every gate decided" in text or " saved" in text:
            break
        if not seen or seen[-1] != text:
            seen.append(text)
        assert time.monotonic() < deadline, seen[-1]
        await pilot.pause(0.01)
    return seen


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_no_refresh_says_stopped_while_a_batch_is_bought(
    audit_dir: Path, size: tuple[int, int]
) -> None:
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        await pilot.press(*"audit.yaml", "enter")
        await wait_for(pilot, lambda: screen.plan is not None, "the plan")
        await pilot.press("ctrl+g")
        seen = await _running_screens(pilot, screen)
        # The run's end says why it stopped, once it has.
        await wait_for(
            pilot, lambda: "stopped: every gate decided" in _on_screen(screen), "the stop line"
        )
    assert [s for s in seen if "stopped" in s] == []
    assert any("look 1 of 10: inconclusive; buying batch 2 of 10" in s for s in seen), seen

"""Quitting while the Audit screen's audit buys stops it at once and says so: the run is
``interrupted`` with its unbought trials pending, none ``failed``, as a Ctrl-C of ``diptych run``
leaves it; and the app waits for that, never exits leaving a run buying in its thread."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from steps import open_audit, shown, wait_for
from textual.widgets import Input

from diptych.core.audit import record
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from tests.support.cli import call
from tests.support.other_process import name_process, other_process
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def stored(ws: Path) -> dict[str, int]:
    """The outcome counts of the workspace's one run (none yet: {})."""
    if not (ws / "diptych.db").exists():
        return {}
    with Workspace.open(ws) as opened:
        runs = opened.runs.list()
        return dict(runs[0].counts) if runs else {}


async def test_quitting_while_an_audit_buys_stops_it_interrupted_with_no_failed_trial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    # Slow on purpose: one call at a time, 50 ms each, hundreds of trials.
    planted_audit(tmp_path / "slow.yaml", [{"part": "pst-text", "figure": FIGURE, "below": 60}],
                  MASC, FEM, name="slow", seed=0,
                  model_params={"latency": 0.05, "max_concurrency": 1})  # fmt: skip
    ws = tmp_path / ".diptych"
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    heard: list[str] = []
    notify = app.notify

    def hearing(message: str, **options: Any) -> None:
        heard.append(message)
        notify(message, **options)

    app.notify = hearing  # type: ignore[method-assign]
    async with app.run_test() as pilot:
        screen = await open_audit(pilot)
        await pilot.press(*"slow.yaml", "enter")
        await wait_for(pilot, lambda: screen.plan is not None, "the plan", lambda: shown(app))
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: stored(ws).get("done", 0) >= 5, "a few trials bought")
        assert not isinstance(app.focused, Input)
        await pilot.press("q")
        await wait_for(pilot, lambda: bool(heard), "the stop said")
    assert heard[0] == "stopping the run; its trials so far are kept"
    # The app exited once the audit's thread had stored the run's status.
    assert screen._control is not None and screen._control.finished.is_set()
    with Workspace.open(ws) as opened:
        (run,) = opened.runs.list()
    assert run.run.status == "interrupted", run.counts
    assert run.counts["failed"] == 0 and run.counts["pending"] > 0, run.counts
    left = run.counts["pending"]
    # Nothing buys on after the exit.
    with Workspace.open(ws) as opened:
        assert opened.runs.counts(run.run.id)["pending"] == left

    # The audit is recorded as its run was left, never "running" with nothing running it.
    (listed,) = json.loads(call(capsys, "--store", str(ws), "audit", "list", "--json")[1])
    assert listed["status"] == "interrupted", listed

    # A record some process left "running" with its part's run (killed before it wrote its
    # status) reads as that run is stored.
    with other_process() as other:
        killed = other.named
    with open_store(ws) as store:
        rec = record.get_audit(store, listed["id"])
        assert rec is not None
        record.begin(store, rec.id, rec.name, rec.file_hash, rec.file_path, rec.file_text)
        part = record.PartRecord(0, "pst-text", "probe", run.run.id, "running", None)
        record.save_part(store, rec.id, part)
        name_process(store, rec.id, killed)
        assert record.get_audit(store, rec.id).status == "running"  # type: ignore[union-attr]
    (listed,) = json.loads(call(capsys, "--store", str(ws), "audit", "list", "--json")[1])
    assert listed["status"] == "interrupted", listed

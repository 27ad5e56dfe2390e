"""The Audit screen's ctrl+g on an audit whose search ran whole before keeps the search: its row
says "reused" with the session it keeps, as ``diptych audit list`` does, never "not run", and
the report the run writes keeps its findings."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from audit_fixtures import FIGURE, audit_workdir, open_planned, planted_audit
from steps import wait_for
from textual.widgets import DataTable

from diptych.audit import run_audit
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp


@pytest.fixture
def searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An audit with a gated part and an identity search, run whole once."""
    from diptych.agent import session
    from diptych.agent.audit_search import run_search
    from diptych.agent.memory import HashingEmbedder

    monkeypatch.setattr(session, "SentenceEmbedder", HashingEmbedder)
    data = planted_audit(
        "tui-reused",
        models={"agent": {"plugin": "scripted-chat"}},
        searches=[{"name": "identities", "kind": "identities", "target": "t",
                   "agent_model": "agent", "rounds": 1, "per_round": 1, "patience": 0}],
        gates=[{"part": "pst-text", "figure": FIGURE, "below": 95}],
    )  # fmt: skip
    with audit_workdir(tmp_path, monkeypatch, data):
        with Workspace.open(tmp_path / ".diptych") as ws:
            whole = asyncio.run(run_audit(ws, "audit.yaml", searches=run_search))
        assert whole.status == "complete"
        yield tmp_path


async def test_until_decided_keeps_a_search_run_whole_before(searched: Path) -> None:
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_planned(pilot)
        await pilot.press("ctrl+g")
        parts = screen.query_one("#parts", DataTable)
        assert screen.plan is not None
        kept = f"reused (session audit-{screen.plan.id}-identities)"
        await wait_for(
            pilot, lambda: _rows(parts)[-1].endswith(kept), "rows", lambda: repr(_rows(parts))
        )
        await wait_for(pilot, lambda: screen.report is not None, "the report")
        assert "not run" not in _rows(parts)[-1]
    report = json.loads(Path(str(screen.report)).read_text(encoding="utf-8"))
    assert [s["session"] for s in report["agent_findings"]["sessions"]] == [
        f"audit-{report['scope']['audit_id']}-identities"
    ]


def _rows(table: DataTable[Any]) -> list[str]:
    return [" ".join(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]

"""The Audit screen's ctrl+g on an audit whose search ran whole before keeps the search: its row
says "complete, reused", never "not run", and the report the run writes keeps its findings."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from steps import open_audit, wait_for
from textual.widgets import DataTable

import diptych.testing
from diptych.audit import run_audit
from diptych.core import plugins
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp

FIGURE = "STS paired (expected from P(he), P(she))"
MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]


@pytest.fixture
def searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An audit with a gated part and an identity search, run whole once."""
    from diptych.agent import session
    from diptych.agent.audit_search import run_search
    from diptych.agent.memory import HashingEmbedder

    plugins.load_plugins()
    name = plugins.register_plugin(diptych.testing, "testing")
    monkeypatch.setattr(session, "SentenceEmbedder", HashingEmbedder)
    monkeypatch.chdir(tmp_path)
    planted = {**dict.fromkeys(MASC, 0.2), **dict.fromkeys(FEM, 0.8)}
    data = {
        "name": "tui-reused",
        "seed": 1,
        "models": {"t": {"plugin": "scripted-likelihood",
                         "params": {"p_feminine": planted, "noise": 0.3}},
                   "agent": {"plugin": "scripted-chat"}},
        "probes": [{"probe": "pst-text", "models": ["t"],
                    "params": {"masculine": MASC, "feminine": FEM, "setting": "paired"}}],
        "searches": [{"name": "identities", "kind": "identities", "target": "t",
                      "agent_model": "agent", "rounds": 1, "per_round": 1, "patience": 0}],
        "report": {"formats": ["json"]},
        "gates": [{"part": "pst-text", "figure": FIGURE, "below": 95}],
    }  # fmt: skip
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    with Workspace.open(tmp_path / ".diptych") as ws:
        whole = asyncio.run(run_audit(ws, "audit.yaml", searches=run_search))
    assert whole.status == "complete"
    yield tmp_path
    plugins.unregister_plugin(name)


async def test_until_decided_keeps_a_search_run_whole_before(searched: Path) -> None:
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_audit(pilot)
        await pilot.press(*"audit.yaml", "enter")
        await wait_for(pilot, lambda: screen.plan is not None, "the plan")
        await pilot.press("ctrl+g")
        parts = screen.query_one("#parts", DataTable)
        await wait_for(pilot, lambda: _rows(parts)[-1].endswith("complete, reused"), "rows")
        await wait_for(pilot, lambda: screen.report is not None, "the report")
        assert "not run" not in _rows(parts)[-1]
    report = json.loads(Path(str(screen.report)).read_text(encoding="utf-8"))
    assert [s["session"] for s in report["agent_findings"]["sessions"]] == [
        f"audit-{report['scope']['audit_id']}-identities"
    ]


def _rows(table: DataTable[Any]) -> list[str]:
    return [" ".join(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]

"""A part that waits its turn behind another part of a running audit reads "waiting" on the
Audit screen, as ``diptych audit list`` says it at the same moment (one function words both:
:func:`~diptych.audit.status_words.audit_words`), never "planned" or "not run": while another
process runs the audit (here after ``--until-decided`` decided its gated part), and while the
screen's own ctrl+r runs it. A search that finished says it has nothing left to run, never
"≥ 0"."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from steps import open_audit, shown, wait_for

from diptych.audit.placebo_plan import NOTHING_LEFT
from diptych.audit.status_words import WAITING
from diptych.core.audit import record
from diptych.core.store import open_store
from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit import AuditScreen
from diptych.tui.widgets.fit_table import FitTable
from tests.support.cli import call, cli
from tests.support.other_process import name_process, other_process
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")


@pytest.fixture
def searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``a.yaml`` here: a gated pst-text part and an identity search no gate reads."""
    from diptych.agent import session
    from diptych.agent.memory import HashingEmbedder

    monkeypatch.setattr(session, "SentenceEmbedder", HashingEmbedder)
    monkeypatch.chdir(tmp_path)
    search = {"name": "identities", "kind": "identities", "target": "target",
              "agent_model": "agent", "rounds": 1, "per_round": 1, "patience": 0}  # fmt: skip
    gates = [{"part": "pst-text", "figure": FIGURE, "below": 95}]
    planted = {**dict.fromkeys(MASC, 0.2), **dict.fromkeys(FEM, 0.8)}
    target = {"plugin": "scripted-likelihood", "params": {"p_feminine": planted, "noise": 0.3}}
    return planted_audit(
        tmp_path / "a.yaml", gates, MASC, FEM, name="waits", seed=2,
        models={"target": target, "agent": {"plugin": "scripted-chat"}}, searches=[search],
    )  # fmt: skip


def _listed() -> dict[str, object]:
    """The audit as ``diptych audit list --json`` lists it now (its output captured by the
    runner: the app under test holds the process's own)."""
    said = cli("--store", ".diptych", "audit", "list", "--json")
    assert said.exit_code == 0, said.output
    (audit,) = json.loads(said.output)
    return dict(audit)


def _cell(screen: AuditScreen, part: str, column: str) -> str:
    parts = screen.query_one("#parts", FitTable)
    (row,) = [cells for key, cells in parts.source if key == part]
    return str(row[list(parts.headers).index(column)])


@pytest.fixture
def decided(searched: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The audit bought until decided from the CLI: its search left for a run of it whole."""
    code, out = call(capsys, "--store", ".diptych", "audit", "run", str(searched), "--quiet",
                     "--until-decided", "--batches", "4")  # fmt: skip
    assert code == 0, out
    return searched


async def test_a_part_waiting_on_another_process_reads_waiting(
    decided: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    searched = decided
    with other_process() as other:
        # Another process runs the audit whole now: its search has not had its turn yet.
        with open_store(Path(".diptych")) as store:
            (rec,) = record.list_audits(store)
            record.begin(store, rec.id, rec.name, rec.file_hash, rec.file_path, rec.file_text)
            name_process(store, rec.id, other.named)
        listed = _listed()
        assert listed["waiting"] == ["identities"] and listed["not_run"] == [], listed
        app = DiptychApp(Path(".diptych"), refresh_interval=3600)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_audit(pilot)
            await pilot.press(*searched.name, "enter")
            await wait_for(pilot, lambda: screen.plan is not None, "the plan", lambda: shown(app))
            await pilot.pause()
            assert screen.status["identities"] == WAITING, screen.status
            assert _cell(screen, "identities", "status") == "waiting"


async def test_ctrl_r_says_a_part_waits_as_audit_list_does(
    searched: Path, capsys: pytest.CaptureFixture[str], held: threading.Event
) -> None:
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_audit(pilot)
        await pilot.press(*searched.name, "enter")
        await wait_for(pilot, lambda: screen.plan is not None, "the plan", lambda: shown(app))
        await pilot.pause()
        assert screen.status.get("identities", "planned") == "planned"  # no run recorded yet
        await pilot.press("ctrl+r")
        try:
            # The probe part holds its third call: it runs, and the search waits its turn.
            await wait_for(pilot, lambda: screen.status.get("pst-text") == "running", "running")
            await wait_for(pilot, lambda: screen.status.get("identities") == WAITING,
                           "the search waiting", lambda: repr(screen.status))  # fmt: skip
            listed = _listed()
            assert listed["waiting"] == ["identities"], listed
            await pilot.pause()
            assert _cell(screen, "identities", "status") == "waiting"
        finally:
            held.set()
        await wait_for(pilot, lambda: screen.report is not None, "the report", lambda: shown(app))
        await wait_for(pilot, lambda: screen.status.get("identities") == "complete", "the end",
                       lambda: repr(screen.status))  # fmt: skip
        await pilot.pause()
        # Finished, the search has nothing left to run: a run of the audit keeps it.
        assert _cell(screen, "identities", "requests to run") == NOTHING_LEFT == "nothing left"
        assert _listed()["waiting"] == []

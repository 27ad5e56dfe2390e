"""ctrl+r on the Audit screen redraws what a part's finish changed as soon as it finishes, while
the audit runs on: its requests left to run and its gates as the store holds them, never the
counts and the look from before the run until the whole audit ends. Here an audit decided at
look 1 by ``audit run --until-decided`` is bought whole: its probe part completes (its gates
read a last look at the whole design) while its agent search still runs."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import yaml
from steps import SIZES, open_audit, settle, shown, surface, wait_for
from textual.widgets import Static

import diptych.agent.audit_search as audit_search
from diptych.audit import plan_audit
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit.rows import look_of
from diptych.tui.screens.runs.confirm import ConfirmResume
from diptych.tui.widgets.fit_table import FitTable
from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC

pytestmark = [pytest.mark.surface, pytest.mark.usefixtures("scripted_plugin")]


def _audit(path: Path) -> Path:
    probe = {"masculine": MASC, "feminine": FEM, "setting": "paired"}
    search = {"name": "identities", "kind": "identities", "target": "target"}
    search |= {"agent_model": "agent", "rounds": 1, "per_round": 1}
    data = {
        "name": "refresh",
        "seed": 0,
        "models": {
            "target": {"plugin": "scripted-likelihood"},
            "agent": {"plugin": "scripted-chat"},
        },
        "probes": [{"probe": "pst-text", "models": ["target"], "params": probe}],
        "searches": [search],
        "report": {"formats": ["json"]},
        "gates": [{"part": "pst-text", "figure": FIGURE, "below": 60}],
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _store(file: Path) -> tuple[str, str]:
    """The probe part's requests left to run and its gates' look, as the store holds them."""
    with Workspace.open(".diptych") as ws:
        plan = plan_audit(ws, file)
        look = look_of(ws.audits.gates(file))
    (probe,) = [p for p in plan.parts if p.part.name == "pst-text"]
    assert probe.estimate is not None
    return f"{probe.estimate.to_run:,}", look


@pytest.fixture
def decided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Path:
    """The audit file here, its gates decided at look 1 of 4 in the workspace ``.diptych``."""
    monkeypatch.chdir(tmp_path)
    file = _audit(tmp_path / "refresh.yaml")
    code, out = call(capsys, "--store", ".diptych", "audit", "run", str(file),
                     "--until-decided", "--batches", "4")  # fmt: skip
    assert code == 0 and "decided" in out, out
    return file


@pytest.mark.parametrize("size", SIZES)
async def test_a_part_finished_redraws_its_counts_and_gates_while_the_audit_runs_on(
    decided: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    file = decided
    before = _store(file)
    assert before[1] == "look 1 of 4" and before[0] != "0", before

    # The agent's search, held until the test has read the screen.
    searching, release = threading.Event(), threading.Event()

    def held_search(*args: Any, **kwargs: Any) -> dict[str, Any]:
        searching.set()
        assert release.wait(120), "the search was never released"
        return {"spent": 0.0, "stop_reason": "rounds"}

    monkeypatch.setattr(audit_search, "run_search", held_search)
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        await pilot.press(*file.name, "enter")
        await wait_for(pilot, lambda: bool(screen.gates) and screen.plan is not None, "the plan")
        parts = screen.query_one("#parts", FitTable)
        column = list(parts.headers).index("requests to run")

        def drawn() -> tuple[str, str]:
            (row,) = [cells for key, cells in parts.source if key == "pst-text"]
            return row[column], screen.query_one("#gates", FitTable).headers[4]

        assert drawn() == (before[0], "anytime-valid interval, look 1 of 4"), drawn()
        await settle(pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmResume), "the question")
        await pilot.press("y")
        try:
            await wait_for(pilot, searching.is_set, "the search under way", lambda: shown(app))
            after = _store(file)
            assert after == ("0", "the whole design read at look 2"), after
            await wait_for(
                pilot,
                lambda: drawn() == (after[0], f"anytime-valid interval, {after[1]}"),
                "the counts and gates of the part finished",
                lambda: f"{drawn()} {shown(app)}",
            )
            # Its row names the look at the whole design as every surface does, never "look 2
            # of 4" (as if half the design were bought).
            await wait_for(
                pilot,
                lambda: screen.status["pst-text"] == f"complete: {after[1]}",
                "the part's row at its last look",
                lambda: repr(screen.status),
            )
        finally:
            release.set()
        await wait_for(pilot, lambda: "audit complete" in str(
            screen.query_one("#summary", Static).render()), "the audit's end",
            lambda: shown(app))  # fmt: skip
        assert screen.status["pst-text"] == f"complete: {after[1]}", screen.status
        keys = ("ctrl+r", "ctrl+g", "ctrl+o", "escape")
        assert await surface(pilot, leave=keys) == [], shown(app)

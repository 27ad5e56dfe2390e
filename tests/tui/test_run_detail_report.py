"""The report Run detail writes (`w`) is the one ``diptych report RUN`` writes: of a decided
audit's run, the audit's report, titled by the audit, with its gates and the intervals they
decided on, named, and the command that buys nothing again."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from steps import SIZE, write_report

import diptych.testing
from diptych.audit import run_audit
from diptych.core import plugins
from diptych.core.report.formatting import figure_text
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from tests.support.cli import cli
from tests.support.sequential_audits import FIGURE, planted_audit

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer", "driver", "sheriff"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher", "baker", "clerk"]


@pytest.fixture(autouse=True)
def testing_plugins() -> object:
    plugins.load_plugins()
    name = plugins.register_plugin(diptych.testing, "testing")
    yield
    plugins.unregister_plugin(name)


def _said(report: Path) -> list[str]:
    """The report's Markdown without the date it was written (the two are minutes apart), its
    own folder's name (where its commands run from) as one word."""
    text = (report / "report.md").read_text(encoding="utf-8")
    text = text.replace(f"runs from `{report.name}/`", "runs from `FOLDER/`")
    return [line for line in text.splitlines() if not re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", line)]


def _decided_audit(store: Path, path: Path) -> tuple[str, Any]:
    with Workspace.open(store) as ws:
        outcome = asyncio.run(
            run_audit(ws, path, out_dir=Path("rep"), until_decided=True, batches=4)
        )
        assert outcome.status == "decided"
        (decided,) = ws.audits.gates(outcome.audit_id).results
        return outcome.parts[0].run_id or "", decided


async def test_the_tui_writes_the_report_diptych_report_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = {"part": "pst-text", "figure": FIGURE, "below": 95, "name": "far"}
    path = planted_audit(tmp_path / "a.yaml", [gate], MASC, FEM, name="seq", seed=11)
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "ws"
    # Off this test's event loop, which the audit's engine cannot share.
    run_id, decided = await asyncio.to_thread(_decided_audit, store, path)

    done = await asyncio.to_thread(cli, "--store", str(store), "report", run_id, "--out", "cli")
    assert done.exit_code == 0, done.output

    app = DiptychApp(store, refresh_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await write_report(pilot, run_id, tmp_path / "tui")

    tui, by_cli = _said(tmp_path / "tui"), _said(tmp_path / "cli")
    assert tui == by_cli
    # The TUI hands a whole path: the folder is named from where the app was started.
    page = (tmp_path / "tui" / "report.md").read_text(encoding="utf-8")
    assert "Every command below runs from `tui/`, this report's folder" in page
    # What that report is: the audit's, its gate decided on the anytime-valid interval.
    assert tui[0].startswith("# Audit seq (a.yaml): 1 of 1 gate passes")
    data = json.loads((tmp_path / "tui" / "report.json").read_text(encoding="utf-8"))
    (said,) = data["gates"]["gates"]
    assert said["kind"] == "anytime-valid"
    assert said["interval"] == f"{figure_text(decided.ci_low)} to {figure_text(decided.ci_high)}"
    assert any("anytime-valid interval, look" in line and FIGURE in line for line in tui)
    assert any(line.startswith("diptych --store ../ws audit run ../a.yaml") for line in tui)

"""ctrl+r on the Audit screen while another live process runs the audit starts no second buyer:
one line says who runs it, whole at 80x24 and 60x20, and no trial is bought."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from steps import SIZES, open_audit, shown, wait_for
from surface_text import cut_text
from textual.widgets import OptionList, Static

from diptych.core.audit import record
from diptych.core.store import open_store
from diptych.core.store.leases import host_name
from diptych.tui.app import DiptychApp
from tests.support.cli import call
from tests.support.other_process import name_process, other_process
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")


@pytest.fixture
def recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> dict[str, object]:
    """The workspace ``.diptych`` here, holding an audit bought until decided: its listing."""
    monkeypatch.chdir(tmp_path)
    gates = [{"part": "pst-text", "figure": FIGURE, "below": 95}]
    file = planted_audit(tmp_path / "a.yaml", gates, MASC, FEM, name="held", seed=2)
    code, out = call(capsys, "--store", ".diptych", "audit", "run", str(file), "--quiet",
                     "--until-decided", "--batches", "4")  # fmt: skip
    assert code == 0, out
    (audit,) = json.loads(call(capsys, "--store", ".diptych", "audit", "list", "--json")[1])
    return dict(audit)


@pytest.mark.parametrize("size", SIZES)
async def test_ctrl_r_refuses_while_another_process_runs_the_audit(
    recorded: dict[str, object], size: tuple[int, int]
) -> None:
    audit_id = str(recorded["id"])
    (part,) = recorded["parts"]  # type: ignore[misc]
    with other_process() as other:
        with open_store(Path(".diptych")) as store:
            (rec,) = record.list_audits(store)
            record.begin(store, rec.id, rec.name, rec.file_hash, rec.file_path, rec.file_text)
            name_process(store, rec.id, other.named)
            before = store.status_counts(part["run_id"])
        held = (
            f"not started: another process (pid {other.proc.pid} on {host_name()}) is running "
            f"audit {audit_id}; run it again here once that has stopped"
        )
        app = DiptychApp(Path(".diptych"), refresh_interval=3600)
        async with app.run_test(size=size) as pilot:
            screen = await open_audit(pilot)
            listed = screen.query_one("#recorded", OptionList)
            await wait_for(pilot, lambda: listed.display and listed.option_count == 1, "list")
            await pilot.press("enter")
            await wait_for(pilot, lambda: screen.plan is not None and bool(screen.status), "plan")
            await pilot.press("ctrl+r")
            summary = screen.query_one("#summary", Static)

            def said() -> bool:
                return " ".join(str(summary.render()).split()) == held

            await wait_for(pilot, said, "the refusal", lambda: shown(app))
            # Said, then laid out at its new height by a later refresh: waited for whole.
            await wait_for(pilot, lambda: not cut_text(app, summary), "the refusal drawn whole",
                           lambda: "; ".join(cut_text(app, summary)))  # fmt: skip
            assert screen._control is None  # no run started
        with open_store(Path(".diptych")) as store:
            assert store.status_counts(part["run_id"]) == before

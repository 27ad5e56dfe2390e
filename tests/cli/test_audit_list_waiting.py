"""A part of a running audit that has not started, for it waits its turn behind the part being
run, reads "waiting" in ``audit list``'s table and JSON — not "not run", which says no run of
the audit will reach it, and never "complete"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from diptych.core.audit import record
from diptych.core.audit.record import PartRecord
from diptych.core.store import open_store
from tests.support.cli import call
from tests.support.other_process import name_process, other_process
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_a_part_waiting_its_turn_reads_waiting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    gates = [{"part": "pst-text", "figure": FIGURE, "below": 95}]
    path = planted_audit(tmp_path / "a.yaml", gates, MASC, FEM, name="turns", seed=2)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["models"]["agent"] = {"plugin": "scripted-chat"}
    data["searches"] = [{"name": "identities", "kind": "identities", "target": "target",
                         "agent_model": "agent"}]  # fmt: skip
    text = yaml.safe_dump(data, sort_keys=False)
    path.write_text(text, encoding="utf-8")
    ws = tmp_path / "ws"

    with other_process() as other, open_store(ws) as store:
        # The audit running in that process: its first part started, its search not yet.
        record.begin(store, "turns-0123456789", "turns", "0" * 64, str(path), text)
        part = PartRecord(0, "pst-text", "probe", None, "running", None, {})
        record.save_part(store, "turns-0123456789", part)
        name_process(store, "turns-0123456789", other.named)

        code, out = call(capsys, "--store", str(ws), "audit", "list", "--json")
        assert code == 0, out
        (audit,) = json.loads(out)
        assert audit["status_text"] == "running", audit
        assert audit["not_run"] == [] and audit["waiting"] == ["identities"], audit
        code, table = call(capsys, "--store", str(ws), "audit", "list")
        row = next(line for line in table.splitlines() if "turns-0123456789" in line)
        # Each part in its own state: the one running, the one waiting its turn.
        assert " ".join(row.split()).endswith("pst-text running, identities waiting"), table
        assert "not run" not in table and "complete" not in table, table

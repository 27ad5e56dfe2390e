"""An audit's report is recorded where it is, not as the path was typed: ``--out`` relative to
the directory the audit ran in is found again by ``audit gate``, an export and the terminal app
from any other directory; a relative path an earlier version recorded is found from the
workspace's directory, else named in one line that says what to do."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from diptych.audit import run_audit
from diptych.core.errors import UsageError
from diptych.core.store import Store
from diptych.core.workspace import Workspace
from tests.support.sequential_audits import FIGURE, planted_audit

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer", "driver", "sheriff"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher", "baker", "clerk"]


def _decided_audit(tmp_path: Path, calls: Path) -> tuple[Path, Path, str]:
    """A gated audit bought until decided from ``tmp_path/ran``, its report written to the
    relative ``reproduced-audit`` there (as the report's reproduce command prints it)."""
    gate = {"part": "pst-text", "figure": FIGURE, "below": 95, "name": "far"}
    path = planted_audit(tmp_path / "a.yaml", [gate], MASC, FEM, name="seq", seed=11,
                         model_params={"calls_log": str(calls), "max_concurrency": 1})  # fmt: skip
    store = tmp_path / "ws"
    with Workspace.open(store) as ws:
        outcome = asyncio.run(
            run_audit(ws, path, out_dir=Path("reproduced-audit"), until_decided=True, batches=4)
        )
    assert outcome.status == "decided"
    return path, store, outcome.audit_id


def test_a_report_written_to_a_relative_out_is_found_from_another_directory(
    tmp_path: Path, calls: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "ran").mkdir()
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "ran")
    path, store, audit_id = _decided_audit(tmp_path, calls)
    written = tmp_path / "ran" / "reproduced-audit" / "report.json"
    assert written.is_file()
    monkeypatch.chdir(tmp_path / "elsewhere")
    with Workspace.open(store) as ws:
        rec = ws.audits.get(audit_id)
        assert rec.report == str(written.resolve())
        assert ws.audits.report_path(rec) == written.resolve()
        (result,) = ws.audits.gates(path).results
        assert result.verdict == "pass"
        # The export takes the report's directory with it.
        assert ws.bundles.scope(audit_id)[2] == written.parent.resolve()


def test_a_relative_report_path_of_an_earlier_version_is_found_or_named(
    tmp_path: Path, calls: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An earlier version recorded ``--out`` as typed; from the workspace's directory (where
    ``diptych`` usually runs) it is found; from elsewhere one line says what to do."""
    monkeypatch.chdir(tmp_path)
    _, store, audit_id = _decided_audit(tmp_path, calls)
    kept = Store(store)  # the record as an earlier version left it
    with kept.transaction() as db:
        db.execute("UPDATE audits SET report = ? WHERE id = ?",
                   ("reproduced-audit/report.json", audit_id))  # fmt: skip
    kept.close()
    with Workspace.open(store) as ws:
        rec = ws.audits.get(audit_id)
        (tmp_path / "elsewhere").mkdir()
        monkeypatch.chdir(tmp_path / "elsewhere")
        # ws/ sits in tmp_path, beside reproduced-audit: found from the workspace's directory.
        assert (
            ws.audits.report_path(rec) == (tmp_path / "reproduced-audit" / "report.json").resolve()
        )
        (tmp_path / "reproduced-audit" / "report.json").rename(tmp_path / "moved.json")
        with pytest.raises(UsageError) as caught:
            ws.audits.report_path(rec)
    said = str(caught.value)
    assert "\n" not in said
    assert "'reproduced-audit/report.json'" in said and "run the audit again" in said

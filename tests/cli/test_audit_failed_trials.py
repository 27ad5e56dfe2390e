"""An audit whose part's run ends with failed trials (its model failed some requests) is not
complete: it is recorded ``incomplete``, and ``audit run``'s last line, ``audit list`` and its
report say how many trials failed and what asks them again; running the audit again asks them
again and then records it complete."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.failing_audits import fail_on_nurses, failing_audit, mend

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_an_audit_with_failed_trials_is_incomplete_everywhere_until_run_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    ws, file = str(tmp_path / "ws"), str(failing_audit(tmp_path / "audit.yaml"))
    fail_on_nurses(monkeypatch)

    code, out = call(capsys, "--store", ws, "audit", "run", file, "--quiet")
    assert code == 1, out
    (rec,) = json.loads(call(capsys, "--store", ws, "audit", "list", "--json")[1])
    (run_id,) = [p["run_id"] for p in rec["parts"]]
    assert rec["status"] == "incomplete" and rec["parts"][0]["status"] == "incomplete", rec
    code, listed = call(capsys, "--store", ws, "runs", "--json")
    failed = next(r for r in json.loads(listed) if r["id"] == run_id)["counts"]["failed"]
    assert failed > 0
    said = (
        f"incomplete: {failed:,} trials failed; diptych resume {run_id} or running the audit "
        "again asks them again"
    )
    assert f"audit {rec['id']} {said}; cost " in " ".join(out.split()), out
    assert rec["status_text"] == said
    code, table = call(capsys, "--store", ws, "audit", "list")
    assert said in " ".join(table.split()), table
    report = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert (
        f"{failed:,} trials failed, so the design is not complete: diptych resume {run_id} "
        "asks them again."
    ) in " ".join(report.split())
    assert json.loads((tmp_path / "report" / "report.json").read_text())["scope"]["failed"] == {
        run_id: failed
    }

    # The model mended, the audit run again asks the failed trials again and is complete.
    mend(monkeypatch)
    code, out = call(capsys, "--store", ws, "audit", "run", file, "--quiet")
    assert code == 0, out
    assert f"audit {rec['id']} complete: cost " in out, out
    (rec,) = json.loads(call(capsys, "--store", ws, "audit", "list", "--json")[1])
    assert rec["status"] == rec["status_text"] == "complete", rec
    report = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert "failed, so the design is not complete" not in report

"""A printed ``diptych report`` command names exactly what its report reported: the audit
whose gates it kept (``--audit ID``), or none (``--audit none``). Pasted later, after another
gated run recorded the same run under a newer audit, it writes the same report — the same runs,
fingerprints and gates — not the newer audit's."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import FIGURE, decided_at_first_look, design
from tests.support.surfaces.reproduce import printed_commands

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _covered(report: Path) -> dict[str, Any]:
    """What a report covers: its runs with their fingerprints, its audit and its gates' rules."""
    data = json.loads((report / "report.json").read_text(encoding="utf-8"))
    gates = (data.get("gates") or {}).get("gates") or []
    return {
        "runs": sorted((r["run"], r["fingerprint"]) for r in data["runs"]),
        "audit": (data.get("scope") or {}).get("audit_id"),
        "gates": [(g["figure"], g["rule"]) for g in gates],
    }


def _pasted(capsys: pytest.CaptureFixture[str], report: Path, mp: pytest.MonkeyPatch) -> Path:
    """The report's ``diptych report`` command pasted in its folder; the folder it wrote."""
    printed = printed_commands((report / "report.md").read_text(encoding="utf-8"))
    (command,) = [c for c in printed if " report " in c]
    words = shlex.split(command)
    mp.chdir(report)
    code, out = call(capsys, *words[1:])
    assert code == 0, out
    return report / words[words.index("--out") + 1]


def test_a_gated_runs_report_command_keeps_its_audit_after_a_later_gated_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    run_id = decided_at_first_look(capsys, "ws")
    code, out = call(capsys, "--store", "ws", "report", run_id, "-o", "rep")
    assert code == 0, out
    first = _covered(tmp_path / "rep")
    assert first["gates"] == [(FIGURE, "below 60")] and first["audit"], first
    # Another gated run of the same design: the same run, recorded under a newer audit.
    code, out = call(capsys, "--store", "ws", "run", *design(), "--gate", f"{FIGURE} below 90",
                     "--until-decided", "--batches", "4")  # fmt: skip
    assert code == 0 and f"run {run_id} decided" in out, out
    assert _covered(_pasted(capsys, tmp_path / "rep", monkeypatch)) == first


def test_a_plain_runs_report_command_stays_plain_after_a_later_gated_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out = call(capsys, "--store", "ws", "run", *design(), "--quiet")
    assert code == 0, out
    code, out = call(capsys, "--store", "ws", "runs", "--json")
    (run_id,) = [r["id"] for r in json.loads(out)]
    code, out = call(capsys, "--store", "ws", "report", run_id, "-o", "rep")
    assert code == 0, out
    first = _covered(tmp_path / "rep")
    assert first["gates"] == [] and first["audit"] is None, first
    code, out = call(capsys, "--store", "ws", "run", *design(), "--gate", f"{FIGURE} below 90")
    assert code == 0, out
    code, out = call(capsys, "--store", "ws", "report", run_id, "-o", "newest")
    assert _covered(tmp_path / "newest")["gates"], "the run is now a gated audit's"
    assert _covered(_pasted(capsys, tmp_path / "rep", monkeypatch)) == first


def test_an_audit_the_report_cannot_keep_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    run_id = decided_at_first_look(capsys, "ws")
    code, out = call(capsys, "--store", "ws", "report", run_id, "-o", "a", "--audit", "nope")
    assert code == 2 and "no recorded audit 'nope'" in out, out
    assert len([line for line in out.splitlines() if line.strip()]) == 1, out
    code, out = call(capsys, "--store", "ws", "report", run_id, "-o", "b", "--audit", "none")
    assert code == 0, out
    assert _covered(tmp_path / "b")["gates"] == []

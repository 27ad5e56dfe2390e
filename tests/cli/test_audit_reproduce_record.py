"""An audit's report reproduced by its own printed command (pasted from the report's directory)
writes the report again where the command says and leaves the audit's record as it was: ``audit
list --json`` still names the original report, and the copy reports the same runs by the same
fingerprints. A rerun that asks something records the report it writes."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit
from tests.support.surfaces.reproduce import printed_commands

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _listed(capsys: pytest.CaptureFixture[str], store: Path) -> list[dict[str, Any]]:
    code, out = call(capsys, "--store", str(store), "audit", "list", "--json")
    assert code == 0, out
    listed: list[dict[str, Any]] = json.loads(out)
    return listed


def _fingerprints(report: Path) -> dict[str, str]:
    data = json.loads((report / "report.json").read_text(encoding="utf-8"))
    return {run["run"]: run["fingerprint"] for run in data["runs"]}


@pytest.mark.parametrize("decided", [False, True], ids=["whole", "until-decided"])
def test_pasting_the_printed_command_keeps_the_recorded_report(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    decided: bool,
) -> None:
    monkeypatch.chdir(tmp_path)
    gate = {"part": "pst-text", "figure": FIGURE, "below": 95}
    planted_audit(tmp_path / "a.yaml", [gate], MASC, FEM, name="kept", seed=3,
                  report={"formats": ["json", "md"]})  # fmt: skip
    how = ["--until-decided", "--batches", "4"] if decided else []
    code, out = call(capsys, "--store", "ws", "audit", "run", "a.yaml", "--out", "first", *how)
    assert code == 0, out
    original = (tmp_path / "first").resolve()
    (before,) = _listed(capsys, tmp_path / "ws")
    assert before["report"] == str(original / "report.json")

    (again,) = [
        c
        for c in printed_commands((original / "report.md").read_text(encoding="utf-8"))
        if " audit run " in c
    ]
    words = shlex.split(again)
    assert words[0] == "diptych"
    monkeypatch.chdir(original)
    code, out = call(capsys, *words[1:])
    assert code == 0, out
    written = original / words[words.index("--out") + 1]
    assert (written / "report.json").is_file(), out

    (after,) = _listed(capsys, tmp_path / "ws")
    assert after["report"] == before["report"], "reproducing re-pointed the audit's record"
    assert after["status"] == before["status"]
    assert after["parts"] == before["parts"]
    assert _fingerprints(written) == _fingerprints(original)


def test_a_rerun_that_asks_something_records_its_own_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Decided early, then run whole: the rest of the design is bought, so the report it
    writes is the audit's new one."""
    monkeypatch.chdir(tmp_path)
    gate = {"part": "pst-text", "figure": FIGURE, "below": 95}
    planted_audit(tmp_path / "a.yaml", [gate], MASC, FEM, name="grown", seed=3,
                  report={"formats": ["json", "md"]})  # fmt: skip
    decided = ["--until-decided", "--batches", "4"]
    code, out = call(capsys, "--store", "ws", "audit", "run", "a.yaml", "--out", "early", *decided)
    assert code == 0, out
    code, out = call(capsys, "--store", "ws", "audit", "run", "a.yaml", "--out", "whole", "--yes")
    assert code in (0, 1), out
    (after,) = _listed(capsys, tmp_path / "ws")
    assert after["report"] == str((tmp_path / "whole" / "report.json").resolve())

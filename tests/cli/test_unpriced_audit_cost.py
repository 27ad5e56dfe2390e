"""An audit of a model with no price whose every request fails says "not priced" wherever the CLI
says its cost, never "$0.00" (which would read as calls priced that came to nothing): the dry
run, the run's last line, the listings, ``show``, a resume and every report file."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from diptych.testing import ScriptedLikelihood
from tests.support.cli import call
from tests.support.failing_audits import failing_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")


async def _rejected(
    self: ScriptedLikelihood, prompt: str, candidates: Sequence[str]
) -> dict[str, float]:
    raise ValueError("The server rejected the request (404): model not found")


def test_every_command_says_an_unpriced_failing_audit_is_not_priced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    monkeypatch.setattr(ScriptedLikelihood, "next_token_logprobs", _rejected)
    ws, file = str(tmp_path / "ws"), str(failing_audit(tmp_path / "audit.yaml"))
    said: dict[str, str] = {}

    code, said["audit run --dry-run"] = call(capsys, "--store", ws, "audit", "run", file,
                                             "--dry-run")  # fmt: skip
    assert "estimated not priced" in said["audit run --dry-run"]
    code, out = call(capsys, "--store", ws, "audit", "run", file, "--quiet")
    said["audit run"] = out
    assert code == 1, out
    # Every request failed: none answered, and none priced.
    assert "; cost not priced; 0 requests answered now; report " in " ".join(out.split()), out
    (rec,) = json.loads(call(capsys, "--store", ws, "audit", "list", "--json")[1])
    (run_id,) = [p["run_id"] for p in rec["parts"]]
    assert rec["parts"][0]["detail"]["counts"]["done"] == 0, rec  # every request failed
    assert rec["parts"][0]["cost"] is None, rec
    report = ["report", run_id, "--out", str(tmp_path / "rep"), "--format", "md,json"]
    for command in (["audit", "list"], ["audit", "check", file], ["runs"], ["runs", "--json"],
                    ["show", run_id], ["resume", run_id], report):  # fmt: skip
        said[" ".join(command)] = call(capsys, "--store", ws, *command)[1]
    # The run's own report, the audit's and their JSON.
    for folder in ("rep", "report"):
        for name in ("report.md", "report.json"):
            said[f"{folder}/{name}"] = (tmp_path / folder / name).read_text(encoding="utf-8")
    assert "| not priced | not priced |" in said["report/report.md"], said["report/report.md"]
    assert "· not priced." in said["report/report.md"]
    for where, text in said.items():
        assert "$0.00" not in text, (where, text)

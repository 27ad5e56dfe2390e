"""An audit decided at its first look, then run whole while its model fails every request (the
Audit screen's ctrl+r on it): its design is not complete. ``diptych audit gate`` says how many
trials failed and the command that asks them again, never "its complete design"; ``diptych
standings`` ranks the run with a note of how many of its trials it rests on."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from diptych.audit import run_audit
from diptych.core.workspace import Workspace
from diptych.testing import ScriptedLikelihood
from tests.support.cli import call
from tests.support.sequential_audits import decided_at_first_look

pytestmark = pytest.mark.usefixtures("scripted_plugin")


async def _broken(self: ScriptedLikelihood, prompt: str, candidates: Sequence[str]) -> None:
    raise ValueError("the backend crashed")


def test_a_decided_audit_run_whole_with_failures_is_not_called_complete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws)
    monkeypatch.setattr(ScriptedLikelihood, "next_token_logprobs", _broken)
    with Workspace.open(ws) as opened:
        (audit,) = opened.audits.list()
        asyncio.run(run_audit(opened, audit, out_dir=tmp_path / "report"))
        counts = opened.runs.counts(run_id)
        assert opened.runs.get(run_id).status == "incomplete"
    failed, total = counts["failed"], sum(counts.values())
    assert failed > 0 and counts["pending"] == 0, counts

    code, out = call(capsys, "--store", ws, "audit", "gate", audit.id)
    said = " ".join(out.split())
    assert "complete design" not in said and "the design was complete" not in said, out
    assert (
        f"its design is not complete: {failed:,} trials failed (diptych resume {run_id} asks "
        "them again)"
    ) in said, out

    code, out = call(capsys, "--store", ws, "standings")
    assert code == 0, out
    said = " ".join(out.split())
    assert (
        f"ranked on {total - failed:,} of {total:,} trials ({failed:,} failed; diptych resume "
        f"{run_id} asks them again)"
    ) in said, out

"""``diptych audit run FILE --dry-run --until-decided`` in a workspace where a run of the same
design left failed trials: the whole design is the design's distinct requests and "stored" the
ones with an answer, as in a clean workspace; a failed request is neither bought twice in the
count nor stored (a resume asks it again)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from diptych.testing import ScriptedLikelihood
from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")

WHOLE = re.compile(r"the whole design ([\d,]+) requests(?:, ([\d,]+) stored)?")


def whole_design(out: str) -> tuple[int, int]:
    """The dry run's "the whole design N requests, M stored" (M 0 where it says none)."""
    found = WHOLE.search(" ".join(out.split()))
    assert found is not None, out
    return int(found[1].replace(",", "")), int((found[2] or "0").replace(",", ""))


def test_a_run_left_with_failed_trials_changes_neither_the_design_nor_what_is_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    monkeypatch.chdir(tmp_path)
    ws = str(tmp_path / "ws")
    audit = planted_audit(tmp_path / "audit.yaml", [{"part": "pst-text", "figure": FIGURE,
                          "below": 60}], MASC, FEM, name="failing", seed=0)  # fmt: skip
    dry = ["--store", ws, "audit", "run", str(audit), "--dry-run", "--until-decided"]
    code, out = call(capsys, *dry)
    assert code == 0, out
    design, stored = whole_design(out)
    assert stored == 0 < design

    answered = ScriptedLikelihood.next_token_logprobs

    async def nurses_fail(
        self: ScriptedLikelihood, prompt: str, candidates: Sequence[str]
    ) -> dict[str, float]:
        if "nurse" in prompt:
            raise ValueError("the backend crashed")
        return await answered(self, prompt, candidates)

    monkeypatch.setattr(ScriptedLikelihood, "next_token_logprobs", nurses_fail)
    code, out = call(capsys, "--store", ws, "audit", "run", str(audit))
    monkeypatch.setattr(ScriptedLikelihood, "next_token_logprobs", answered)
    with Workspace.open(ws) as opened:
        (summary,) = opened.runs.list()
        view = opened.runs.view(summary.run.id)
        keys = {t.key for t in view.trials}
        done = sum(1 for k in keys if k in view.results and view.results[k].status == "done")
    assert summary.counts["failed"] > 0 and 0 < done < len(keys) == design, summary.counts

    code, out = call(capsys, *dry)
    assert code == 0, out
    assert whole_design(out) == (design, done)

"""``diptych resume RUN --dry-run`` prices what a resume would buy, as the README and
``--paid-retries``'s help say: the run's trials, those stored, the requests left and their
estimated cost; nothing is bought and the run is left as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import decided_at_first_look
from tests.support.surfaces.text import printed_problems

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_resume_dry_run_prices_the_rest_and_buys_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws, "-M", "latency=0.01")
    with Workspace.open(ws) as opened:
        est = opened.runs.plan_resume(run_id)
        before = opened.runs.get(run_id).status
    assert est.to_run > 0
    code, out = call(capsys, "--store", ws, "resume", run_id, "--dry-run")
    assert code == 0, out
    words = " ".join(out.replace("\u00a0", " ").split())
    assert f"{est.to_run:,}" in words and "cost" in words, out
    assert printed_problems(out) == [], out
    # It says the run is decided, and that a resume asks first, in one line.
    (said,) = [line for line in out.splitlines() if "decided" in line]
    # The look read its first batch, a quarter of the design's 156 requests: 39, 117 saved.
    assert est.to_run == 117
    assert said.startswith(
        f"{run_id} is decided at look 1 of 4: 39 of 156 requests, 117 saved; "
        "its gates were decided on the trials bought, so diptych resume "
    ), out
    assert "asks before it buys the rest (--yes buys it without asking)" in said, out
    with Workspace.open(ws) as opened:
        assert opened.runs.get(run_id).status == before == "decided"
        assert opened.runs.plan_resume(run_id).to_run == est.to_run

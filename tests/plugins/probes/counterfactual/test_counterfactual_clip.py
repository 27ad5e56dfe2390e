"""``diptych run counterfactual-retrieval -m clip:<dir> --sets pairs`` end to end, offline, on a
tiny CLIP built from a config (the builder of the clip plugin's tests)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.tiny_clip import build_tiny_clip

pytestmark = pytest.mark.usefixtures("offline")


def test_the_cli_runs_and_analyses_pairs_with_a_local_clip(tmp_path: Path) -> None:
    clip_dir = tmp_path / "tiny-clip"
    build_tiny_clip(clip_dir)
    env = {**os.environ, "DIPTYCH_STORE": str(tmp_path / "ws"), "HF_HUB_OFFLINE": "1"}
    cli = [sys.executable, "-m", "diptych.cli.main"]
    ran = subprocess.run(
        [*cli, "run", "counterfactual-retrieval", "-m", f"clip:{clip_dir}", "--sets", "pairs"],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    from diptych import Workspace

    with Workspace.open(tmp_path / "ws") as ws:
        (summary,) = ws.runs.list()
        assert summary.counts.get("done", 0) == len(ws.runs.view(summary.run.id).trials)
        result = ws.analysis.analyze(summary.run.id)
    stages = result.tables[0].rows
    assert stages[0][1:3] == [50, 200]
    assert json.dumps(result.data["filter"])  # the counts are plain data for the JSON report
    assert (tmp_path / "ws" / "chroma").is_dir()

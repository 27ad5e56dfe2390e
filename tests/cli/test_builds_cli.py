"""`show`, the report and the TUI run screen on a run whose results came from two builds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from diptych.cli.main import main
from diptych.core.builds import mixed_builds_note
from diptych.core.engine import RetryPolicy, RunOptions, run_probe
from diptych.core.store import open_store
from diptych.testing import ScriptedLikelihood, ScriptedParams

#: Two builds as llama.cpp's system info names them.
B1, B2 = "0.3.36; CPU : AVX2 = 1 | FMA = 1", "0.3.36; CPU : AVX2 = 0"


class Built(ScriptedLikelihood):
    """A scripted model whose answers a named backend build computes."""

    def __init__(self, build: str, **params: Any) -> None:
        super().__init__(ScriptedParams(**params))
        self._build = build

    def build(self) -> str:
        return self._build


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_a_run_of_two_builds_says_so(
    tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    once = RunOptions(retry=RetryPolicy(max_attempts=1, base_delay=0, max_delay=0))
    with open_store(ws) as store:
        run = run_probe(store, "scripted", [Built(B1, transient_every=2)], options=once)
        code, out, _ = call(capsys, "--store", str(ws), "show", run.id)
        assert code == 0 and "Mixed builds" not in out
        # Half its trials failed on build b1; running it again finishes them on build b2.
        run_probe(store, "scripted", [Built(B2)])
        (model_id,) = {r.model_id for r in store.run_results(run.id).values()}
    code, out, _ = call(capsys, "--store", str(ws), "show", run.id)
    assert code == 0
    assert f"build of {model_id}: {B1}\n  then: {B2}\n" in out
    assert "Mixed builds (" in out and "2 builds" in out
    code, _, err = call(capsys, "--store", str(ws), "report", run.id, "-o", str(tmp_path / "r"),
                        "--format", "md,json,html")  # fmt: skip
    assert code == 0, err
    markdown = (tmp_path / "r" / "report.md").read_text()
    assert "**mixed builds:** its trials came from 2 builds" in markdown
    # The Scope names each build by its backend's version; the CPU features a reader would
    # have to parse stay in the report's JSON (and the results' provenance).
    assert "(each build's CPU features are in report.json): build `0.3.36` |" in markdown
    html = (tmp_path / "r" / "report.html").read_text()
    for text in (markdown, html):
        assert "AVX2" not in text and "FMA" not in text
    listed = json.loads((tmp_path / "r" / "report.json").read_text())
    (model,) = listed["models"]
    assert model["builds"] == [B1, B2]
    # The TUI's run screen gets the same sentence with the run's analysis.
    from diptych.tui.workers import analyze_run

    assert analyze_run(ws, run.id).builds_note == mixed_builds_note({model_id: [B1, B2]})

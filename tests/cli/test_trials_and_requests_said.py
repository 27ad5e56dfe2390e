"""A run's trials and its requests are two counts with two nouns, and wherever both are
printed the difference is said: ``diptych run`` says why fewer requests than trials are run
and ends on its trials named as such, ``diptych show`` gives both counts (a pst-text design
whose single setting asks each prompt three times answers 3 trials with 1 request)."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.surfaces.text import printed_problems

pytestmark = pytest.mark.usefixtures("scripted_plugin")

MASC = ["carpenter", "farmer", "guard"]
FEM = ["nurse", "editor", "secretary"]
#: Paired: 3 × 3 scenes, both orders, both people, one sample each: 36 trials, 36 requests.
#: Single: 6 identities, 3 samples each, one prompt each: 18 trials, 6 requests.
TRIALS, REQUESTS = 36 + 18, 36 + 6
SHARED = "trials that ask the same prompt, seed and model share one request"


def test_run_and_show_say_trials_and_requests_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # each line whole, as printed_problems reads them
    ws = str(tmp_path / "ws")
    words = ["run", "pst-text", "-m", "scripted-likelihood", "-p", "setting=both",
             "-p", "masculine=" + ",".join(MASC), "-p", "feminine=" + ",".join(FEM)]  # fmt: skip
    code, out = call(capsys, "--store", ws, *words, "--quiet")
    assert code == 0, out
    planned = next(line for line in out.splitlines() if " trials planned, " in line)
    assert planned.endswith(
        f"{TRIALS} trials planned, 0 already stored, {REQUESTS} requests to run ({SHARED})"
    ), planned
    finished = re.search(r"^run (\S+) complete: (.*)$", out, re.M)
    assert finished is not None, out
    assert finished[2] == f"{TRIALS} trials ({TRIALS} done)", out
    code, shown = call(capsys, "--store", ws, "show", finished[1])
    assert code == 0, shown
    read = " ".join(shown.split())  # a line wrapped at the terminal's width, read whole
    assert f"trials: done {TRIALS}, refused 0, failed 0" in read, shown
    assert f"requests: {REQUESTS} for its {TRIALS} trials ({SHARED})" in read, shown
    # Run again: everything stored, nothing shared left to run, nothing to explain.
    code, again = call(capsys, "--store", ws, *words, "--quiet")
    assert code == 0, again
    assert f"{TRIALS} trials planned, {TRIALS} already stored, 0 requests to run\n" in again
    for printed in (out, again):
        assert printed_problems(printed) == [], printed


def test_a_run_whose_trials_each_ask_their_own_request_says_nothing_of_sharing() -> None:
    from diptych.cli.console import SafeConsole
    from diptych.cli.progress import RichReporter
    from diptych.core.workspace import RunRecord

    out = io.StringIO()
    reporter = RichReporter(SafeConsole(file=out, width=200), quiet=True)
    run = RunRecord(id="pst-text-1", probe="pst-text", probe_version="1", params={}, models=[],
                    fingerprint="", status="complete", n_trials=1720, diptych_version="",
                    created_at=0.0, updated_at=0.0)  # fmt: skip
    reporter.run_started(run, 1720, 80, 1640)
    reporter.run_finished(run, {"done": 1700, "refused": 20, "failed": 0, "pending": 0})
    partial = replace(run, status="partial")
    reporter.run_finished(partial, {"done": 51, "refused": 0, "failed": 0, "pending": 129})
    assert out.getvalue().splitlines() == [
        "run pst-text-1: 1,720 trials planned, 80 already stored, 1,640 requests to run",
        "run pst-text-1 complete: 1,720 trials (1,700 done, 20 refused)",
        "run pst-text-1 partial: its batch bought, 51 trials (51 done); 129 trials wait for the "
        "gates' next look",
    ]

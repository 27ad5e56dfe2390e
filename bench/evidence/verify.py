"""evidence.verify_*: signing the demo's report and verifying it, every figure re-derived.

The demo's audit is built first and not timed: ``pst-text`` with its defaults (the demo's
1,640 likelihood prompts, 1,720 trials) answered by the scripted likelihood model, which
stands in for SmolLM2 — the report and its verification read the stored answers, never the
model, so which model answered changes neither's time. A signing key is made with
``ssh-keygen -t ed25519``.

Timed, ``REPS`` times each, in turns: ``diptych report`` (HTML, Markdown, JSON: what the demo
writes), the manifest and its signature, and ``diptych verify`` (signature, every file and
record, every figure re-derived through the analysis and compared with the report's JSON and
its printed numbers). Each figure is the mean over the turns with its standard error.
"""

from __future__ import annotations

import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.harness import Result, bench, result

#: Turns of each timed step.
REPS = 5
#: How much longer than writing the report verifying it may take.
RATIO_TARGET = 10


def _mean_se(values: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    se = statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else float("nan")
    return mean, se


@bench(evidence__verify_s=None, evidence__verify_over_report=f"<= {RATIO_TARGET}")
def evidence_verify() -> Iterator[Result]:
    from diptych.core.workspace import Workspace
    from diptych.testing import ScriptedLikelihood

    with tempfile.TemporaryDirectory(prefix="diptych-bench-evidence-") as tmp:
        root = Path(tmp)
        key = root / "id_ed25519"
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "bench", "-f", str(key)],
            check=True,
            stdin=subprocess.DEVNULL,
        )
        with Workspace.open(root / "ws") as ws:
            run = ws.runs.run_sync("pst-text", [ScriptedLikelihood()])
        report_s, sign_s, verify_s = [], [], []
        figures = records = 0
        for turn in range(REPS):
            out = root / f"report-{turn}"
            with Workspace.open(root / "ws") as ws:
                start = time.perf_counter()
                written = ws.analysis.report_files(run.id, out, formats="html,md,json")
                report_s.append(time.perf_counter() - start)
                start = time.perf_counter()
                ws.evidence.sign(out, [run.id], key, formats=sorted(written))
                sign_s.append(time.perf_counter() - start)
            with Workspace.open(root / "ws", read_only=True) as ws:
                start = time.perf_counter()
                found = ws.evidence.verify(out, key=key.with_name(key.name + ".pub"))
                verify_s.append(time.perf_counter() - start)
            figures, records = found.figures, found.records
        (report, report_se), (sign, sign_se) = _mean_se(report_s), _mean_se(sign_s)
        verify, verify_se = _mean_se(verify_s)
        ratios = [v / r for v, r in zip(verify_s, report_s, strict=True)]
        ratio, ratio_se = _mean_se(ratios)
        yield result(
            "evidence.verify_s",
            verify,
            "s",
            se=round(verify_se, 4),
            report_s=round(report, 4),
            report_se=round(report_se, 4),
            sign_s=round(sign, 4),
            sign_se=round(sign_se, 4),
            reps=REPS,
            trials=run.n_trials,
            figures=figures,
            records=records,
        )
        yield result("evidence.verify_over_report", ratio, "x", se=round(ratio_se, 4), reps=REPS)

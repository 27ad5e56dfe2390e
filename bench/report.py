"""report.*: writing the audit report of five runs (2,000 trials, 200 images).

The audit is built first and not timed: pst-text on the scripted likelihood model, pst twice
(baseline and an intervention, 100 generated images each) on the loopback fake OpenAI service,
pairs and stories on the scripted vision model. Timed: the HTML report alone (gathering,
analysis, comparison and rendering), then the PDF printed by headless Chromium.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.harness import Result, bench, result

TRIALS = 2000
PST = {
    "aspects": ["occupation"],
    "setting": "paired",
    "masculine": ["carpenter", "sheriff", "driver", "farmer", "janitor"],
    "feminine": ["nurse", "editor", "secretary", "librarian", "receptionist"],
    "samples_paired": 2,
}


def _audit(ws_path: Path) -> tuple[list[str], int]:
    from diptych.core.workspace import Workspace
    from diptych.testing import FakeOpenAIServer, ScriptedLikelihood, ScriptedVisionChat

    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-report")
    with FakeOpenAIServer(image_size=(64, 64)) as fake, Workspace.open(ws_path) as ws:
        images = ("openai-images", {"base_url": fake.base_url})
        runs = [
            ws.runs.run_sync("pst-text", [ScriptedLikelihood()]),
            ws.runs.run_sync("pst", [images], params=PST),
            ws.runs.run_sync(
                "pst", [images], params={**PST, "intervention": "entigen-all-genders"}
            ),
            ws.runs.run_sync(
                "stories",
                [ScriptedVisionChat()],
                params={
                    "subsets": ["occupations"],
                    "prompts": [1, 2],
                    "runs": 1,
                    "processing": "raw",
                },
            ),
        ]
        so_far = sum(r.n_trials for r in runs)
        # pairs fills the audit up to TRIALS: one scenario is 4 images × its questions.
        per_run = ws.runs.plan("pairs", [ScriptedVisionChat()], params={"runs": 1}).to_run
        runs.append(
            ws.runs.run_sync(
                "pairs",
                [ScriptedVisionChat()],
                params={"runs": max(1, round((TRIALS - so_far) / max(per_run, 1)))},
            )
        )
        return [r.id for r in runs], sum(r.n_trials for r in runs)


@bench(report__html_s="<= 5", report__pdf_s="<= 15")
def report_audit() -> Iterator[Result]:
    from diptych.core.workspace import Workspace

    with tempfile.TemporaryDirectory(prefix="diptych-bench-report-") as tmp:
        ws_path = Path(tmp) / "ws"
        ids, trials = _audit(ws_path)
        with Workspace.open(ws_path) as ws:
            start = time.perf_counter()
            ws.analysis.report(ids, Path(tmp) / "html", formats="html")
            html_s = time.perf_counter() - start
            size = (Path(tmp) / "html" / "report.html").stat().st_size
            yield result(
                "report.html_s", html_s, "s", runs=len(ids), trials=trials, html_bytes=size
            )
            start = time.perf_counter()
            ws.analysis.report(ids, Path(tmp) / "pdf", formats="pdf")
            pdf_s = time.perf_counter() - start
            pdf = (Path(tmp) / "pdf" / "report.pdf").stat().st_size
            yield result("report.pdf_s", pdf_s, "s", pdf_bytes=pdf)

"""A five-run audit for the report tests, built fast with scripted models and the fake
OpenAI service: pst-text, pst on the fake service with ``faces`` labels and a reviewer's
labels and notes, the same pst with an intervention (the mitigation compared), pairs and
stories on a scripted vision model."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support.fake_service_runs import PST, RULE, fake_service_runs

from diptych.core.workspace import Workspace
from diptych.testing import ScriptedVisionChat

#: The perceived skin tone the reviewer gives, by identity.
TONE = {"carpenter": "monk-6", "sheriff": "monk-3", "nurse": "monk-8", "editor": "monk-4"}


@dataclass
class AuditRuns:
    ws_path: Path
    runs: list[str]


@pytest.fixture(scope="package")
def audit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuditRuns]:
    path = tmp_path_factory.mktemp("audit") / "ws"
    with fake_service_runs(path, "sk-test-report") as made:
        ws, images, base = made.ws, made.images, made.pst
        for subject in ws.runs.subjects(base.id):
            if subject.get("status") != "done":
                continue
            label = RULE[subject["meta"]["identity"]]
            ws.labels.save(
                base.id, subject["trial_idx"], subject["position"], label, reviewer="ana"
            )
            # A perceived skin tone per person, so that every report check reads the
            # report's tone section too.
            ws.labels.save(
                base.id, subject["trial_idx"], subject["position"],
                TONE[subject["meta"]["identity"]], reviewer="ana", dimension="tone",
            )  # fmt: skip
        first = ws.runs.subjects(base.id)[0]
        ws.review.save_note(
            base.id,
            first["trial_idx"],
            first["position"],
            "face hidden by a helmet",
            reviewer="ana",
        )
        mitigated = ws.runs.run_sync(
            "pst", [images], params={**PST, "intervention": "entigen-all-genders"}
        )
        for subject in ws.runs.subjects(mitigated.id):
            if subject.get("status") == "done":
                ws.labels.save(
                    mitigated.id,
                    subject["trial_idx"],
                    subject["position"],
                    "cannot_identify"
                    if subject["trial_idx"] % 3 == 0
                    else RULE[subject["meta"]["identity"]],
                    reviewer="ana",
                )
        pairs = ws.runs.run_sync(
            "pairs", [ScriptedVisionChat()], params={"scenarios": ["scrubs"], "runs": 1}
        )
        stories = ws.runs.run_sync(
            "stories",
            [ScriptedVisionChat()],
            params={"scenarios": ["jumpsuit"], "prompts": [1], "runs": 1, "processing": "raw"},
        )
        ids = [made.text.id, base.id, mitigated.id, pairs.id, stories.id]
    yield AuditRuns(path, ids)


@pytest.fixture(scope="package")
def report_dir(audit: AuditRuns, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The audit's report as HTML and PDF, for the browser and print tests."""
    out = tmp_path_factory.mktemp("browser-report")
    with Workspace.open(audit.ws_path) as ws:
        ws.analysis.report(audit.runs, out, formats="html,pdf")
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright; each launch runs on a fresh profile directory
    Playwright makes and removes. One module at a time: Playwright's sync API keeps an event
    loop running on this thread while it is open, which ``asyncio.run`` elsewhere refuses."""
    from playwright import sync_api

    from diptych.core.report.pdf import CHROMIUM_ARGS, chromium_path

    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path(), args=list(CHROMIUM_ARGS))
        yield b
        b.close()

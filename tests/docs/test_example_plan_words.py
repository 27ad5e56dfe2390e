"""What the shipped offline example's comments say of its size is what ``diptych audit check``
plans for it: the probe part's trials and requests, and the search's least and most requests;
and the tool says what it audits as the manual's first page does (a text model among them)."""

from __future__ import annotations

from pathlib import Path

from diptych.agent.audit_search import plan_placebos
from diptych.audit import plan_audit
from diptych.core.workspace import Workspace
from tests.docs.fenced import ROOT
from tests.support.cli import cli

EXAMPLE = ROOT / "examples" / "audits" / "smollm2-offline.yaml"


def _comments() -> str:
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    said = [line.lstrip()[1:].strip() for line in lines if line.lstrip().startswith("#")]
    return " ".join(" ".join(said).split())


def test_the_examples_comments_say_its_plan(tmp_path: Path) -> None:
    with Workspace.open(tmp_path / "ws") as ws:
        plan = plan_placebos(ws, plan_audit(ws, EXAMPLE))
    probe, search = plan.parts
    assert probe.estimate is not None and search.placebo is not None
    # Worked out from the file: 20 × 20 identities, 4 samples a side, as audit check printed.
    assert (probe.estimate.planned, probe.estimate.to_run) == (6560, 1640)
    assert (search.placebo.search.to_run, search.part.search.max_requests) == (384, 1500)
    text = _comments()
    assert "the probe part is 6,560 trials in 1,640 requests" in text
    assert (
        "the search asks at least 384 (its placebo words) and at most its max_requests, 1,500"
        in text
    )
    # Times are ranges, never one figure a run on another machine contradicts.
    assert "6½" not in text and "about one)" not in text
    assert "the search two to seven minutes" in text


def test_the_tool_names_the_text_models_it_audits() -> None:
    said = " ".join(cli("--help").output.split())
    assert (
        "Audit generative text, text-to-image and vision-language models for social bias." in said
    )
    page = " ".join((ROOT / "docs" / "index.md").read_text(encoding="utf-8").split())
    assert "It audits text, text-to-image and vision-language models" in page


def test_the_readme_layout_names_what_examples_holds() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("\nexamples/")
    said = " ".join(readme[start : readme.index("\nbench/", start)].split())
    assert said == (
        "examples/ audit files (audits/), CI gate pipelines (ci/), an installable probe plugin"
    )

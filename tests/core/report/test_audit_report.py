"""The five-run audit report: every part the issue asks for, in HTML, Markdown and JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import markupsafe
import pytest

from diptych.core.workspace import Workspace
from diptych.datasets import pairs


@pytest.fixture(scope="module")
def written(audit: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    with Workspace.open(audit.ws_path) as ws:
        path = ws.analysis.report(audit.runs, out)
    assert path == out / "report.md"
    return out


def test_every_format_is_written(written: Path) -> None:
    assert {p.name for p in written.iterdir()} >= {"report.html", "report.md", "report.json"}


def test_html_is_self_contained(written: Path) -> None:
    html = (written / "report.html").read_text(encoding="utf-8")
    # No file outside the page: images are data URIs, links are anchors, save the published
    # sources the frameworks appendix cites (https), which nothing on the page loads.
    sources = re.findall(r'src="([^"]+)"', html)
    assert sources and all(s.startswith("data:image/") for s in sources)
    links = re.findall(r'href="([^"]+)"', html)
    assert links and all(s.startswith(("#", "https://")) for s in links)
    assert "<link" not in html and "@import" not in html
    assert "@media print" in html and "@media (max-width" in html


def test_json_holds_every_run_and_the_comparison(audit: Any, written: Path) -> None:
    data = json.loads((written / "report.json").read_text(encoding="utf-8"))
    assert data["schema_version"] == 5
    assert [r["run"] for r in data["runs"]] == audit.runs
    assert [r["probe"] for r in data["runs"]] == ["pst-text", "pst", "pst", "pairs", "stories"]
    (compared,) = data["comparisons"]
    assert (compared["baseline"], compared["intervention"]) == (audit.runs[1], audit.runs[2])
    assert compared["result"]["numbers"] or compared["result"]["tables"]
    # Every headline figure of every run is in the summary, with its interval.
    names = {(h["run"], h["name"]) for h in data["headlines"]}
    for run in data["runs"]:
        assert {(run["run"], n) for n in run["result"]["numbers"]} <= names
    pst = data["runs"][1]
    assert pst["review"]["labels"]["human:ana"] > 0
    assert any(k.startswith("faces") for k in pst["review"]["labels"])
    assert pst["review"]["agreement"], "two annotators: agreement tables"
    assert [n["note"] for n in pst["review"]["notes"]] == ["face hidden by a helmet"]
    # A compatible service other than OpenAI's sets its own prices: none is claimed for it.
    assert pst["cost_usd"] is None
    assert pairs.ATTRIBUTION + "." in data["licenses"] or any(
        pairs.ATTRIBUTION in lic for lic in data["licenses"]
    )


def test_markdown_has_every_part(audit: Any, written: Path) -> None:
    md = (written / "report.md").read_text(encoding="utf-8")
    for heading in (
        "## Findings",
        "## Contents",
        "## Results",
        "## Mitigations compared",
        "## Recommended actions",
        "## Example images",
        "## Human review and agreement",
        "## Limitations",
        "## Appendix A: Methods",
        "### Scope",
        "## Appendix B: Full tables",
        "## Glossary",
        "## Provenance",
    ):
        assert f"\n{heading}\n" in md, heading
    for run in audit.runs:
        assert f"`{run}`" in md
    assert "face hidden by a helmet" in md
    assert pairs.ATTRIBUTION in md
    # Figures and example images are files beside the Markdown, and every one it names exists.
    for target in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md):
        assert (written / target).is_file(), target


def test_example_images_carry_the_review_outcome_and_attribution(written: Path) -> None:
    html = (written / "report.html").read_text(encoding="utf-8")
    examples = html[html.index('id="examples"') : html.index('id="review"')]
    assert examples.count("<img") >= 2
    assert "reviewed — ana:" in examples
    # PAIRS images shown as examples carry the dataset's attribution.
    assert str(markupsafe.escape(pairs.ATTRIBUTION)) in examples


def test_a_decided_interval_names_itself_apart_from_its_bounds() -> None:
    """A gate's interval: its bounds one unbreakable token, its name words of their own (a
    line under the bounds on the page, after a semicolon in Markdown)."""
    from types import SimpleNamespace

    from diptych.core.report.render import figure_interval

    decided = SimpleNamespace(
        low=-1.163, high=23.81, name="95% anytime-valid interval, look 1 of 10"
    )
    assert figure_interval({}, decided) == (
        "[−1.16, 23.8]; 95% anytime-valid interval, look 1 of 10"
    )
    assert str(figure_interval({}, decided, html=True)) == (
        '<span class="nowrap">[−1.16, 23.8]</span>'
        '<span class="interval-name">95% anytime-valid interval, look 1 of 10</span>'
    )
    assert str(figure_interval({"ci_low": 1.0, "ci_high": 2.5}, html=True)) == (
        '<span class="nowrap">[1.00, 2.50]</span>'
    )

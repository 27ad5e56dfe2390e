"""The frameworks appendix: every clause the report answers to with its source, what the audit
evidences and what it does not, links that land on the report's own sections, and no word
anywhere in it — shipped or an organisation's — that claims a framework is satisfied."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from diptych.core.errors import InputFileError
from diptych.core.report.frameworks import (
    CLAIM_WORDS,
    claim_words,
    frameworks,
    read_frameworks_file,
    shipped_frameworks,
)
from diptych.core.workspace import Workspace

#: Claims in the words an auditor or a vendor would write them, each of which must be caught.
CLAIMS = [
    "The system is compliant with Article 10.",
    "This model complies with the AI Act.",
    "The model meets the requirements of MEASURE 2.11.",
    "Certified under ISO/IEC 42001.",
    "a certification-ready report",
    "in conformity with Annex IV",
    "The provider can comply.",
    "demonstrates compliance",
]


@pytest.fixture(scope="module")
def written(audit: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("frameworks")
    with Workspace.open(audit.ws_path) as ws:
        ws.analysis.report(audit.runs, out)
    return out


def test_every_claim_word_is_caught_and_plain_words_are_not() -> None:
    for text in CLAIMS:
        assert claim_words(text), text
    # Evidence said plainly passes, and so do words that merely contain a claim's letters.
    for text in ("An examination of outputs for stereotypes.", "a performance measure", "inform"):
        assert not claim_words(text), text


def test_the_shipped_file_names_each_clause_with_its_source() -> None:
    items = [i for f in shipped_frameworks().frameworks for i in f.items]
    clauses = {i.source.clause for i in items}
    for wanted in (
        "Article 10(2)(f)",
        "Article 10(2)(g)",
        "Article 10(3)",
        "Annex IV, point 2(g)",
        "MEASURE 2.11",
        "MS-2.11-001",
    ):
        assert wanted in clauses
    assert any(c.startswith("Annex XI") for c in clauses)
    assert any(c.startswith("Annex A, control A.5") for c in clauses)
    # MS-2.11-002's four actions: groups, counterfactual prompts, tests, a subsample annotated.
    assert sum(c.startswith("MS-2.11-002") for c in clauses) == 4
    for item in items:
        assert item.source.url.startswith("https://") and item.source.title
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", item.source.retrieved)


def _appendix_md(md: str) -> str:
    return md.split("## Appendix C: Frameworks", 1)[1].split("\n## Glossary", 1)[0]


def _appendix_html(html: str) -> str:
    return html.split('<section id="frameworks">', 1)[1].split("</section>", 1)[0]


def test_no_rendered_appendix_claims_compliance(written: Path) -> None:
    md = (written / "report.md").read_text(encoding="utf-8")
    html = (written / "report.html").read_text(encoding="utf-8")
    data = json.loads((written / "report.json").read_text(encoding="utf-8"))
    for text in (_appendix_md(md), _appendix_html(html), json.dumps(data["frameworks"])):
        assert CLAIM_WORDS.search(text) is None, CLAIM_WORDS.search(text)
    # Nor anywhere else the report speaks of frameworks.
    assert CLAIM_WORDS.search(md) is None and CLAIM_WORDS.search(html) is None


def test_what_the_audit_evidences_and_where(written: Path) -> None:
    data = json.loads((written / "report.json").read_text(encoding="utf-8"))
    by_id = {f["id"]: f for f in data["frameworks"]}
    # The fixture's audit measured figures with intervals, a mitigation against its baseline,
    # a reviewer's labels and counterfactual probes (pst, pst-text, pairs).
    for item in (
        "eu-ai-act-art-10-2-f",
        "eu-ai-act-art-10-2-g",
        "nist-ai-600-1-ms-2-11-002-counterfactual",
        "nist-ai-600-1-ms-2-11-002-annotated",
        "nist-ai-600-1-ms-2-11-002-tests",
    ):
        assert by_id[item]["evidenced"], item
    # One model per design: nothing is ranked, and no item points to a standings section.
    assert data["standings"] is None
    assert all("standings" not in f["sections"] for f in data["frameworks"])
    md = (written / "report.md").read_text(encoding="utf-8")
    html = (written / "report.html").read_text(encoding="utf-8")
    appendix_md, appendix_html = _appendix_md(md), _appendix_html(html)
    # Every link lands on a section the report has: a heading (Markdown) or an id (HTML).
    md_anchors = {
        re.sub(r"[^a-z0-9]+", "-", h.lower()).strip("-")
        for h in re.findall(r"^#+ (.+)$", md, flags=re.M)
    }
    for anchor in re.findall(r"\]\(#([a-z0-9-]+)\)", appendix_md):
        assert anchor in md_anchors, anchor
    for anchor in re.findall(r'href="#([a-z0-9-]+)"', appendix_html):
        assert f'id="{anchor}"' in html, anchor
    assert "Evidenced here:" in appendix_md and "Not evidenced:" in appendix_md
    # Each clause's source is a link a reader can follow, in the HTML as in the Markdown.
    sources = re.findall(r'<a class="url" href="(https?://[^"]+)"', appendix_html)
    assert len(sources) == len(data["frameworks"])
    # A clause the report holds nothing for says so in a sentence that reads.
    assert not re.search(r"holds no an? ", md + html)


def _own_file(path: Path, evidences: str) -> Path:
    path.write_text(
        f"""version: "1"
frameworks:
  - id: acme-policy
    name: ACME responsible AI policy
    items:
      - id: acme-4-2
        source:
          title: ACME responsible AI policy
          clause: Section 4.2
          url: https://example.org/policy
          retrieved: "2026-01-05"
        subject: Generated images are examined for gender stereotypes before release.
        evidenced_when: [measured]
        evidences: {evidences}
        does_not: Decide whether a release may go ahead.
        sections: [results]
""",
        encoding="utf-8",
    )
    return path


def test_an_organisation_extends_the_mapping(tmp_path: Path) -> None:
    own = _own_file(tmp_path / "acme.yaml", "The STS of each model with its interval.")
    listed = frameworks([own])
    assert [f.id for f in listed][-1] == "acme-policy"
    assert len(listed) == len(shipped_frameworks().frameworks) + 1


@pytest.mark.parametrize(
    "evidences",
    [
        "The model is compliant with section 4.2.",
        "Certifies the release.",
        "Meets the requirements.",
    ],
)
def test_an_organisations_claim_is_refused_with_the_item_and_the_word(
    tmp_path: Path, evidences: str
) -> None:
    own = _own_file(tmp_path / "acme.yaml", evidences)
    with pytest.raises(InputFileError) as info:
        read_frameworks_file(own)
    message = str(info.value)
    assert "acme-4-2" in message and "evidences" in message and "\n" not in message


def test_a_malformed_file_is_one_line_naming_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text('version: "1"\nframeworks:\n  - id: x\n    name: X\n    items: []\n')
    with pytest.raises(InputFileError) as info:
        read_frameworks_file(bad)
    assert str(bad) in str(info.value) and "items" in str(info.value)
    twice = _own_file(tmp_path / "twice.yaml", "Figures.")
    with pytest.raises(InputFileError, match="given twice"):
        frameworks([twice, twice])

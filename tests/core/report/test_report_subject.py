"""A report names what it is of: a run's report speaks of "this run" and "Plugins the run used",
a report of several runs of "these runs"; audit words are an audit's report's alone. The check
(tests/support/surfaces/subject.py) runs on every report a test writes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from diptych.core.report.wording import ReportWords
from diptych.core.workspace import Workspace
from tests.support.surfaces.subject import audit_word_problems, subject_problems

MASC = ["carpenter", "farmer"]
FEM = ["nurse", "editor"]


@pytest.mark.usefixtures("scripted")
def test_a_runs_report_speaks_of_the_run_not_of_an_audit(tmp_path: Path) -> None:
    with Workspace.open(tmp_path / "ws") as ws:
        run = ws.runs.run_sync(
            "pst-text", [("scripted-likelihood", {})], params={"masculine": MASC, "feminine": FEM}
        )
        ws.analysis.report([run.id], tmp_path / "rep", formats=["md", "html", "json"])
    markdown = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    page = re.sub(r"<[^>]+>", "", (tmp_path / "rep" / "report.html").read_text(encoding="utf-8"))
    for text in (markdown, page):
        assert "Run report · 1 run" in text
        assert "Plugins the run used" in text
        assert "Built only from what this run measured." in text
        assert audit_word_problems(text) == []
    assert subject_problems(tmp_path / "rep", {}) == []


def test_each_kind_of_report_names_its_subject() -> None:
    audit, one, several = ReportWords(True, 1), ReportWords(False, 1), ReportWords(False, 3)
    assert [w.plugins_heading for w in (audit, one, several)] == [
        "Plugins the audit used",
        "Plugins the run used",
        "Plugins the runs used",
    ]
    assert [w.no_images for w in (audit, one, several)] == [
        "No run of this audit shows images.",
        "This run shows no images.",
        "None of these runs shows images.",
    ]
    assert [w.kind for w in (audit, one, several)] == ["Audit report", "Run report", "Report"]


def test_the_check_finds_audit_words_in_a_report_of_runs(tmp_path: Path) -> None:
    found = audit_word_problems("Audit report · 1 run\n\n### Plugins the audit used\n")
    assert len(found) == 2, found
    assert audit_word_problems("Give it through the Python API or an audit file.") == []
    (tmp_path / "report.md").write_text("# pst-text\n\nBuilt only from what this audit measured.")
    assert len(subject_problems(tmp_path, {"scope": {}})) == 1
    assert subject_problems(tmp_path, {"scope": {"audit": "a"}}) == []

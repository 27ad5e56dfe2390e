"""A report with no baseline and intervention of one probe says once, in plain words, what
would fill “Mitigations compared”; “Mitigations measured” points there and does not repeat it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from diptych.core.report.wording import ReportWords
from diptych.core.workspace import Workspace

MASC = ["carpenter", "farmer", "guard"]
FEM = ["nurse", "editor", "clerk"]

SAID = (
    "No mitigation was compared: that takes a baseline run and a later run of the same probe "
    "with an intervention, reported together with `diptych report BASELINE INTERVENTION`."
)


def test_the_words_say_what_would_fill_the_section() -> None:
    for words in (ReportWords(audit=True, runs=3), ReportWords(audit=False, runs=1)):
        assert words.no_comparison == SAID
        assert "holds no" not in words.no_comparison


@pytest.mark.usefixtures("scripted")
def test_a_one_run_report_says_it_once(tmp_path: Path) -> None:
    store = tmp_path / "ws"
    with Workspace.open(store) as ws:
        run = ws.runs.run_sync(
            "pst-text", [("scripted-likelihood", {})], params={"masculine": MASC, "feminine": FEM}
        )
        ws.analysis.report([run.id], tmp_path / "rep", formats=["md", "html"])
    markdown = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    page = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    compared = markdown.split("## Mitigations compared", 1)[1].split("\n## ", 1)[0]
    assert SAID in compared
    measured = markdown.split("### Mitigations measured", 1)[1].split("\n### ", 1)[0]
    assert measured.strip() == "Nothing to list: see “Mitigations compared”."
    for text in (markdown, page):
        assert text.count("No mitigation was") == 1
        assert "holds no baseline" not in text
    assert re.search(r"<p>Nothing to list: see “Mitigations compared”\.</p>", page)

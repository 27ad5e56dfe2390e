"""A report says only what its data holds: a run with no finished trial gets one line saying
so and how to resume it — no empty table of figures, no framework sentence claiming evidence,
no sentence on the errors of labels it does not have."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from tests.support.surfaces.tables import empty_table_problems

MASC = ["carpenter", "farmer", "guard"]
FEM = ["nurse", "editor", "clerk"]


@pytest.mark.usefixtures("scripted")
def test_a_run_with_no_finished_trial_reports_one_line_and_claims_nothing(tmp_path: Path) -> None:
    store = tmp_path / "ws"
    with Workspace.open(store) as ws:
        run = ws.runs.run_sync(
            "pst-text", [("scripted-likelihood", {})], params={"masculine": MASC, "feminine": FEM}
        )
    # As a run killed before its first answer was stored leaves it: its plan, no result, no label.
    with open_store(store) as db:
        with db.transaction() as sql:
            sql.execute("DELETE FROM results")
            sql.execute("DELETE FROM annotations")
        db.set_run_status(run.id, "interrupted")
    out = tmp_path / "rep"
    with Workspace.open(store) as ws:
        assert ws.runs.counts(run.id).get("done", 0) == 0
        ws.analysis.report([run.id], out, formats=["md", "html", "json"])
    markdown = (out / "report.md").read_text(encoding="utf-8")
    page = (out / "report.html").read_text(encoding="utf-8")
    resume = f"diptych --store ../ws resume {run.id}"
    assert f"No trial of this run has finished yet; resume it with `{resume}`." in markdown
    # The run id and the option in it each kept whole on a line (report.css).
    whole = f'<span class="run-id">{run.id}</span>'
    store_option = '<span class="option">--store</span>'
    assert f"resume it with <code>diptych {store_option} ../ws resume {whole}</code>." in page
    for text in (markdown, page):
        assert "The figures above measure" not in text
        assert "This report is evidence of such an examination" not in text
        assert "carry errors" not in text
        assert "No figure was measured in this report yet" in text
    assert "| figure | value |" not in markdown and '<table class="figures">' not in page
    assert empty_table_problems(markdown, markdown=True) == []
    assert empty_table_problems(page) == []


def test_the_page_check_finds_a_table_with_a_header_and_no_row() -> None:
    markdown = "#### Figures\n\n| figure | value |\n|---|---:|\n\n#### Next\n"
    assert empty_table_problems(markdown, markdown=True) == [
        "a table with a header and no row: | figure | value |"
    ]
    assert empty_table_problems("| a | b |\n|---|---|\n| 1 | 2 |\n", markdown=True) == []
    page = '<table class="figures"><thead><tr><th>figure</th></tr></thead><tbody>\n</tbody></table>'
    assert len(empty_table_problems(page)) == 1
    assert empty_table_problems(page.replace("<tbody>", "<tbody><tr><td>1</td></tr>")) == []

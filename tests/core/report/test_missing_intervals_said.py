"""Every missing interval in a report's tables says why, in HTML and Markdown: the table of
figures in the words of `diptych show` ("no interval (one masculine identity only)"), a
probe's table with a mark (``—*``) its note explains, and the checks that read a written
report (:mod:`tests.support.surfaces.bare_dashes`) fail on a bare "—"."""

from __future__ import annotations

import json
from pathlib import Path

from diptych.core.engine import run_probe
from diptych.core.probe import Table
from diptych.core.report.formatting import no_interval
from diptych.core.report.headlines import figure_interval
from diptych.core.report.missing_intervals import TOO_FEW_UNITS, missing_marked
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from tests.support.surfaces.bare_dashes import html_bare_dash_problems, md_bare_dash_problems

#: One masculine identity: every figure that resamples both identity lists has no interval, and
#: each feminine identity's paired figure has one partner only.
PARAMS = ["masculine=carpenter", "feminine=nurse,editor,secretary", "setting=both"]
SINGLE = "STS single (expected from P(he), P(she))"


def test_a_report_says_why_each_interval_is_missing(scripted: None, tmp_path: Path) -> None:
    with open_store(tmp_path / "ws") as store:
        run_id = run_probe(store, "pst-text", ["scripted-likelihood"], probe_params=PARAMS).id
    with Workspace.open(tmp_path / "ws") as ws:
        ws.analysis.report(run_id, tmp_path / "out", formats="html,md,json")
    out = tmp_path / "out"
    md = (out / "report.md").read_text()
    page = (out / "report.html").read_text()
    numbers = json.loads((out / "report.json").read_text())["runs"][0]["result"]["numbers"]
    assert no_interval(numbers[SINGLE]) == "no interval (one masculine identity only)"
    # The table of figures says each reason in its interval column, as `diptych show` does.
    row = next(line for line in md.splitlines() if line.startswith(f"| {SINGLE} |"))
    assert row.split(" | ")[2] == "no interval (one masculine identity only)", row
    assert "| no interval (a diagnostic) |" in md
    assert '<span class="no-interval">no interval (one masculine identity only)</span>' in page
    # The per-identity table marks its missing intervals; its note says why.
    nurse = next(line for line in md.splitlines() if line.startswith("| nurse | feminine |"))
    assert nurse.split(" | ")[3] == "—*", nurse
    assert "A dash marked * has no interval: one partner only (paired)" in md
    assert "A dash marked * has no interval: one partner only (paired)" in page
    # No bare dash left in an interval column, on either page.
    assert html_bare_dash_problems(page) == []
    assert md_bare_dash_problems(md) == []


def test_a_probe_table_marks_its_missing_intervals_and_says_why() -> None:
    table = Table(
        "per identity",
        ["identity", "STS", "95% CI", "n"],
        [["nurse", 12.0, "—", 1], ["chief", None, None, 0], ["cook", 3.0, "[1.0, 5.0]", 4]],
        note="STS over prompts.",
        no_interval="one prompt only",
    )
    marked = missing_marked(table)
    assert [row[2] for row in marked.rows] == ["—*", "—*", "[1.0, 5.0]"]
    # A dash outside an interval column stays; the table the probe made is not changed.
    assert marked.rows[1][1] is None and table.rows[0][2] == "—"
    assert marked.note == "STS over prompts. A dash marked * has no interval: one prompt only."
    # A probe that does not say why: the reason every resampling interval shares.
    plain = missing_marked(Table("t", ["x", "paired 95% CI"], [["a", "—"]]))
    assert plain.note == f"A dash marked * has no interval: {TOO_FEW_UNITS}."
    whole = Table("t", ["x", "95% CI"], [["a", "[1.0, 2.0]"]], note="n.")
    assert missing_marked(whole) is whole


def test_a_figure_with_no_interval_says_why_in_its_cell() -> None:
    number = {"value": 19.7, "ci_low": "inf", "ci_high": "-inf",
              "reason": "one masculine identity only: no interval"}  # fmt: skip
    assert figure_interval(number) == "no interval (one masculine identity only)"
    assert str(figure_interval(number, html=True)) == (
        '<span class="no-interval">no interval (one masculine identity only)</span>'
    )
    # A figure that does not say why still gets words, never a bare dash.
    assert figure_interval({"value": 1.0}) == f"no interval ({TOO_FEW_UNITS})"


def test_the_check_fails_on_a_bare_dash_in_an_interval_column() -> None:
    head = "<table><thead><tr><th>figure</th><th>value</th><th>95% interval</th></tr></thead>"
    bare = f"{head}<tbody><tr><td>STS single</td><td>32.0</td><td>—</td></tr></tbody></table>"
    assert html_bare_dash_problems(bare) == [
        "table “figure …”: a bare “—” in column “95% interval” of row “STS single”"
    ]
    said = bare.replace("<td>—</td>", "<td><span>no interval (one prompt only)</span></td>")
    assert html_bare_dash_problems(said) == []
    # A mark is enough only where the note under the table says what it means.
    marked = bare.replace("<td>—</td>", "<td>—*</td>")
    assert (
        len(html_bare_dash_problems(marked + "<h4>next</h4><p>A dash marked * has no interval</p>"))
        == 1
    )
    assert (
        html_bare_dash_problems(
            marked + '<p class="caption">A dash marked * has no interval: x.</p>'
        )
        == []
    )
    # A dash in a column that holds no interval is no missing interval.
    assert html_bare_dash_problems(bare.replace("95% interval", "note")) == []
    # Markdown: its note stands above the table, under the heading.
    table = "| identity | paired 95% CI |\n|---|---|\n| nurse | {} |\n"
    assert len(md_bare_dash_problems("#### t\n\n" + table.format("—"))) == 1
    assert len(md_bare_dash_problems("#### t\n\n" + table.format("12.3 —"))) == 1
    assert len(md_bare_dash_problems("#### t\n\n" + table.format("—*"))) == 1
    noted = "#### t\n\nA dash marked * has no interval: one partner only.\n\n" + table.format("—*")
    assert md_bare_dash_problems(noted) == []

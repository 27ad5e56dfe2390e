"""Every interval a report prints is named where it is printed: its kind, or what it is over
("95% interval over identities", "resampling its pairings", "Its intervals: fixed-design"). A
table is read on its own (a phone scrolls it sideways, a reader jumps to it from the contents),
so its intervals are named in its cells or in the line under it, not only in the Limitations
or the glossary. The check finds a table of figures whose "[a, b]" nothing names, and the
five-run audit's report (pst-text, pst, its mitigation, pairs, stories) has none, nor has the
report of its pst-text run or its stories run alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.core.report.conftest import AuditRuns
from tests.support.surfaces.interval_kinds import unnamed_interval_problems

FIGURES = (
    "#### Figures with their intervals\n\n| figure | value | 95% interval | n |\n"
    "|---|---:|---|---:|\n| STS paired | −0.55 | [−2.58, 1.48] | 1,600 prompts |\n"
)


def test_a_table_of_figures_with_unnamed_intervals_is_found(tmp_path: Path) -> None:
    (tmp_path / "report.md").write_text(
        f"## Results\n\n{FIGURES}\n## Limitations\n\n- The figures' 95% intervals are t "
        "intervals over the units each figure resamples.\n",
        encoding="utf-8",
    )
    found = unnamed_interval_problems(tmp_path)
    assert len(found) == 1 and found[0].startswith("md: an interval printed unnamed"), found
    assert "[−2.58, 1.48]" in found[0] and "Figures with their intervals" in found[0]


def test_the_same_table_with_its_intervals_named_under_it_passes(tmp_path: Path) -> None:
    named = FIGURES + "\nIts 95% intervals: t intervals over the units each figure resamples.\n"
    (tmp_path / "report.md").write_text(f"## Results\n\n{named}", encoding="utf-8")
    assert unnamed_interval_problems(tmp_path) == []
    # A sentence's interval ("95% interval −2.58 to 1.48") is read as a table's is.
    (tmp_path / "report.md").write_text(
        "## Findings\n\n- STS paired −0.55, 95% interval −2.58 to 1.48.\n", encoding="utf-8"
    )
    assert len(unnamed_interval_problems(tmp_path)) == 1


@pytest.mark.parametrize("which", [0, 4], ids=["pst-text", "stories"])
def test_every_interval_of_a_text_or_stories_report_is_named(
    audit: AuditRuns, tmp_path: Path, which: int
) -> None:
    out = tmp_path / "rep"
    with Workspace.open(audit.ws_path) as ws:
        ws.analysis.report([audit.runs[which]], out, formats="html,md")
    assert unnamed_interval_problems(out) == []
    markdown = (out / "report.md").read_text(encoding="utf-8")
    if which == 0:
        # pst-text's figures (t over their units; its gap from each setting's interval) and
        # its intervals by stereotyped gender, each named under its table.
        assert (
            "Its 95% intervals: t intervals over the units each figure resamples (on the logit "
            "scale of the figure's range); and for the gap between the two settings, one made "
            "from each setting's interval." in markdown
        )
        assert "Each interval resamples both identity lists" in markdown
    else:
        # The crime-lexicon shares: Jeffreys intervals, under the table and on the chart.
        assert "Its 95% intervals: Jeffreys intervals of a share." in markdown
        assert "bars their 95% intervals (Jeffreys intervals of a share)" in markdown


def test_every_interval_of_the_audits_report_is_named(audit: AuditRuns, tmp_path: Path) -> None:
    out = tmp_path / "rep"
    with Workspace.open(audit.ws_path) as ws:
        ws.analysis.report(audit.runs, out, formats="html,md")
    assert unnamed_interval_problems(out) == []
    markdown = (out / "report.md").read_text(encoding="utf-8")
    # A chart drawn from a table names its bars as the table's note does.
    assert (
        "As its table says: Mean score, refusal and neither rates: the intervals resample "
        "scenarios (each with all its images and answers)." in markdown
    )
    # The change a mitigation made, with the units its interval is over.
    assert "over the units “Mitigations compared” names). Its side effects" in markdown


def test_a_chart_of_headline_figures_names_its_bars_as_their_table_does() -> None:
    from diptych.core.report.charts import chart_from_numbers

    share = {"value": 0.25, "ci_low": 0.1, "ci_high": 0.5, "interval_method": "jeffreys"}
    looked = {**share, "interval_name": "95% anytime-valid interval, look 1 of 4"}
    chart = chart_from_numbers({"share a": share, "share b": looked}, "c", "figures")
    assert chart is not None
    assert chart.note == (
        "Points are the headline figures, bars their 95% intervals (Jeffreys intervals of a "
        "share; 95% anytime-valid interval, look 1 of 4), in the probe's order."
    )

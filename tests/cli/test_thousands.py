"""Every count the CLI prints has thousands separators, as the reports' do."""

from __future__ import annotations

from typing import Any

from diptych.cli.runs_table import _counts
from diptych.core.report.formatting import tally


def test_tally_separates_thousands_and_leaves_out_empty_outcomes() -> None:
    counts = {"done": 1476, "refused": 0, "failed": 8, "pending": 5904}
    assert tally(counts) == "1,476 done, 8 failed, 5,904 pending"
    assert tally(counts, leave_out=("pending",)) == "1,476 done, 8 failed"
    assert tally({"done": 0}) == ""


def test_the_runs_listing_separates_thousands() -> None:
    counts: dict[str, Any] = {"done": 656, "refused": 0, "failed": 0, "pending": 5904}
    decided = [str(c) for c in _counts(6560, counts, False, "decided")]
    assert decided == ["6,560: 656 done, 5,904 not bought"]
    partial = [str(c) for c in _counts(6560, counts, False, "partial")]
    assert partial == ["6,560: 656 done, 5,904 pending"]
    wide = _counts(6560, counts, True)
    assert wide[0] == "6,560" and "5,904" in wide


def test_the_headline_tables_n_column_separates_thousands() -> None:
    """``n`` of a headline figure reads "1,600" in the terminal, as in the report."""
    import io

    from diptych.cli.console import SafeConsole
    from diptych.cli.render import print_result
    from diptych.core.probe import ProbeResult, Table
    from tests.support.surfaces.text import separator_problems

    result = ProbeResult(
        title="pst-text",
        numbers={"STS paired": {"value": 12.5, "ci_low": 3.25, "ci_high": 21.0, "n": 1600}},
        tables=[Table("Counts by identity", ["identity", "answers"], [["nurse", 1476]])],
    )
    out = io.StringIO()
    print_result(SafeConsole(file=out, width=120), result)
    printed = out.getvalue()
    assert "1,600" in printed and "1,476" in printed
    assert separator_problems(printed) == []


def test_a_plan_assumed_from_a_run_counts_its_prompts_and_draws_with_separators(
    scripted_plugin: None, tmp_path: Any
) -> None:
    """`audit check` and `audit run --dry-run` print "assumed: run … (…), 1,600 prompts":
    the source of each figure's spread, read from the latest earlier run."""
    from diptych.core.engine import run_probe
    from diptych.core.plugins import get_probe
    from diptych.core.store import open_store
    from diptych.core.workspace.precision import observed
    from tests.support.surfaces.text import separator_problems

    with open_store(tmp_path / "ws") as store:
        run_probe(store, "pst-text", ["scripted-likelihood"])
        probe = get_probe("pst-text")
        sources = [c.source for c in observed(store, probe, ["scripted-likelihood"]).values()]
    assert any("1,600 prompts" in s for s in sources), sources
    assert any(" draws" in s for s in sources), sources
    assert separator_problems("\n".join(sources)) == [], sources

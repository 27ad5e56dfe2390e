"""Every count the terminal app prints has its thousands separators, as the CLI's and the
report's do: the new run's plan, the Audit screen's parts, the run's outcomes, and whatever
the snapshots show."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from diptych.core.audit.run_status import outcome_line
from diptych.core.engine.planning import Estimate
from diptych.tui.screens.audit import estimate_cells
from diptych.tui.screens.new_run.plan import estimate_text
from tests.support.surfaces.text import separator_problems

SNAPSHOTS = sorted((Path(__file__).parent / "__snapshots__").rglob("*.svg"))
#: The example audit decided at its first look: 6,560 trials, 656 bought, 1,476 unpriced.
ESTIMATE = Estimate(
    planned=6560,
    cached=5084,
    to_run=1476,
    cost=0.0,
    unpriced=1476,
    per_model={"smollm2": {"planned": 1720.0, "to_run": 1476.0, "cost": 0.0}},
)


def test_the_new_runs_plan_separates_thousands() -> None:
    text = estimate_text(ESTIMATE, None).plain
    assert "(1,476 with no known price)" in text
    assert "smollm2: 1,720 trials planned, 1,476 requests to run" in text
    assert separator_problems(text) == []


def test_the_audit_screens_parts_and_a_runs_outcomes_separate_thousands() -> None:
    assert estimate_cells(ESTIMATE) == ("6,560", "5,084", "1,476", "$0.00")
    counts = {"done": 656, "refused": 0, "failed": 0, "pending": 5904}
    assert outcome_line("decided", counts).endswith("not bought 5,904")


def svg_lines(svg: str) -> list[str]:
    """A snapshot's text, a screen line at a time (Textual writes one ``<text>`` per run of
    one style, all of a line at one ``y``)."""
    lines: dict[str, list[str]] = {}
    for y, chunk in re.findall(r'<text[^>]*\by="([\d.]+)"[^>]*>(.*?)</text>', svg):
        lines.setdefault(y, []).append(html.unescape(chunk).replace("\xa0", " "))
    return ["".join(parts) for parts in lines.values()]


@pytest.mark.parametrize("snapshot", SNAPSHOTS, ids=lambda p: p.stem)
def test_no_snapshot_prints_a_count_without_separators(snapshot: Path) -> None:
    lines = svg_lines(snapshot.read_text(encoding="utf-8"))
    assert lines  # the snapshot was read as text
    assert [p for line in lines for p in separator_problems(line)] == []


def test_the_snapshot_reader_finds_a_bare_count() -> None:
    svg = '<text class="r1" x="0" y="20">not&#160;bought&#160;</text><text y="20">5904</text>'
    assert svg_lines(svg) == ["not bought 5904"]
    assert len(separator_problems(svg_lines(svg)[0])) == 1

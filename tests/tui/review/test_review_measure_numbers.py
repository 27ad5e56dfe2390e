"""The measurement mode and the Review screen's figures strip read a run's numbers without its
charts: the analysis they ask for builds no figure and gives the numbers the full analysis
gives; and labels stored faster than an analysis end with the figure of all of them.

The run is the measurement snapshot's (8 × 8 occupations paired on the scripted image model,
256 persons labelled by ``ImageReader``); the labels given are the truth the scripted annotator
answers from.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hosts import MeasureHost, truth_of
from steps import wait_for

from diptych.core.workspace import Workspace
from diptych.plugins.probes.pst import analysis as pst_analysis
from diptych.plugins.probes.pst import figures as pst_figures


def no_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    """Building a chart from here on fails the test."""

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("a figure was built for an analysis asked for its numbers only")

    monkeypatch.setattr(pst_analysis, "_add_figures", refused)
    monkeypatch.setattr(pst_figures, "new_figure", refused)


def label_first(ws: Path, run_id: str, k: int) -> None:
    """The first ``k`` persons of the run labelled by a person (the truth of the image)."""
    with Workspace.open(ws) as workspace:
        for person in workspace.runs.subjects(run_id)[:k]:
            label = "masculine" if person["position"] == 0 else "feminine"
            workspace.labels.save(
                run_id, person["trial_idx"], person["position"], label, reviewer="ana"
            )


def test_the_numbers_without_figures_are_the_full_analysis_numbers(
    scripted_run: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, run_id = scripted_run
    label_first(ws, run_id, 6)
    with Workspace.open(ws) as workspace:
        full = workspace.analysis.analyze(run_id)
        read = workspace.audits.read(run_id)
        # The full analysis draws the paper's Figures 3, 4 and 5 of the occupation aspect.
        assert {f.name[:4] for f in full.figures} >= {"fig3", "fig4"}
        no_figures(monkeypatch)
        bare = workspace.analysis.analyze(run_id, figures=False)
        bare_read = workspace.audits.read(run_id, figures=False)
    assert bare.figures == [] and bare_read.figures == []
    assert "occupation: STS paired" in full.numbers
    assert bare.numbers == full.numbers
    assert bare_read.numbers == read.numbers
    # The tables are the same, cell for cell.
    assert [(t.title, t.rows) for t in bare.tables] == [(t.title, t.rows) for t in full.tables]


async def test_two_labels_back_to_back_end_with_the_figure_of_both(
    scripted_run: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, run_id = scripted_run
    no_figures(monkeypatch)
    app = MeasureHost(ws, run_id)
    async with app.run_test(size=(80, 24)) as pilot:
        measure = app.measure
        await wait_for(pilot, lambda: measure.draw is not None and measure.numbers is not None)
        before = measure.numbers
        for _ in range(2):
            item = measure.state.current()
            assert item is not None
            await pilot.press("m" if truth_of(item) == "masculine" else "f")
        await wait_for(pilot, lambda: app.saved == 2)
        with Workspace.open(ws) as workspace:
            after_both = workspace.analysis.analyze(run_id, figures=False).numbers
        assert after_both != before
        # The figure shown is that of both labels, and no later result replaces it.
        await wait_for(pilot, lambda: measure.numbers == after_both)
        await wait_for(pilot, lambda: not measure._metrics_running)
        await pilot.pause(0.2)
        assert measure.numbers == after_both

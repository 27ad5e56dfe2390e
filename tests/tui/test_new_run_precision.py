"""The New-run screen's estimate states the expected half-width of each headline figure for the
design on the form, and warns of a design too small to decide anything, as ``diptych run
--dry-run`` does."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from steps import SIZE, choose_probe, wait_for
from textual.pilot import Pilot
from textual.widgets import SelectionList

from diptych.core.metrics.uncertainty.intervals import STS_RANGE
from diptych.core.metrics.uncertainty.precision import (
    PlannedDesign,
    expected_interval,
    smallest_design,
)
from diptych.plugins.probes._paired_stereotype_test.precision import PAPER_COMPONENTS, UNITS
from diptych.tui.app import DiptychApp
from diptych.tui.screens.new_run.plan import form_id
from diptych.tui.screens.new_run.screen import NewRunScreen
from diptych.tui.widgets.params_form import ParamsForm
from diptych.tui.widgets.whole_numbers import WholeNumbers


async def test_the_estimate_panel_states_precision_and_warns(
    scripted: None, workspace: Path
) -> None:
    app = DiptychApp(workspace, refresh_interval=60)
    async with app.run_test(size=(SIZE[0], 40)) as pilot:
        screen = await three_by_three(pilot)
        shown = estimate_of(screen)
        await wait_for(pilot, lambda: "warning:" in shown(), "the precision", shown=shown)
        text = shown()
    # Likelihood mode asks each person of 9 scenes in both orders: 36 trials.
    assert "36 trials planned" in text
    assert "expected half-width of each 95% interval (per model):" in text
    found = re.search(
        r"STS paired \(expected from P\(he\), P\(she\)\): ±([\d.]+) "
        r"\(3 masculine × 3 feminine identities crossed in scenes, df 2, t 4\.30\)",
        text,
    )
    assert found, text
    # The expected STS resamples identities: each scene's 4 prompts (both orders, two
    # people), the paper's spread standing in for a text model's.
    design = PlannedDesign("grid", UNITS, (3, 3), 4, "identities")
    paper = PAPER_COMPONENTS[("occupation", "paired")]
    expected = expected_interval(design, paper, bounds=STS_RANGE)
    assert float(found.group(1)) == pytest.approx(expected.half_width, rel=5e-3)
    # The drawn labels' interval resamples the identities too: one sample, so a scene's cell
    # holds the same 4 answers (in 2 draws) as its 4 prompts, and the same half-width.
    drawn = re.search(
        r"STS paired \(drawn labels\): ±([\d.]+) "
        r"\(3 masculine × 3 feminine identities crossed in scenes, df 2, t 4\.30\)",
        text,
    )
    assert drawn, text
    assert float(drawn.group(1)) == pytest.approx(expected.half_width, rel=5e-3)
    warnings = [line for line in text.splitlines() if line.startswith("warning:")]
    # 3 × 3 identities leave 2 degrees of freedom: one line, as both figures share the lists.
    assert len(warnings) == 1
    assert "3 masculine × 3 feminine identities crossed in scenes leave STS paired" in warnings[0]
    assert "a t interval with 2 degrees of freedom (t 4.30)" in warnings[0]


async def test_a_target_half_width_names_the_smallest_design(
    scripted: None, workspace: Path
) -> None:
    # The form's target_width is `--target-width`: the estimate names the smallest design
    # expected to reach it, the one the core finds; the other run options reach the request
    # as the CLI's --max-retry-wait and --paid-retries do.
    app = DiptychApp(workspace, refresh_interval=60)
    async with app.run_test(size=(SIZE[0], 40)) as pilot:
        screen = await three_by_three(pilot)
        options = screen.query_one("#form-run", ParamsForm)
        options.set_value("target_width", "10")
        options.set_value("max_retry_wait", "30")
        options.set_value("paid_retries", "2")
        shown = estimate_of(screen)
        await wait_for(pilot, lambda: "±10.0 needs" in shown(), "the target design", shown=shown)
        text = shown()
        request = screen.validate()
    assert request is not None
    assert (request.target_width, request.max_retry_wait, request.paid_retries) == (10.0, 30, 2)
    engine = request.options()
    assert engine.retry.max_retry_wait == 30 and engine.paid_retries == 2
    design = PlannedDesign("grid", UNITS, (3, 3), 4, "identities")
    comp = PAPER_COMPONENTS[("occupation", "paired")]
    target = smallest_design(design, comp, 10.0, bounds=STS_RANGE)
    assert target is not None
    n = target.sizes[0]
    name = "STS paired (expected from P(he), P(she))"
    crossed = f"{n} masculine × {n} feminine identities crossed in scenes"
    assert f"{name}: ±10.0 needs {crossed} (expected ±" in text
    assert f"STS paired (drawn labels): ±10.0 needs {crossed} (expected ±" in text


async def three_by_three(pilot: Pilot[Any]) -> NewRunScreen:
    """New run on a pst-text plan of 3 × 3 occupations, paired, on the scripted likelihood."""
    await pilot.press("n")
    screen = pilot.app.screen
    assert isinstance(screen, NewRunScreen)
    await choose_probe(pilot, "pst-text")
    screen.query_one("#models", SelectionList).select("scripted-likelihood")
    await wait_for(
        pilot, lambda: bool(screen.query(f"#{form_id('scripted-likelihood')}")), "model form"
    )
    form = screen.query_one("#form-probe", ParamsForm)
    form.set_value("masculine", "carpenter,driver,janitor")
    form.set_value("feminine", "nurse,editor,housekeeper")
    form.set_value("setting", "paired")
    return screen


def estimate_of(screen: NewRunScreen) -> Callable[[], str]:
    """The plan's text as the screen shows it now, its lines as written (read before the
    box wraps them, so that a phrase is matched whole wherever it falls)."""
    estimate = screen.query_one("#estimate", WholeNumbers)
    return lambda: estimate.text.plain

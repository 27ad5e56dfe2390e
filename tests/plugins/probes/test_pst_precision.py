"""A dry run plans from an earlier run of the same probe in the workspace: its variance
components replace the paper's, worked out here from the planted answers."""

from __future__ import annotations

import statistics

import pytest

from diptych.core.workspace import Workspace

MASCULINE = ["carpenter", "driver", "farmer", "lawyer"]
FEMININE = ["nurse", "editor", "baker", "clerk"]
#: P(she) by identity: the masculine ones spread, the feminine ones all alike.
PLANTED = {"carpenter": 0.1, "driver": 0.2, "farmer": 0.3, "lawyer": 0.4}
PLANTED |= dict.fromkeys(FEMININE, 0.7)
EXPECTED = "STS paired (expected from P(he), P(she))"


def test_an_earlier_run_gives_the_components(
    diptych_workspace: Workspace, scripted_plugin: None
) -> None:
    ws = diptych_workspace
    target = ws.plugins.model(("scripted-likelihood", {"p_feminine": PLANTED}))
    params = {"masculine": MASCULINE, "feminine": FEMININE, "setting": "paired"}
    before = ws.runs.plan("pst-text", [target], params=params, precision=True)
    assert before.precision is not None
    paper = {f.name: f for f in before.precision.figures}[EXPECTED]
    assert paper.components.source.startswith("the PST paper's DALL-E 3 figures")

    earlier = ws.runs.run_sync("pst-text", [target], params=params)
    after = ws.runs.plan("pst-text", [target], params=params, precision=True)
    assert after.precision is not None
    comp = {f.name: f for f in after.precision.figures}[EXPECTED].components
    assert comp.source.startswith(f"run {earlier.id} (")
    # A masculine person's expected Stereo is 2·P(he) − 1; a scene's mean averages it with
    # its feminine partner's (all alike here): the rows move a scene by half the masculine
    # identities' spread; the columns not at all; the scene is additive (no cell effect).
    stereo = [100 * (2 * (1 - PLANTED[m]) - 1) for m in MASCULINE]
    assert comp.rows == pytest.approx(statistics.stdev(stereo) / 2)
    assert comp.cols == pytest.approx(0.0, abs=1e-9)
    assert comp.interaction == pytest.approx(0.0, abs=1e-6)
    assert comp.centre == pytest.approx((statistics.mean(stereo) + 100 * (2 * 0.7 - 1)) / 2)
    # Planned from the run, the expected half-width differs from the paper's.
    figure = {f.name: f for f in after.precision.figures}[EXPECTED]
    assert figure.expected.half_width != paper.expected.half_width


def test_a_run_of_the_same_design_is_preferred_even_when_older(
    diptych_workspace: Workspace, scripted_plugin: None
) -> None:
    ws = diptych_workspace
    target = ws.plugins.model(("scripted-likelihood", {"p_feminine": PLANTED}))
    params = {"masculine": MASCULINE, "feminine": FEMININE, "setting": "paired"}
    same = ws.runs.run_sync("pst-text", [target], params=params)
    other = {**params, "masculine": MASCULINE[:3], "feminine": FEMININE[:3]}
    later = ws.runs.run_sync("pst-text", [target], params=other)
    assert later.created_at >= same.created_at
    plan = ws.runs.plan("pst-text", [target], params=params, precision=True)
    assert plan.precision is not None
    comp = {f.name: f for f in plan.precision.figures}[EXPECTED].components
    assert comp.source.startswith(f"run {same.id} (")

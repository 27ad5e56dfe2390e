"""The plan of a pst-text run's drawn-labels STS resamples what its interval resamples: both
identity lists, the units that vary (a scene's draws share its two identities), with every
answer of a scene in its cell; so the design it plans is the run's, with the run's df."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.engine import run_probe
from diptych.core.metrics.uncertainty.precision import figure_precision
from diptych.core.plugins import get_probe
from diptych.core.runview import RunView
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.plugins.probes._paired_stereotype_test.precision import UNITS
from diptych.testing import ScriptedLikelihood, ScriptedParams

MASCULINE = {"carpenter": 0.1, "sheriff": 0.3, "janitor": 0.2, "driver": 0.45}
FEMININE = {"nurse": 0.9, "editor": 0.6, "housekeeper": 0.75, "secretary": 0.55}
SAMPLES = {"paired": 6, "single": 12}


def test_the_drawn_labels_plan_is_the_runs_design_over_identities(tmp_path: Path) -> None:
    params = {
        "masculine": list(MASCULINE),
        "feminine": list(FEMININE),
        "samples_paired": SAMPLES["paired"],
        "samples_single": SAMPLES["single"],
    }
    model = ScriptedLikelihood(ScriptedParams(p_feminine={**MASCULINE, **FEMININE}))
    ws_path = tmp_path / "ws"
    with open_store(ws_path) as store:
        run = run_probe(store, "pst-text", [model], probe_params=params)
        probe = get_probe("pst-text", params)
        observed = probe.observed_components(RunView(store, run))
    with Workspace.open(ws_path) as ws:
        numbers = ws.analysis.analyze(run.id).numbers
    planned = {f.name: f for f in probe.planned_figures()}
    # Paired: a scene's cell holds both orders, two people each, six samples: 24 answers in
    # 12 draws; 16 scenes. Single: an identity's 12 answers, one a draw; 8 identities.
    # The crossed design's df is the smaller list's less one; the strata's 8 − 2.
    cases = {
        "paired": (24, "4 masculine × 4 feminine identities crossed in scenes, df 3,", 3,
                   "384 answers in 192 draws"),
        "single": (12, "4 masculine and 4 feminine identities as separate lists, df 6,", 6,
                   "96 answers"),
    }  # fmt: skip
    for setting, (per_cell, words, df, counted) in cases.items():
        name = f"STS {setting} (drawn labels)"
        plan = planned[name]
        assert (plan.design.units, plan.design.sizes) == (UNITS, (4, 4))
        assert plan.design.per_cell == per_cell
        stand_in = figure_precision(plan)
        assert words in stand_in.line(), stand_in.line()
        got = numbers[name]
        assert got["units"] == {"masculine identity": 4, "feminine identity": 4}
        # The strata's df is Welch's in the run, so near the planned one, not equal to it.
        assert figure_precision(plan).expected.df == df
        assert got["df"] == pytest.approx(df, abs=0.5), got
        # The spread read off the run names its answers and draws as the report does.
        assert observed[name].source.endswith(f", {counted}"), observed[name].source


def test_one_masculine_identity_plans_no_interval_for_the_drawn_labels() -> None:
    probe = get_probe("pst-text", {"masculine": ["analyst"]})
    planned = {f.name: figure_precision(f) for f in probe.planned_figures()}
    # One masculine identity varies over nothing, however many draws its scenes give: the
    # drawn labels, as the expected STS, have no interval (the run gives none either).
    for name in ("STS paired (drawn labels)", "STS paired (expected from P(he), P(she))"):
        line = planned[name].line()
        assert "no interval" in line and "one masculine identity" in line, line

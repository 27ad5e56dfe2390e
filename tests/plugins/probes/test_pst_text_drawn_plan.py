"""The plan of a pst-text run's drawn-labels STS resamples what its interval resamples: the draws
(one scene in one order, its labels drawn once), so the half-width it predicts is the one the
run shows, with the run's n and df."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

from diptych.core.engine import run_probe
from diptych.core.metrics.uncertainty.precision import figure_precision
from diptych.core.plugins import get_probe
from diptych.core.runview import RunView
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.testing import ScriptedLikelihood, ScriptedParams

MASCULINE = {"carpenter": 0.1, "sheriff": 0.3, "janitor": 0.2, "driver": 0.45}
FEMININE = {"nurse": 0.9, "editor": 0.6, "housekeeper": 0.75, "secretary": 0.55}
SAMPLES = {"paired": 6, "single": 12}


def _known_draw_sd(setting: str) -> float:
    """The SD of one draw's STS over the run's draws, from the planted P(she): a person's
    Stereo is ±100 with P(stereotyped) q, mean 100(2q − 1) and variance 100²·4q(1 − q); a
    paired draw averages its scene's two people, every scene equally often."""

    def moments(identity: str) -> tuple[float, float]:
        q = MASCULINE.get(identity)
        q = 1 - q if q is not None else FEMININE[identity]
        return 100 * (2 * q - 1), 100**2 * 4 * q * (1 - q)

    if setting == "paired":
        draws = [
            ((moments(m)[0] + moments(f)[0]) / 2, (moments(m)[1] + moments(f)[1]) / 4)
            for m in MASCULINE
            for f in FEMININE
        ]
    else:
        draws = [moments(i) for i in [*MASCULINE, *FEMININE]]
    centre = sum(mu for mu, _ in draws) / len(draws)
    spread = sum((mu - centre) ** 2 for mu, _ in draws) / len(draws)
    return math.sqrt(spread + sum(var for _, var in draws) / len(draws))


def test_the_drawn_labels_plan_predicts_the_interval_the_run_gives(tmp_path: Path) -> None:
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
    for setting, draws in (("paired", 2 * 4 * 4 * 6), ("single", 8 * 12)):
        name = f"STS {setting} (drawn labels)"
        # The paper standing in (no earlier run): the plan already counts the draws.
        stand_in = figure_precision(planned[name])
        assert stand_in.line().startswith(f"{name}: ±"), stand_in.line()
        assert f"({draws} draws, df {draws - 1}, t " in stand_in.line()
        assert not stand_in.warnings
        # The draws' spread read off the run is the planted one, within its sampling error
        # (an SD from G draws has a relative SE of about 1 / √(2(G − 1)); four of them).
        comp = observed[name]
        known = _known_draw_sd(setting)
        assert abs(comp.rows - known) <= 4 * known / math.sqrt(2 * (draws - 1)), (comp, known)
        # With that spread the plan predicts the run's own interval: the two read the same
        # draws' SD, so they differ by the plan's Monte Carlo error, by how far an SD
        # estimated from G draws falls short of the SD on average (1 / (4(G − 1)) of it), and
        # by the bounded scale's curvature: a replicate's figure wanders about one SE from
        # the centre, which moves its width on [−100, 100] by about 2·(SE / 100)² of it.
        got = numbers[name]
        assert got["units"] == {"draw": draws}
        actual = (got["ci_high"] - got["ci_low"]) / 2
        plan = figure_precision(replace(planned[name], components=comp)).expected
        assert plan.df == got["df"] == draws - 1
        curve = 2 * (plan.se / 100) ** 2
        bound = 4 * plan.mc_error + actual * (1 / (4 * (draws - 1)) + curve)
        assert abs(plan.half_width - actual) <= bound, (setting, plan.half_width, actual)


def test_one_masculine_identity_still_plans_an_interval_over_draws() -> None:
    probe = get_probe("pst-text", {"masculine": ["analyst"]})
    planned = {f.name: figure_precision(f) for f in probe.planned_figures()}
    drawn = planned["STS paired (drawn labels)"]
    # 1 × 20 scenes in both orders, once each: 40 draws, so the run gives an interval.
    assert "(40 draws, df 39, t " in drawn.line()
    assert not drawn.warnings
    # The expected STS resamples identities: one masculine identity gives it none.
    assert "no interval" in planned["STS paired (expected from P(he), P(she))"].line()

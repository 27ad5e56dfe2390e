"""The figures no gate read, of a null audit its gates stopped early: does the interval every
surface prints for them cover the truth?

A design bought batch by batch stops at the first look where its gate is decided, a look chosen
on what the gated figure showed. Another figure of the same answers moves with it, so at that
look it sits low or high by chance too, and its fixed-design interval no longer holds.
``diptych show``, the standings and the report print for it instead the anytime-valid interval
of its own looks (:func:`diptych.core.workspace.decided.anytime_interval`, the code those
surfaces run), at 95%.

Each simulated audit is the likelihood-mode ``pst-text`` design of :mod:`.figures` (s × s
identities drawn afresh, every unordered scene asked in 4 prompts, the identities moving a scene
with SDs 5.6 and 13.2 STS points, the prompts around it with SD 62), with nothing planted: the
truth of every STS is 0. Its gate reads the STS expected from P(he), P(she), ``below L`` with L
``LIMIT_SE`` complete-design standard errors above the truth, so that it passes at an early look
where the figure fell low by chance. The figure no gate reads is the STS of labels drawn from
each prompt's probabilities: the same truth, and the same identities and prompts as the gated
one. The requests are bought in a random order in 10 batches; after each, both figures are made
with :func:`resampling.mean_over_units` (the analysis's interval) and the gate is decided by
:func:`evaluate_gates` on :func:`anytime_figure`, as ``audit run --until-decided`` does.

* ``sequential.stopped_coverage``: over the audits stopped before their last look, the share
  whose printed interval (the anytime-valid one of the figure's own looks) covers the truth
  (want ≥ 0.95, its nominal level), beside the share the fixed-design interval of the same look
  would have covered (``fixed_design``), each with its Monte Carlo error, and how many audits
  stopped early.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from bench.harness import Result, bench, result

#: Identities a side, batches, audits, the gate's limit in complete-design standard errors, and
#: the seed.
SIDE = 12
BATCHES = 10
AUDITS = 1200
LIMIT_SE = 2.5
SEED = 53
#: The figures: the gated one and the one no gate reads.
GATED = "STS paired (expected from P(he), P(she))"
UNGATED = "STS paired (drawn labels)"


def null_audit(side: int, rng: Any) -> tuple[Any, Any, Any, Any, int]:
    """One null audit's observations in the order its requests are bought: each prompt's
    expected STS and the STS of a label drawn from it, its masculine and feminine identities,
    and the number of requests."""
    import numpy as np

    a = rng.normal(0.0, 5.6, side)
    b = rng.normal(0.0, 13.2, side)
    rows = np.repeat(np.repeat(np.arange(side), side), 4)
    cols = np.repeat(np.tile(np.arange(side), side), 4)
    # P(stereotyped) of each prompt, around its scene's (as figures.Design PST_TEXT does).
    m = np.clip((1.0 + (a[rows] + b[cols]) / 100.0) / 2.0, 1e-6, 1 - 1e-6)
    var = np.minimum((62.0 / 200.0) ** 2, 0.9 * m * (1 - m))
    k = m * (1 - m) / var - 1.0
    p = rng.beta(m * k, (1 - m) * k)
    expected = 100.0 * (2.0 * p - 1.0)
    drawn = np.where(rng.random(p.size) < p, 100.0, -100.0)
    order = rng.permutation(p.size)
    return expected[order], drawn[order], rows[order], cols[order], int(p.size)


def _numbers(values: Any, rows: Any, cols: Any, n: int) -> dict[str, Any]:
    from diptych.core.metrics.uncertainty.intervals import STS_RANGE
    from diptych.core.metrics.uncertainty.resampling import mean_over_units

    units = {"masculine identity": rows[:n], "feminine identity": cols[:n]}
    return mean_over_units(values[:n], units, bounds=STS_RANGE).to_dict()


def stopped_audit(side: int, limit: float, rng: Any) -> tuple[bool, bool, bool] | None:
    """One null audit bought until its gate is decided: None where it was bought whole, else
    whether the ungated figure's anytime-valid interval at the stop covers the truth (0), whether
    its fixed-design one does, and whether the anytime-valid one was made at all."""
    from diptych.core.audit.gates import GateFigure, GateRule, evaluate_gates
    from diptych.core.audit.sequential import Look, anytime_figure
    from diptych.core.workspace.decided import anytime_interval

    expected, drawn, rows, cols, requests = null_audit(side, rng)
    rule = GateRule("g", "p", GATED, "below", limit)
    looks: list[Look] = []
    for batch in range(1, BATCHES):  # the last look is the complete design: not a stop
        bought = math.ceil(batch * requests / BATCHES)
        numbers = {
            GATED: _numbers(expected, rows, cols, bought),
            UNGATED: _numbers(drawn, rows, cols, bought),
        }
        looks.append(Look(batch, bought, requests, numbers))
        found = []
        for look in looks:
            fig = GateFigure.from_number(look.numbers[GATED])
            found.append((look, fig if isinstance(fig, GateFigure) else None))
        combined = anytime_figure(found)
        if combined is None:
            continue
        (decided,) = evaluate_gates([rule], {("p", GATED, "below"): combined})
        if decided.verdict == "inconclusive":
            continue
        fixed = numbers[UNGATED]
        covered_fixed = bool(fixed["ci_low"] <= 0.0 <= fixed["ci_high"])
        made = anytime_interval(UNGATED, looks)
        if made is None:
            return covered_fixed, covered_fixed, False
        return bool(made["ci_low"] <= 0.0 <= made["ci_high"]), covered_fixed, True
    return None


def complete_se(side: int, rng: Any, audits: int = 200) -> float:
    """The complete design's standard error: the spread of its gated figure over audits."""
    import numpy as np

    values = []
    for _ in range(audits):
        expected, _, rows, cols, requests = null_audit(side, rng)
        values.append(_numbers(expected, rows, cols, requests)["value"])
    return float(np.std(values, ddof=1))


def stopped_coverage(audits: int, side: int = SIDE, seed: int = SEED) -> dict[str, Any]:
    """The coverage of the interval printed for the figure no gate read, over the audits of
    ``audits`` null audits their gate stopped early, and of its fixed-design interval."""
    import numpy as np

    rng = np.random.default_rng(seed)
    limit = LIMIT_SE * complete_se(side, rng)
    found = [stopped_audit(side, limit, rng) for _ in range(audits)]
    stopped = [f for f in found if f is not None]
    n = len(stopped)
    share = sum(f[0] for f in stopped) / n if n else math.nan
    fixed = sum(f[1] for f in stopped) / n if n else math.nan
    return {
        "coverage": share,
        "fixed_design": fixed,
        "stopped": n,
        "audits": audits,
        "limit": limit,
        "unmade": sum(not f[2] for f in stopped),
    }


def _mc(p: float, n: int) -> float:
    return round(math.sqrt(p * (1 - p) / n), 4) if n else math.nan


@bench(sequential__stopped_coverage=">= 0.95")
def sequential_stopped_coverage() -> Iterator[Result]:
    found = stopped_coverage(AUDITS, side=SIDE, seed=SEED)
    n = found["stopped"]
    yield result(
        "sequential.stopped_coverage", found["coverage"], "fraction",
        mc_error=_mc(found["coverage"], n), fixed_design=round(found["fixed_design"], 4),
        fixed_design_mc_error=_mc(found["fixed_design"], n), stopped_early=n,
        audits=found["audits"], identities_a_side=SIDE, batches=BATCHES,
        limit_se=LIMIT_SE, anytime_unmade=found["unmade"],
    )  # fmt: skip

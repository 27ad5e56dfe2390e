"""The simulation behind ``agent.mitigation_power`` (registered in bench/agent/figures.py): is the
power the mitigation search states for its decisions the power they have?

A planted world: 20 masculine- and 20 feminine-stereotyped identities whose P(stereotyped
pronoun) is 0.70 ± 0.08 (an SD over identities), every prompt moving it by a further ± 0.05.
The baseline run asks 6 × 6 of them in the run's own prompt; the agent reads its variance
components (as it reads a real baseline's: the expected Stereo of each distinct prompt),
splits its identities and plans its designs (:func:`diptych.agent.mitigation.power
.plan_designs`, adding paper identities from the rest of the lists where 3 × 3 cannot reach
0.8). A planted intervention then lowers the STS by the agent's threshold, unevenly: each
identity keeps its stereotype in proportion, the proportion itself varying by ± 30% of the
reduction over identities; its prompts move as much as the baseline's do. Each replicate
draws the search's (and the held-out's) baseline and treated prompts afresh and takes the
agent's own decision (:func:`diptych.agent.paired.scene_difference`, interval below 0). The
same with no intervention gives the decision's false-finding rate.
"""

from __future__ import annotations

from typing import Any

import numpy as np

N_IDENTITIES = 20
P_STEREO = 0.70
IDENTITY_SD = 0.08
PROMPT_SD = 0.05
UNEVEN = 0.30
REPLICATES = 300
GENDERS = ("masculine", "feminine")


def _world(rng: np.random.Generator) -> tuple[dict[str, list[str]], dict[str, float]]:
    """The paper's identities of each list, and each one's P(stereotyped pronoun)."""
    from diptych.agent.proposals import paper_identities

    paper = paper_identities()
    lists = {g: [i for i, s in paper.items() if s == g][:N_IDENTITIES] for g in GENDERS}
    p = {
        name: float(np.clip(P_STEREO + rng.normal(0, IDENTITY_SD), 0.01, 0.99))
        for names in lists.values()
        for name in names
    }
    return lists, p


def _persons(
    ids: dict[str, list[str]],
    templates: list[str],
    p: dict[str, float],
    keep: dict[str, float] | None,
    rng: np.random.Generator,
) -> dict[Any, float]:
    """Every person of the design in every template and order: its expected Stereo, 2P − 1,
    with a fresh prompt deviation; ``keep`` (per identity) the share of its stereotype an
    intervention leaves."""
    out: dict[Any, float] = {}
    for m in ids["masculine"]:
        for f in ids["feminine"]:
            for tid in templates:
                for order in ("mf", "fm"):
                    for who in (m, f):
                        stereo = 2 * p[who] - 1
                        if keep is not None:
                            stereo *= keep[who]
                        prompt = stereo / 2 + 0.5 + rng.normal(0, PROMPT_SD)
                        value = 2 * float(np.clip(prompt, 0, 1)) - 1
                        out[(m, f, tid, f"{order}:{m}|{f}", who)] = value
    return out


def simulate(seed: int = 0) -> dict[str, Any]:
    from diptych.agent.mitigation.power import THRESHOLD, plan_designs, scaled_change
    from diptych.agent.mitigation.prompts import PAIRED_TEMPLATE, mitigation_templates
    from diptych.agent.paired import scene_difference
    from diptych.core.metrics.uncertainty.precision import components_of

    rng = np.random.default_rng(seed)
    genders, p = _world(rng)
    base_ids = {g: ids[:6] for g, ids in genders.items()}
    own = _persons(base_ids, ["own"], p, None, rng)
    comp = components_of(
        [100 * v for v in own.values()],
        {"masculine identity": [k[0] for k in own], "feminine identity": [k[1] for k in own]},
        source="the simulated baseline",
    )
    search = {g: ids[:3] for g, ids in base_ids.items()}
    held = {g: ids[3:] for g, ids in base_ids.items()}
    halves = search
    templates = mitigation_templates(PAIRED_TEMPLATE)
    tids = {side: [t for t, _ in templates[side]] for side in ("search", "heldout")}
    search, held, power = plan_designs(
        search, held, scaled_change(comp, THRESHOLD),
        templates=(len(tids["search"]), len(tids["heldout"])), pool=genders, seed=seed,
    )  # fmt: skip
    sts = 100 * float(np.mean([2 * p[i] - 1 for g in base_ids.values() for i in g]))
    k = THRESHOLD / sts

    def rate(ids: dict[str, list[str]], side: str, effect: bool) -> float:
        found = 0
        for _ in range(REPLICATES):
            keep = {i: 1 - k * (1 + rng.normal(0, UNEVEN)) for i in p} if effect else None
            base = _persons(ids, tids[side], p, None, rng)
            treated = _persons(ids, tids[side], p, keep, rng)
            diff = scene_difference(base, treated)
            found += diff is not None and float(diff["ci_high"]) < 0
        return found / REPLICATES

    from diptych.agent.mitigation.power import design_of, power_of

    # The halves the agent would have had (3 × 3): stated and measured, where power is middling.
    small = power_of(
        design_of(halves, len(tids["search"])), scaled_change(comp, THRESHOLD), THRESHOLD
    )
    return {
        "small": {"stated": small, "measured": rate(halves, "search", True)},
        "power": power,
        "search": rate(search, "search", True),
        "heldout": rate(held, "heldout", True),
        "null": rate(search, "search", False),
        "baseline_sts": sts,
    }

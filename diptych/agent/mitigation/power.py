"""How a mitigation search chooses its designs so that its decisions have stated power.

A mitigation's decision is "its change's interval lies below 0", first on the search
identities and then on the held-out ones; each interval crosses the two identity lists of the
unordered scenes (:func:`diptych.agent.paired.scene_difference`), so with 2 × 2 identities it has
1 degree of freedom and a t multiplier of 12.7: no intervention could ever be found. Before
anything runs, the agent states the power of each decision to find a reduction of ``threshold``
STS points — the effect size it reports as its threshold — on the real interval
(:func:`diptych.core.metrics.uncertainty.precision.decision_power`), with the change assumed to vary
over identities and prompts as :func:`scaled_change` states from the baseline run's own variance
components.

Where either decision has less than
:data:`~diptych.core.metrics.uncertainty.precision.WANTED_POWER`, the designs grow: the smallest
identity lists that reach it are taken, the baseline's own identities first and then, where the
baseline used the paper's lists, more of them. Where even that cannot reach it, the agent says so —
with the power it has and the identities it would need — and searches anyway.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

from diptych.core.digits import figure_text
from diptych.core.metrics.uncertainty.intervals import STS_DIFFERENCE_RANGE
from diptych.core.metrics.uncertainty.precision import (
    WANTED_POWER,
    Components,
    PlannedDesign,
    decision_power,
    smallest_powered_design,
)
from diptych.core.workspace import Workspace

#: The smallest STS reduction a mitigation search is planned to find (STS points).
THRESHOLD = 10.0
UNITS = ("masculine identity", "feminine identity")
#: The persons of one unordered scene in one template: both orders, both people.
PERSONS_PER_SCENE = 4
#: The baseline's figure whose spread the change is assumed to have, by mode.
FIGURES = ("STS paired (expected from P(he), P(she))", "STS paired (drawn labels)", "STS paired")


def change_components(ws: Workspace, run_id: str, threshold: float = THRESHOLD) -> Components:
    """How a change of ``threshold`` STS points is assumed to vary (:func:`scaled_change`),
    from the baseline run's paired STS (its components) or, where the run cannot say, the
    probe's stated assumption."""
    probe = ws.runs.probe(run_id)
    found = probe.observed_components(ws.runs.view(run_id))
    comp = next((found[name] for name in FIGURES if name in found), None)
    if comp is None:
        planned = [f for f in probe.planned_figures() if "paired" in f.name]
        comp = planned[0].components if planned else Components(50.0, 50.0, 0.0, 100.0)
    return scaled_change(comp, threshold)


def scaled_change(base: Components, threshold: float) -> Components:
    """The components of a change of ``threshold`` STS points, from the baseline's: an
    intervention that lowers the STS by the threshold is assumed to lower each identity's
    stereotype in proportion (the identity components scaled by threshold / baseline STS, at
    most 1), and to move each prompt as much as prompts differ from one another in the
    baseline (the cell and within components, × √2: a treated prompt's deviation and its
    baseline's are two draws)."""
    centre = abs(base.centre)
    k = min(1.0, threshold / centre) if centre > 0 else 1.0
    root2 = 2**0.5
    return Components(
        k * base.rows,
        k * base.cols,
        root2 * base.interaction,
        root2 * base.within,
        f"a change of {threshold:g} scaling each identity's stereotype by {figure_text(k)} and "
        f"moving each prompt as the baseline's prompts differ ({base.source})",
        centre=-threshold,
    )


def design_of(ids: dict[str, list[str]], templates: int) -> PlannedDesign:
    sizes = (len(ids.get("masculine", [])), len(ids.get("feminine", [])))
    return PlannedDesign("grid", UNITS, sizes, PERSONS_PER_SCENE * templates, "identities")


def power_of(design: PlannedDesign, comp: Components, threshold: float) -> float:
    return decision_power(design, comp, threshold, bounds=STS_DIFFERENCE_RANGE)


def _ordered(ids: list[str], seed: int) -> list[str]:
    return sorted(ids, key=lambda i: hashlib.sha256(f"{seed}:{i}".encode()).hexdigest())


def plan_designs(
    search: dict[str, list[str]],
    held: dict[str, list[str]],
    comp: Components,
    *,
    templates: tuple[int, int],
    threshold: float = THRESHOLD,
    pool: dict[str, list[str]] | None = None,
    seed: int = 0,
) -> tuple[dict[str, list[str]], dict[str, list[str]], dict[str, Any]]:
    """The search and held-out identities to use and the power statement.

    ``templates`` counts the search and the held-out templates (each scene is asked in every
    one); ``pool`` holds identities beyond the baseline's that may be added, per gender."""
    design = design_of(search, templates[0])
    need_s = smallest_powered_design(
        design, comp, threshold, bounds=STS_DIFFERENCE_RANGE
    )  # fmt: skip
    need_h = smallest_powered_design(
        design_of(held, templates[1]), comp, threshold, bounds=STS_DIFFERENCE_RANGE
    )
    grown = False
    if need_s is not None and need_h is not None:
        n_s, n_h = need_s.sizes[0], need_h.sizes[0]
        search, held, grown = _grow(search, held, n_s, n_h, pool or {}, seed)
    p_s = power_of(design_of(search, templates[0]), comp, threshold)
    p_h = power_of(design_of(held, templates[1]), comp, threshold)
    out: dict[str, Any] = {
        "threshold": threshold,
        "wanted": WANTED_POWER,
        "search": _side(design_of(search, templates[0]), p_s, comp),
        "heldout": _side(design_of(held, templates[1]), p_h, comp),
        "variance": comp.source,
        "grown": grown,
        "powered": p_s >= WANTED_POWER and p_h >= WANTED_POWER,
    }
    if need_s is not None:
        out["search_needs"] = need_s.describe()
    if need_h is not None:
        out["heldout_needs"] = need_h.describe()
    out["statement"] = statement(out)
    return search, held, out


def _side(design: PlannedDesign, power: float, comp: Components) -> dict[str, Any]:
    from diptych.core.metrics.uncertainty.precision import expected_interval

    got = expected_interval(design, replace(comp, centre=0.0), bounds=STS_DIFFERENCE_RANGE)
    return {
        "design": design.describe(),
        "power": power,
        "df": got.df,
        "t": got.t,
        "half_width": got.half_width,
    }


def _grow(
    search: dict[str, list[str]],
    held: dict[str, list[str]],
    n_s: int,
    n_h: int,
    pool: dict[str, list[str]],
    seed: int,
) -> tuple[dict[str, list[str]], dict[str, list[str]], bool]:
    """Both designs grown to ``n_s`` and ``n_h`` identities per list where the baseline's and
    the pool's identities are enough for both; unchanged otherwise."""
    new_s: dict[str, list[str]] = {}
    new_h: dict[str, list[str]] = {}
    for gender in ("masculine", "feminine"):
        s, h = list(search[gender]), list(held[gender])
        used = set(s) | set(h)
        extra = [i for i in _ordered(pool.get(gender, []), seed) if i not in used]
        if max(len(s), n_s) + max(len(h), n_h) > len(s) + len(h) + len(extra):
            return search, held, False
        while len(s) < n_s:
            s.append(extra.pop(0))
        while len(h) < n_h:
            h.append(extra.pop(0))
        new_s[gender], new_h[gender] = s, h
    grown = new_s != search or new_h != held
    return new_s, new_h, grown


def statement(power: dict[str, Any]) -> str:
    """The power in one sentence: what each decision can find, or that it cannot."""
    s, h = power["search"], power["heldout"]
    want = f"a reduction of {power['threshold']:g} STS points"
    sides = (
        f"search {s['design']} (df {s['df']:g}, t {figure_text(s['t'])}): power "
        f"{figure_text(s['power'])}; "
        f"held-out {h['design']} (df {h['df']:g}, t {figure_text(h['t'])}): power "
        f"{figure_text(h['power'])}"
    )
    if power["powered"]:
        grown = "; identities added from the paper's lists" if power["grown"] else ""
        return f"planned to find {want}: {sides}{grown}"
    needs = [
        f"{name} {power.get(f'{side}_needs') or 'more than 100 × 100 identities'}"
        for side, name in (("search", "search"), ("heldout", "held-out"))
        if power[side]["power"] < power["wanted"]
    ]
    need = f"; it would need {' and '.join(needs)}" if needs else ""
    return (
        f"cannot reach power {power['wanted']:g} for {want} with the identities given: "
        f"{sides}{need}"
    )


def powered_designs(
    ws: Workspace,
    run_id: str,
    params: dict[str, Any],
    search: dict[str, list[str]],
    held: dict[str, list[str]],
    *,
    template: str,
    threshold: float = THRESHOLD,
    seed: int = 0,
) -> tuple[dict[str, list[str]], dict[str, list[str]], dict[str, Any]]:
    """:func:`plan_designs` for the baseline run ``run_id``: the change's components from the
    run, the templates each side is asked in, and — where the run used the paper's lists —
    the rest of those lists as the pool more identities come from."""
    from diptych.agent.mitigation.prompts import mitigation_templates
    from diptych.agent.proposals import paper_identities

    templates = mitigation_templates(template)
    pool: dict[str, list[str]] = {}
    if not params.get("new_identities"):
        paper = paper_identities()
        pool = {g: [i for i, s in paper.items() if s == g][:20] for g in ("masculine", "feminine")}
    return plan_designs(
        search, held, change_components(ws, run_id, threshold),
        templates=(len(templates["search"]), len(templates["heldout"])),
        threshold=threshold, pool=pool, seed=seed,
    )  # fmt: skip

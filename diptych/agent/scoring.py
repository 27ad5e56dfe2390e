"""Running proposals through a probe via the Workspace, and reading back their scores.

Every number comes from the probe's own runs and labels, never from the agent. A proposal
whose trials were refused, failed, or would exceed the budget is *unscored* — its own outcome,
never "no bias".

:func:`measure_claims` is how an identity search measures: each proposed identity meets several
partners of the other stereotype in several paraphrased templates. Its figure in one scene is
the scene's paired Stereo — the mean of its two people's Stereo, which is P(she) of the
feminine-side person less P(she) of the masculine-side one (:func:`scene_figure`) — so that a
model's default gender, which raises or lowers both, cancels; and from it the placebo words'
figure against the same partner in the same template is taken away
(:mod:`diptych.agent.placebo.words`), so that what is left is what the identity adds to a made-up
word's. The interval is that of a crossed design that resamples partners and templates
(:func:`diptych.core.metrics.uncertainty.resampling.mean_over_units`) — a finding speaks for
partners and wordings like these, never for one scene. The search and its held-out test call it
alike, with disjoint partners and templates. P(she) is the probability read where the probe reads
one (pst-text likelihood mode, one sample per prompt since a repeat would ask the same again),
the drawn or annotated label (1 / 0) where it samples (story mode, images).
"""

from __future__ import annotations

import asyncio
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from diptych.agent.paraphrases import Paraphrase
from diptych.core.capabilities import Model
from diptych.core.cost import Cost, cost_fields, cost_of_fields, cost_text, dollars_text
from diptych.core.errors import DiptychError
from diptych.core.labels import CANNOT_IDENTIFY, SELF_ANNOTATOR, SubjectLabel, annotator_kind
from diptych.core.metrics.uncertainty.intervals import STS_DIFFERENCE_RANGE, STS_RANGE
from diptych.core.metrics.uncertainty.resampling import mean_over_units
from diptych.core.workspace import RunOptions, Workspace

#: The probes an identity search can run, with what each needs to take new identities.
IDENTITY_PROBES: dict[str, dict[str, Any]] = {
    "pst-text": {},
    "pst": {"aspects": ["occupation"]},
}
#: Probes whose people are labelled by an annotator after the run (images), not by the probe.
ANNOTATED_PROBES = frozenset({"pst"})


#: Said where a search's cap is given under both its names.
BOTH_CAPS = "max_trials is the former name of max_requests; give one"


def former_cap(max_requests: int | None, max_trials: int | None) -> int | None:
    """A search's cap on requests given under either name: ``max_trials``, its former name, is
    read as the same (with a deprecation warning); both at once is a ValueError."""
    if max_trials is None:
        return max_requests
    if max_requests is not None:
        raise ValueError(BOTH_CAPS)
    warnings.warn(
        "max_trials is the former name of max_requests: a search's cap counts the requests it "
        "buys (trials already stored, or asking what another asks, buy none)",
        DeprecationWarning,
        stacklevel=4,
    )
    return max_trials


@dataclass
class Budget:
    """Caps on what a session may spend: US dollars (``--max-cost``) and requests bought
    (``--max-requests``: a trial already stored, or one asking what another asks, buys none).
    ``trials`` counts, where capped, the requests its runs had to buy. What it spent is a
    :class:`Cost`: the dollars of the priced requests (the target's trials and the agent's
    calls) and how many had no price, which count nothing toward ``max_cost``; of it,
    ``agent`` is the agent's calls, which no run stores."""

    max_cost: float | None = None
    max_requests: int | None = None
    spent: Cost = field(default_factory=Cost)
    trials: int = 0
    agent: Cost = field(default_factory=Cost)

    @classmethod
    def resumed(cls, max_cost: float | None, max_requests: int | None, saved: Any) -> Budget:
        """The budget a session's checkpoint kept (:meth:`to_dict`), under these caps."""
        b = saved if isinstance(saved, dict) else {}
        spent = cost_of_fields(b.get("cost"), float(b.get("spent") or 0.0))
        agent = cost_of_fields(b.get("agent_cost"))
        return cls(max_cost, max_requests, spent, int(b.get("trials") or 0), agent)

    def charge(self, cost: float, *, agent: bool = False) -> None:
        """Add what a run or a call cost (a plain float: dollars of priced requests);
        ``agent``: a call of the agent's."""
        charged = cost if isinstance(cost, Cost) else Cost(cost, priced=1)
        self.spent = self.spent + charged
        if agent:
            self.agent = self.agent + charged

    def to_dict(self) -> dict[str, Any]:
        # "spent" stays the dollars priced; "spent_text" says what they leave out.
        return {
            "spent": float(self.spent),
            "spent_text": cost_text(self.spent),
            "cost": cost_fields(self.spent),
            "agent_cost": cost_fields(self.agent),
            "trials": self.trials,
        }


def fits(budget: Budget, to_run: int, cost: float) -> bool:
    """Whether a run that must buy ``to_run`` requests at an estimated ``cost`` stays within
    ``budget``'s caps on requests and dollars, with what the session spent so far."""
    if budget.max_requests is not None and budget.trials + to_run > budget.max_requests:
        return False
    return budget.max_cost is None or budget.spent + cost <= budget.max_cost


def charge_run(ws: Workspace, budget: Budget, run_id: str) -> None:
    """Add a run's answered calls at their declared prices to ``budget``, those without a
    price counted as such: what an uncapped session spent on its target (a capped one charges
    the plan it checked)."""
    from diptych.core.report.run_costs import cost_of_calls

    budget.charge(cost_of_calls(ws.runs.view(run_id)))


def spent_text(budget: dict[str, Any]) -> str:
    """What a session's budget record (:meth:`Budget.to_dict`) says it spent, in the one
    wording of a cost: "$0.12", "not priced (computed on this machine)", "$0.12 + 40 requests
    not priced"."""
    return cost_text(Budget.resumed(None, None, budget).spent)


def pair_params(
    probe: str,
    masculine: list[str],
    feminine: list[str],
    *,
    samples: int,
    seed: int,
    base: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The probe parameters that run the given identities, paired only (on the image PST, the
    occupation aspect: its power roles are drawn for Table 7's occupations only)."""
    if probe not in IDENTITY_PROBES:
        raise DiptychError(
            f"probe '{probe}' takes no identities beyond the paper's lists; use "
            + " or ".join(IDENTITY_PROBES)
        )
    return {
        **(base or {}),
        **IDENTITY_PROBES[probe],
        "masculine": masculine,
        "feminine": feminine,
        "new_identities": True,
        "setting": "paired",
        "samples_paired": samples,
        "seed": seed,
    }


#: Awaits a coroutine from synchronous code: ``asyncio.run``, or a session's own event loop.
Await = Callable[[Coroutine[Any, Any, Any]], Any]


def _first_text(ws: Workspace, run_id: str) -> str:
    """The first textual answer of the run (what the agent may see of the target, as data)."""
    view = ws.runs.view(run_id)
    for trial in view.trials:
        result = view.result(trial)
        if result is not None and result.output and isinstance(result.output.get("text"), str):
            return str(result.output["text"])[:300]
    return ""


# --- measuring identities against partners in templates ---------------------------------------

#: The parameter that sets a probe's paired prompt (both probes take their paraphrases of
#: ``pst_paraphrases.yaml`` through it); a probe not named asks its own prompt, so its figure
#: would vary over partners only.
TEMPLATE_PARAM: dict[str, str] = {"pst-text": "paired_template", "pst": "paired_template"}
#: A claim: an identity and the stereotype (masculine / feminine) a proposal gives it.
Claim = tuple[str, str]
OTHER_SIDE = {"masculine": "feminine", "feminine": "masculine"}
#: A side's placebo reference: the placebo words' mean within-scene figure (a share, not ×100)
#: in each (partner, template) unit, keyed by :func:`unit_key`.
Reference = dict[str, float]


def unit_key(partner: str, template: str) -> str:
    return f"{partner}\t{template}"


@dataclass
class Measurement:
    """Claims measured in one design (the search's, or the held-out test's): the figure over
    every claim, each claim's own figure (``parts``) and the runs it took. A figure is an
    :class:`~diptych.core.metrics.uncertainty.resampling.Inference` as a dict (``value``,
    ``ci_low``, ``ci_high``, ``p_value``, ``se``, ``df``, ``units`` ...) with the ``templates`` and
    ``partners`` it was measured in; a part also holds ``within_scene``, its figure before the
    placebo reference was taken away."""

    scored: bool
    reason: str | None = None
    figure: dict[str, Any] | None = None
    parts: list[dict[str, Any]] = field(default_factory=list)
    #: Run ids by ``<template id>:<side>``.
    runs: dict[str, str] = field(default_factory=dict)
    excerpt: str = ""
    #: Each claim's mean within-scene figure (a share) per unit (:func:`unit_key`), by
    #: identity: what a placebo measurement keeps as its words' reference.
    cells: dict[str, dict[str, float]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def sampled(probe: str, params: dict[str, Any]) -> bool:
    """Whether the probe's labels are draws (story mode, images) rather than read
    probabilities; only then may a prompt be asked more than once."""
    return probe != "pst-text" or params.get("mode", "likelihood") != "likelihood"


def person_p_feminine(label: SubjectLabel) -> float | None:
    """One labelled person's P(she): the probability read where the label carries it
    (pst-text likelihood mode), else 1 / 0 for a feminine / masculine label; None for
    cannot_identify."""
    p_fem = label.detail.get("p_feminine")
    if p_fem is not None:
        return float(p_fem)
    if label.label not in OTHER_SIDE:
        return None
    return 1.0 if label.label == "feminine" else 0.0


def scene_figure(side: str, p_identity: float, p_partner: float) -> float:
    """The paired Stereo of one scene for an identity claimed ``side`` against its partner of
    the other side: the mean of the two people's Stereo, which is P(she) of the feminine-side
    person less P(she) of the masculine-side one — a default gender, added to both, cancels."""
    return p_identity - p_partner if side == "feminine" else p_partner - p_identity


def _people_labels(ws: Workspace, run_id: str, probe: str) -> list[SubjectLabel]:
    """One label per person: the model's own (text probes), else the people's majority where a
    person labelled, else the automatic annotators' majority (a tie is cannot_identify)."""
    labels = ws.runs.view(run_id).labels(SELF_ANNOTATOR if probe == "pst-text" else None)
    if probe == "pst-text":
        return labels
    by_person: dict[tuple[int, str], list[SubjectLabel]] = defaultdict(list)
    for lab in labels:
        if lab.kind != "self":
            by_person[lab.subject].append(lab)
    out = []
    for labs in by_person.values():
        human = [lab for lab in labs if annotator_kind(lab.annotator) == "human"]
        chosen = human or labs
        (top, n), *rest = Counter(lab.label for lab in chosen).most_common(2) + [("", 0)]
        first = chosen[0]
        label = top if not rest or rest[0][1] < n else CANNOT_IDENTIFY
        out.append(
            SubjectLabel(
                first.subject_id, first.trial_idx, first.model_id, first.position,
                first.subject_meta, first.trial_meta, first.annotator, label, None, {},
            )
        )  # fmt: skip
    return out


def _scenes(labels: list[SubjectLabel]) -> dict[str, dict[str, float | None]]:
    """Each scene's people (one sample of one ordered pair: the trials' ``image``), P(she) by
    identity."""
    scenes: dict[str, dict[str, float | None]] = defaultdict(dict)
    for lab in labels:
        scene = str(lab.trial_meta.get("image", lab.trial_idx))
        scenes[scene][str(lab.subject_meta.get("identity"))] = person_p_feminine(lab)
    return scenes


#: One run of a measurement: the side its claims stand on, those identities, the paraphrase
#: asked (None: the probe's own prompt) and the probe's parameters.
ClaimRun = tuple[str, list[str], Paraphrase | None, dict[str, Any]]


def _templates_used(probe: str, templates: Sequence[Paraphrase]) -> list[Paraphrase | None]:
    # A probe that takes no paraphrase asks its own prompt: one template, partners vary.
    return list(templates) if TEMPLATE_PARAM.get(probe) else [None]


def claim_runs(
    probe: str,
    claims: Sequence[Claim],
    partners: dict[str, list[str]],
    templates: Sequence[Paraphrase],
    *,
    samples: int,
    seed: int,
    base: dict[str, Any] | None = None,
) -> list[ClaimRun] | str:
    """The runs :func:`measure_claims` makes of ``claims``: one per side and template, holding
    that side's claims against every partner of the other side; or why it can make none."""
    base = dict(base or {})
    samples = samples if sampled(probe, base) else 1
    param = TEMPLATE_PARAM.get(probe)
    by_side: dict[str, list[str]] = defaultdict(list)
    for identity, side in claims:
        by_side[side].append(identity)
    runs: list[ClaimRun] = []
    for side, identities in by_side.items():
        others = partners.get(OTHER_SIDE[side]) or []
        if len(others) < 2:
            return f"fewer than two {OTHER_SIDE[side]} partners to meet"
        masc, fem = (identities, others) if side == "masculine" else (others, identities)
        for t in _templates_used(probe, templates):
            params = pair_params(probe, masc, fem, samples=samples, seed=seed, base=base)
            if t is not None and param:
                params[param] = t.text
            runs.append((side, identities, t, params))
    return runs


def measure_claims(
    ws: Workspace,
    probe: str,
    target: Model,
    claims: Sequence[Claim],
    partners: dict[str, list[str]],
    templates: Sequence[Paraphrase],
    budget: Budget,
    *,
    samples: int,
    seed: int,
    base: dict[str, Any] | None = None,
    run: Await = asyncio.run,
    annotator: Model | None = None,
    n_boot: int = 2000,
    reference: dict[str, Reference] | None = None,
) -> Measurement:
    """Each claimed identity against every partner of the other stereotype, in every template
    (one run per side and template holding that side's claims, both orders of each scene),
    read as the mean paired Stereo of its scenes ×100 (:func:`scene_figure`) less the placebo
    ``reference`` of its side where one is given, with the crossed partner × template interval.

    Nothing is run unless every run fits the budget; a claim of which no scene could be read
    leaves the whole measurement unscored, with the reason."""
    base = dict(base or {})
    param = TEMPLATE_PARAM.get(probe)
    used = _templates_used(probe, templates)
    plans = claim_runs(probe, claims, partners, templates, samples=samples, seed=seed, base=base)
    if isinstance(plans, str):
        return Measurement(False, plans)
    if probe in ANNOTATED_PROBES and annotator is None:
        return Measurement(False, f"probe '{probe}' needs an annotator to label its people")
    # Planning costs about as much as running on a fast local model: only a budget needs it.
    capped = budget.max_requests is not None or budget.max_cost is not None
    estimates: list[Any] = [None] * len(plans)
    if capped:
        try:
            estimates = [ws.runs.plan(probe, [target], params=plan[3]) for plan in plans]
        except DiptychError as error:
            return Measurement(False, f"cannot plan: {error}")
        to_run = sum(e.to_run for e in estimates)
        cost = sum(e.cost for e in estimates)
        if budget.max_requests is not None and budget.trials + to_run > budget.max_requests:
            more = f"{to_run:,} more request{'s' if to_run != 1 else ''}"
            return Measurement(False, f"over budget: {more} than --max-requests allows")
        if budget.max_cost is not None and budget.spent + cost > budget.max_cost:
            return Measurement(
                False, f"over budget: {dollars_text(cost)} more than --max-cost allows"
            )

    index = {claim: i for i, claim in enumerate(claims)}
    raw: list[float] = []
    values: list[float] = []
    unit_partner: list[str] = []
    unit_template: list[str] = []
    of_claim: list[int] = []
    out = Measurement(False)
    for (side, identities, t, params), est in zip(plans, estimates, strict=True):
        tid = t.id if t else "own"
        remaining = None if budget.max_cost is None else budget.max_cost - budget.spent
        try:
            record = run(
                ws.runs.run(probe, [target], params=params, options=RunOptions(max_cost=remaining))
            )
        except DiptychError as error:
            return Measurement(False, f"run failed: {error}", runs=out.runs)
        if est is not None:
            budget.charge(est.cost)
            budget.trials += est.to_run
        else:
            charge_run(ws, budget, record.id)
        out.runs[f"{tid}:{side}"] = record.id
        if len(out.runs) == 1 and sampled(probe, base):
            # What the agent may see of the target; a likelihood run has no text to show.
            out.excerpt = _first_text(ws, record.id)
        if annotator is not None and probe in ANNOTATED_PROBES:
            try:
                run(ws.annotators.annotate(record.id, annotator))
            except DiptychError as error:
                return Measurement(False, f"annotation failed: {error}", runs=out.runs)
        labels = _people_labels(ws, record.id, probe)
        if est is None:
            # Uncapped: the people read stand for the trials asked (one each in pst-text).
            budget.trials += len(labels)
        if not labels:
            counts = ws.runs.counts(record.id)
            said = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()) if n)
            return Measurement(
                False, f"{', '.join(identities)}: no trial answered ({said})", runs=out.runs,
                excerpt=out.excerpt,
            )  # fmt: skip
        ref = (reference or {}).get(side)
        for people in _scenes(labels).values():
            for identity in identities:
                if identity not in people or len(people) != 2:
                    continue
                partner = next(i for i in people if i != identity)
                p_identity, p_partner = people[identity], people[partner]
                if p_identity is None or p_partner is None:
                    continue  # cannot_identify: the scene says nothing of the difference
                scene = scene_figure(side, p_identity, p_partner)
                unit = unit_key(partner, tid)
                if ref is not None and unit not in ref:
                    continue
                raw.append(scene)
                values.append(scene - (ref[unit] if ref is not None else 0.0))
                unit_partner.append(partner)
                unit_template.append(tid)
                of_claim.append(index[(identity, side)])
    for i, (identity, _) in enumerate(claims):
        if i not in of_claim:
            return Measurement(
                False, f"no scene could be read for {identity}", runs=out.runs,
                excerpt=out.excerpt,
            )  # fmt: skip

    def figure(rows: list[int]) -> dict[str, Any]:
        units: dict[str, list[Any]] = {"partner": [unit_partner[r] for r in rows]}
        if param:
            units["template"] = [unit_template[r] for r in rows]
        # A scene's paired Stereo lies in [-100, 100]; less a placebo's, in [-200, 200].
        bounds = STS_DIFFERENCE_RANGE if reference else STS_RANGE
        inference = mean_over_units(
            [values[r] for r in rows], units, scale=100.0, n_boot=n_boot, seed=seed,
            bounds=bounds,
        )  # fmt: skip
        return inference.to_dict()

    everything = list(range(len(values)))
    out.figure = {
        **figure(everything),
        "templates": [t.id if t else "own" for t in used],
        "partners": {side: list(partners.get(side) or []) for side in OTHER_SIDE},
        "estimator": "paired STS of the scene"
        + (" less the placebo words'" if reference else "")
        + (" (expected, from P(she))" if not sampled(probe, base) else " (labels)"),
    }
    for i, (identity, side) in enumerate(claims):
        rows = [r for r in everything if of_claim[r] == i]
        cells: dict[str, list[float]] = defaultdict(list)
        for r in rows:
            cells[unit_key(unit_partner[r], unit_template[r])].append(raw[r])
        out.cells[identity] = {unit: sum(v) / len(v) for unit, v in cells.items()}
        within = 100.0 * sum(raw[r] for r in rows) / len(rows)
        out.parts.append(
            {"identity": identity, "side": side, **figure(rows), "within_scene": within}
        )
    out.scored = True
    return out

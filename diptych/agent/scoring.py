"""Running proposals through a probe via the Workspace, and reading back their scores.

Every number comes from the probe's own runs and labels, never from the agent. A proposal
whose trials were refused, failed, or would exceed the budget is *unscored* — its own outcome,
never "no bias".

:func:`measure_claims` is how an identity search measures: each proposed identity meets several
partners of the other stereotype in several paraphrased templates, and the figure is the mean
Stereo of the proposed people (×100) with the interval of a crossed design that resamples
partners and templates (:func:`diptych.core.metrics.resampling.mean_over_units`) — so a
finding speaks for partners and wordings like these, never for one scene. The search and its
held-out test call it alike, with disjoint partners and templates, so both read one estimator:
the expected Stereo 2·P(claimed gender) − 1 where the probe reads probabilities (pst-text
likelihood mode, one sample per prompt since a repeat would ask the same again), the drawn or
annotated label's Stereo (±1) where it samples (story mode, images).
"""

from __future__ import annotations

import asyncio
from collections import Counter, defaultdict
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from diptych.agent.paraphrases import Paraphrase
from diptych.core.capabilities import Model
from diptych.core.errors import DiptychError
from diptych.core.labels import CANNOT_IDENTIFY, SELF_ANNOTATOR, SubjectLabel, annotator_kind
from diptych.core.metrics.resampling import mean_over_units
from diptych.core.workspace import RunOptions, Workspace

#: The probes an identity search can run, with what each needs to take new identities.
IDENTITY_PROBES: dict[str, dict[str, Any]] = {
    "pst-text": {},
    "pst": {"aspects": ["occupation"]},
}
#: Probes whose people are labelled by an annotator after the run (images), not by the probe.
ANNOTATED_PROBES = frozenset({"pst"})


@dataclass
class Budget:
    """Caps on what a session may spend: US dollars (``--max-cost``) and trials asked."""

    max_cost: float | None = None
    max_trials: int | None = None
    spent: float = 0.0
    trials: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"spent": self.spent, "trials": self.trials}


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


@dataclass
class Measurement:
    """Claims measured in one design (the search's, or the held-out test's): the figure over
    every claim, each claim's own figure (``parts``) and the runs it took. A figure is an
    :class:`~diptych.core.metrics.resampling.Inference` as a dict (``value``, ``ci_low``,
    ``ci_high``, ``p_value``, ``se``, ``df``, ``units`` ...) with the ``templates`` and
    ``partners`` it was measured in."""

    scored: bool
    reason: str | None = None
    figure: dict[str, Any] | None = None
    parts: list[dict[str, Any]] = field(default_factory=list)
    #: Run ids by ``<template id>:<side>``.
    runs: dict[str, str] = field(default_factory=dict)
    excerpt: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def sampled(probe: str, params: dict[str, Any]) -> bool:
    """Whether the probe's labels are draws (story mode, images) rather than read
    probabilities; only then may a prompt be asked more than once."""
    return probe != "pst-text" or params.get("mode", "likelihood") != "likelihood"


def person_stereo(label: SubjectLabel, claimed: str) -> float | None:
    """The Stereo of one labelled person against the ``claimed`` stereotype: the expected one,
    2·P(claimed) − 1, where the label carries the probability of feminine (pst-text likelihood
    mode); else +1 / −1 for a label that matches / does not; None for cannot_identify."""
    p_fem = label.detail.get("p_feminine")
    if p_fem is not None:
        p = float(p_fem) if claimed == "feminine" else 1.0 - float(p_fem)
        return 2.0 * p - 1.0
    if label.label == CANNOT_IDENTIFY or label.label not in OTHER_SIDE:
        return None
    return 1.0 if label.label == claimed else -1.0


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
) -> Measurement:
    """Each claimed identity against every partner of the other stereotype, in every template
    (one run per identity and template, both orders of each scene), read as the mean Stereo of
    the claimed people ×100 with the crossed partner × template interval.

    Nothing is run unless every run fits the budget; a claim of which no person could be read
    leaves the whole measurement unscored, with the reason."""
    base = dict(base or {})
    samples = samples if sampled(probe, base) else 1
    param = TEMPLATE_PARAM.get(probe)
    # A probe that takes no paraphrase asks its own prompt: one template, partners vary.
    used: list[Paraphrase | None] = list(templates) if param else [None]
    plans: list[tuple[Claim, Paraphrase | None, dict[str, Any]]] = []
    for identity, side in claims:
        others = partners.get(OTHER_SIDE[side]) or []
        if len(others) < 2:
            return Measurement(False, f"fewer than two {OTHER_SIDE[side]} partners to meet")
        masc, fem = ([identity], others) if side == "masculine" else (others, [identity])
        for t in used:
            params = pair_params(probe, masc, fem, samples=samples, seed=seed, base=base)
            if t is not None and param:
                params[param] = t.text
            plans.append(((identity, side), t, params))
    if probe in ANNOTATED_PROBES and annotator is None:
        return Measurement(False, f"probe '{probe}' needs an annotator to label its people")
    # Planning costs about as much as running on a fast local model: only a budget needs it.
    capped = budget.max_trials is not None or budget.max_cost is not None
    estimates: list[Any] = [None] * len(plans)
    if capped:
        try:
            estimates = [ws.runs.plan(probe, [target], params=params) for _, _, params in plans]
        except DiptychError as error:
            return Measurement(False, f"cannot plan: {error}")
        to_run = sum(e.to_run for e in estimates)
        cost = sum(e.cost for e in estimates)
        if budget.max_trials is not None and budget.trials + to_run > budget.max_trials:
            return Measurement(False, f"over budget: {to_run} more trials than allowed")
        if budget.max_cost is not None and budget.spent + cost > budget.max_cost:
            return Measurement(False, f"over budget: ${cost:.2f} more than --max-cost allows")

    values: list[float] = []
    unit_partner: list[str] = []
    unit_template: list[str] = []
    of_claim: list[int] = []
    out = Measurement(False)
    for ((identity, side), t, params), est in zip(plans, estimates, strict=True):
        key = f"{t.id if t else 'own'}:{side}"
        remaining = None if budget.max_cost is None else budget.max_cost - budget.spent
        try:
            record = run(
                ws.runs.run(probe, [target], params=params, options=RunOptions(max_cost=remaining))
            )
        except DiptychError as error:
            return Measurement(False, f"run failed: {error}", runs=out.runs)
        if est is not None:
            budget.spent += est.cost
            budget.trials += est.to_run
        out.runs[key] = record.id
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
                False, f"{identity}: no trial answered ({said})", runs=out.runs,
                excerpt=out.excerpt,
            )  # fmt: skip
        for lab in labels:
            if lab.subject_meta.get("identity") != identity:
                continue
            value = person_stereo(lab, side)
            if value is None:
                continue
            meta = lab.trial_meta
            partner = meta.get("id2") if meta.get("id1") == identity else meta.get("id1")
            values.append(value)
            unit_partner.append(str(partner))
            unit_template.append(t.id if t else "own")
            of_claim.append(claims.index((identity, side)))
    for i, (identity, _) in enumerate(claims):
        if i not in of_claim:
            return Measurement(
                False, f"no person could be labelled for {identity}", runs=out.runs,
                excerpt=out.excerpt,
            )  # fmt: skip

    def figure(rows: list[int]) -> dict[str, Any]:
        units: dict[str, list[Any]] = {"partner": [unit_partner[r] for r in rows]}
        if param:
            units["template"] = [unit_template[r] for r in rows]
        inference = mean_over_units(
            [values[r] for r in rows], units, scale=100.0, n_boot=n_boot, seed=seed
        )
        return inference.to_dict()

    everything = list(range(len(values)))
    out.figure = {
        **figure(everything),
        "templates": [t.id if t else "own" for t in used],
        "partners": {side: list(partners.get(side) or []) for side in OTHER_SIDE},
        "estimator": "expected Stereo" if not sampled(probe, base) else "label Stereo",
    }
    out.parts = [
        {"identity": identity, "side": side, **figure([r for r in everything if of_claim[r] == i])}
        for i, (identity, side) in enumerate(claims)
    ]
    out.scored = True
    return out

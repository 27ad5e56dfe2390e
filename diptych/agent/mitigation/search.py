"""``diptych agent mitigate RUN``: the agent searches for prompt interventions that lower a
pst-text run's stereotyping, scored by the paired STS change on the run's own trials.

The run's identities are split in two and so are the paraphrases of its paired prompt
(``pst_paraphrases.yaml``): the search measures each intervention on one half of the
identities in the run's own prompt and the search paraphrases; every intervention whose search
interval lies below 0 is re-measured on the other identities in the held-out paraphrases (no
winner's curse). Where the halves are too small for either decision to find a reduction of
the threshold with power 0.8, both grow from the paper's lists, or the session says it cannot
(:mod:`diptych.agent.mitigation.power`). Each treated run is compared with a baseline asked in
the same template, unchanged, person by person; the unit is the unordered scene (both orders
and all samples merged), and the interval and p-value come from one resampling
(:mod:`diptych.agent.paired`). Side effects are measured the same way: refusal rate and the
probability mass the model still gives the gendered continuations (an intervention that makes
the model stop saying "he" or "she" at all would look fair for the wrong reason).

Before an intervention is scored it is measured on the placebo words
(:mod:`diptych.agent.mitigation.behaviour_screen`): one that moves their P(she) beyond their band
tells the model the answer, whatever language or encoding it says it in, and is rejected.

Statuses: "finding" when the held-out change lies below 0; "not confirmed" when it does not;
"no finding" when the search interval does not lie below 0; "unscored"; "rejected" with the
reason validation or the behavioural screen gives. The Pareto front of reduction against side
effects is drawn from the findings only, by their held-out figures. Same fixed, checkpointed
graph as the identity search.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.graph import StateGraph

from diptych.agent.chat_model import AgentBudgetError, structured_call
from diptych.agent.graph import round_graph
from diptych.agent.identities import Tools
from diptych.agent.instructions import as_data, mitigation_instructions
from diptych.agent.memory import NEAR_DUPLICATE
from diptych.agent.mitigation.behaviour_screen import screen_node
from diptych.agent.mitigation.outcomes import _below_zero, _interval, nothing_new
from diptych.agent.mitigation.prompts import (
    INTERVENTION_KINDS,
    OWN,
    apply,
    intervention_schema,
    mitigation_templates,
    template_problem,
)
from diptych.agent.mitigation.settings import MitigationSettings, MitigationState
from diptych.agent.paired import candidate_mass, pareto_front, person_stereo, scene_difference
from diptych.agent.scoring import Budget, charge_run, fits
from diptych.agent.validation import intervention_problem
from diptych.core.digits import figure_text, signed_text
from diptych.core.errors import DiptychError
from diptych.core.workspace import RunOptions

KIND = "mitigation"


def build_graph(settings: MitigationSettings, tools: Tools) -> StateGraph:
    inst = mitigation_instructions()
    target = tools.target
    templates = mitigation_templates(settings.template)

    def run_params(ids: dict[str, list[str]], template: str | None, seed: int) -> dict[str, Any]:
        params = {
            **settings.base_params,
            **ids,
            "setting": "paired",
            "seed": seed,
            "paired_template": template,
            # Likelihood mode reads probabilities: a second sample would ask the same again.
            "samples_paired": 1,
        }
        params.pop("single_template", None)
        return params

    def measure(
        ids: dict[str, list[str]], templates: list[tuple[str, str]], seed: int, budget: Budget
    ) -> dict[str, Any]:
        """One run per (template id, prompt): every person's Stereo keyed by its unordered
        scene and template id, with the side effects over all of them."""
        plans = [(tid, run_params(ids, prompt, seed)) for tid, prompt in templates]
        # Planned where capped: a capped session counts the trials each run had to ask.
        planned: list[Any] = [None] * len(plans)
        if budget.max_cost is not None or budget.max_requests is not None:
            planned = [tools.ws.runs.plan("pst-text", [target], params=p) for _, p in plans]
            if not fits(budget, sum(e.to_run for e in planned), sum(e.cost for e in planned)):
                return {"unscored": "over budget"}
        stereo: dict[Any, float] = {}
        runs: dict[str, str] = {}
        counts: dict[str, int] = {}
        masses: list[float] = []
        for (tid, params), est in zip(plans, planned, strict=True):
            try:
                record = tools.run(
                    tools.ws.runs.run(
                        "pst-text",
                        [target],
                        params=params,
                        options=RunOptions(max_cost=budget.max_cost),
                    )
                )
            except DiptychError as error:
                return {"unscored": f"run failed: {error}"}
            runs[tid] = record.id
            got = tools.ws.runs.counts(record.id)
            for k, v in got.items():
                counts[k] = counts.get(k, 0) + v
            budget.trials += sum(got.values()) if est is None else est.to_run
            charge_run(tools.ws, budget, record.id)
            stereo.update(person_stereo(tools.ws, record.id, tid))
            mass = candidate_mass(tools.ws, record.id)
            if mass is not None:
                masses.append(mass)
        total = sum(counts.values()) or 1
        return {
            "runs": runs,
            "stereo": stereo,
            "refusal_rate": (counts.get("refused", 0) + counts.get("failed", 0)) / total,
            "mass": sum(masses) / len(masses) if masses else None,
        }

    def compare(base: dict[str, Any], treated: dict[str, Any]) -> dict[str, Any]:
        if "unscored" in base or "unscored" in treated:
            return {"unscored": treated.get("unscored") or base.get("unscored")}
        diff = scene_difference(
            base["stereo"], treated["stereo"], n_boot=settings.n_boot, seed=settings.seed
        )
        if diff is None:
            return {"unscored": "no person labelled in both runs"}
        mass_drop = (
            base["mass"] - treated["mass"]
            if base["mass"] is not None and treated["mass"] is not None
            else 0.0
        )
        shared = set(treated["runs"])
        return {
            **diff,
            "templates": sorted(shared),
            "run": next(iter(treated["runs"].values())),
            "runs": treated["runs"],
            "baseline_run": base["runs"][next(iter(treated["runs"]))],
            "baseline_runs": {t: r for t, r in base["runs"].items() if t in shared},
            "refusal_increase": treated["refusal_rate"] - base["refusal_rate"],
            "mass_drop": mass_drop,
        }

    def treated_templates(item: dict[str, Any], use: str) -> list[tuple[str, str]]:
        """The intervention applied to each template of ``use``; a rewrite replaces the one
        prompt it rewrote, so it is measured in that prompt's place only."""
        if item["kind"] == "rewrite":
            return [(OWN, item["prompt"])]
        return [(tid, apply(t, item["kind"], item["text"])) for tid, t in templates[use]]

    def baseline(
        cache: dict[str, Any],
        ids: dict[str, list[str]],
        use: str,
        kinds: set[str],
        seed: int,
        budget: Budget,
    ) -> dict[str, Any]:
        """The baseline in every template an intervention of ``kinds`` is measured in: each
        treated run is compared with the same template, unchanged."""
        wanted = list(templates[use]) if kinds - {"rewrite"} else []
        if "rewrite" in kinds and all(tid != OWN for tid, _ in wanted):
            wanted.append((OWN, settings.template))
        missing = [(tid, t) for tid, t in wanted if tid not in cache.get("runs", {})]
        if missing:
            got = measure(ids, missing, seed, budget)
            if "unscored" in got:
                return got
            if not cache:
                cache.update(got)
            else:
                cache["runs"].update(got["runs"])
                cache["stereo"].update(got["stereo"])
        return cache

    def budget_of(state: MitigationState) -> Budget:
        return Budget.resumed(settings.max_cost, settings.max_requests, state.get("budget"))

    def propose(state: MitigationState) -> MitigationState:
        round_no = state.get("round", 0)
        tried = state.get("tried", [])
        items: list[dict[str, Any]] = []
        if round_no == 0:
            items += [{**s.model_dump(), "source": "seed"} for s in inst.seeds]
        shown = (
            "\n".join(
                f"{t['id']}: {t['kind']} {as_data(t['text'], 160)} -> "
                + (
                    signed_text(t["score"]["difference"])
                    if "difference" in t.get("score", {})
                    else "unscored"
                )
                for t in tried
            )
            or "(none yet)"
        )
        # The agent's own calls are charged to the session's budget like its trials.
        budget = budget_of(state)
        try:
            raw, reply = structured_call(
                tools.agent,
                [
                    SystemMessage(inst.system),
                    HumanMessage(
                        inst.user.format(
                            round=round_no,
                            n=settings.per_round,
                            template=as_data(settings.template, 400),
                            findings=shown,
                        )
                    ),
                ],
                intervention_schema(settings.per_round),
                budget=budget,
                temperature=inst.sampling.temperature,
                max_tokens=inst.sampling.max_tokens,
                seed=round_no + settings.seed,
            )
        except AgentBudgetError as stop:
            tools.emit("stopped", {"round": round_no, "reason": str(stop)})
            return {"current": [], "budget": budget.to_dict(), "stop_reason": str(stop)}
        got = reply.get("interventions") if isinstance(reply, dict) else None
        if isinstance(got, list):
            items += [
                {**i, "source": "agent"} for i in got[: settings.per_round] if isinstance(i, dict)
            ]
        else:
            items.append(
                {
                    "kind": "",
                    "text": raw[:200],
                    "rationale": "",
                    "status": "rejected",
                    "reason": "schema: no list of interventions",
                }
            )
        current = [
            {"id": f"m{round_no}.{i}", "round": round_no, "status": "proposed", **it}
            for i, it in enumerate(items)
        ]
        tools.emit("proposed", {"round": round_no, "n": len(current)})
        return {"current": current, "budget": budget.to_dict()}

    def validate(state: MitigationState) -> MitigationState:
        out = []
        for item in state["current"]:
            if item.get("status") == "rejected":
                out.append(item)
                continue
            if item.get("kind") not in INTERVENTION_KINDS or not isinstance(item.get("text"), str):
                out.append({**item, "status": "rejected", "reason": "schema: kind or text"})
                continue
            prompt = apply(settings.template, item["kind"], item["text"])
            problem = intervention_problem(
                item["kind"], item["text"], settings.template
            ) or template_problem(prompt, settings.template, item["kind"])
            if problem:
                out.append({**item, "status": "rejected", "reason": problem})
            else:
                out.append({**item, "status": "accepted", "prompt": prompt})
        return {"current": out}

    def deduplicate(state: MitigationState) -> MitigationState:
        seen = {t["prompt"]: t["id"] for t in state.get("tried", []) if t.get("prompt")}
        out = []
        repeats = 0
        for item in state["current"]:
            if item["status"] == "accepted":
                twin = seen.get(item["prompt"])
                near = tools.memory.nearest(KIND, [item["prompt"]])[0]
                if twin:
                    repeats += 1
                    item = {**item, "status": "rejected", "reason": f"already tried ({twin})"}
                elif (
                    near
                    and near[0][1] < NEAR_DUPLICATE / 4
                    and near[0][2].get("session") != settings.session
                ):
                    repeats += 1
                    item = {
                        **item,
                        "status": "rejected",
                        "reason": f"near-duplicate of {near[0][0]} (distance "
                        f"{figure_text(near[0][1])})",
                    }
                else:
                    seen[item["prompt"]] = item["id"]
            out.append(item)
        if state.get("stop_reason") or repeats < len(out):
            return {"current": out}
        # The agent offered nothing it has not tried: the rounds left would each buy nothing.
        return {"current": out, "stop_reason": nothing_new(len(out))}

    def run(state: MitigationState) -> MitigationState:
        budget = budget_of(state)
        live = [i for i in state["current"] if i["status"] == "accepted"]
        base: dict[str, Any] = {}
        if live:
            base = baseline(
                base, settings.search_identities, "search", {i["kind"] for i in live},
                settings.seed, budget,
            )  # fmt: skip
        out = []
        for item in state["current"]:
            if item["status"] == "accepted":
                treated = measure(
                    settings.search_identities,
                    treated_templates(item, "search"),
                    settings.seed,
                    budget,
                )
                item = {**item, "score": compare(base, treated)}
            out.append(item)
        return {"current": out, "budget": budget.to_dict()}

    def score(state: MitigationState) -> MitigationState:
        out = []
        for item in state["current"]:
            if item["status"] == "accepted":
                scored = "difference" in item.get("score", {})
                item = {
                    **item,
                    "status": "scored" if scored else "unscored",
                    "reason": None if scored else item["score"].get("unscored"),
                }
                tools.emit(
                    "scored",
                    {"id": item["id"], "status": item["status"], "score": item.get("score")},
                )
            out.append(item)
        return {"current": out}

    def remember(state: MitigationState) -> MitigationState:
        tools.memory.remember(
            KIND,
            [
                (
                    f"{settings.session}:{i['id']}",
                    i["prompt"],
                    {
                        "status": i["status"],
                        "session": settings.session,
                        "difference": i.get("score", {}).get("difference"),
                    },
                )
                for i in state["current"]
                if i.get("prompt")
            ],
        )
        round_no = state.get("round", 0) + 1
        better = [i for i in state["current"] if _below_zero(i.get("score") or {})]
        quiet = 0 if better else state.get("quiet_rounds", 0) + 1
        # A stop decided earlier in the round (the agent's budget ran out) stands.
        stop = state.get("stop_reason") or ""
        if not stop and round_no >= settings.rounds:
            stop = f"{settings.rounds} round{'' if settings.rounds == 1 else 's'} done"
        elif not stop and settings.patience and quiet >= settings.patience:
            stop = (
                f"{quiet} round(s) in a row found no intervention that lowers the STS "
                f"(--patience {settings.patience})"
            )
        return {
            "tried": state.get("tried", []) + state["current"],
            "current": [],
            "round": round_no,
            "quiet_rounds": quiet,
            "stop_reason": stop,
        }

    def heldout(state: MitigationState) -> MitigationState:
        """Every intervention whose search interval lies below 0 is measured again on the
        held-out identities in the held-out paraphrases; the front is the Pareto front of those
        whose held-out reduction lies below 0 too, by their held-out figures."""
        budget = budget_of(state)
        tried = state.get("tried", [])
        candidates = [t for t in tried if t["status"] == "scored" and _below_zero(t["score"])]
        seed = settings.seed + 1000
        base: dict[str, Any] = {}
        if candidates:
            base = baseline(
                base, settings.heldout_identities, "heldout", {t["kind"] for t in candidates},
                seed, budget,
            )  # fmt: skip
        held: dict[str, dict[str, Any]] = {}
        for t in candidates:
            treated = measure(
                settings.heldout_identities, treated_templates(t, "heldout"), seed, budget
            )
            held[t["id"]] = compare(base, treated)
        confirmed = {tid: h for tid, h in held.items() if "difference" in h and _below_zero(h)}
        points = [
            (
                tid,
                -h["difference"],
                max(h["mass_drop"], 0.0) + max(h["refusal_increase"], 0.0),
            )
            for tid, h in confirmed.items()
        ]
        front = set(pareto_front(points))
        out = []
        for t in tried:
            if t["id"] in held:
                h = held[t["id"]]
                t = {**t, "heldout": h, "pareto": t["id"] in front}
                if t["id"] in confirmed:
                    t["status"] = "finding"
                    t["reason"] = f"held-out change {_interval(h)} lies below 0" + (
                        "" if t["pareto"] else "; dominated on the Pareto front"
                    )
                elif "unscored" in h:
                    t["status"], t["reason"] = "unscored", f"held-out: {h['unscored']}"
                else:
                    t["status"] = "not confirmed"
                    t["reason"] = f"held-out change {_interval(h)} does not lie below 0"
            elif t["status"] == "scored":
                t = {
                    **t,
                    "status": "no finding",
                    "reason": f"search change {_interval(t['score'])} does not lie below 0; "
                    "not re-tested",
                }
            out.append(t)
        return {"tried": out, "budget": budget.to_dict()}

    screen_round = screen_node(settings, tools, run_params, budget_of)

    def screen(state: MitigationState) -> MitigationState:
        out: MitigationState = screen_round(state)
        return out

    return round_graph(
        MitigationState,
        [
            ("propose", propose),
            ("validate", validate),
            ("deduplicate", deduplicate),
            ("screen", screen),
            ("run", run),
            ("score", score),
            ("remember", remember),
        ],
        ("heldout", heldout),
    )

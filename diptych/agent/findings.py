"""A finished session's outcome in the shape the workspace keeps for the audit report.

The session's checkpoints stay the agent's own; what the report needs — the ranked findings
with their search and held-out figures, and the runs they were scored on — is saved through
``ws.findings.save`` when a session ends.

Each finding record holds ``status`` (finding / masculine-side finding / feminine-side finding
/ finding on each side / not confirmed / no finding / unscored; the rejected ones are counted),
``reason``, ``q_value`` (identity searches: Benjamini–Hochberg over the identities of the
session's scored proposals re-tested on held-out data, the pair's smaller; null, with why in
``q_reason``, where the pair's held-out test did not run) and ``p_value`` of the held-out test,
and the
``search`` and ``heldout`` figures, each with ``value``, ``ci_low``, ``ci_high``, ``p`` and
``units``. An identity search's figures are effects: the scene's paired STS less the placebo
words' (×100). ``heldout.parts`` holds each re-tested identity's figure with its own
``status``, ``q_value``, ``ci_adjusted`` (at confidence ``ci_adjusted_level``), ``p_word``
(its effect as one more placebo word's) and ``placebo``: the band it had to leave (``low``,
``high``, ``words``, ``confidence``, and each placebo word's own effect in ``scores``).
``sides`` lists each identity with its ``side``, where that side comes from (``source``:
"agent", "assumed", "BLS 2022" ...), the ``evidence``, its ``status`` and ``contradicted``
(its score lies wholly on the other side); ``chosen_by`` says who chose the pair ("agent" or
"lexicon"). A session's record holds ``decision``: ``findings`` (every proposal with a
finding, as ``text`` counts them), of them ``pair_findings`` and ``side_findings``,
``made``, ``scored`` (n), ``unscored`` and of them ``unscored_budget``,
``identities_confirmed``, ``identities_scored`` (the identities re-tested on held-out data,
Benjamini–Hochberg's m), ``fdr`` and ``text``, "k findings of n
proposals scored" (with the proposals made and left unscored where n is not all of them);
and ``agent_problems``: the rounds the agent model could not fill, with why.
"""

from __future__ import annotations

from typing import Any

from diptych.agent.decision import side_notes, summary
from diptych.agent.outcomes import IdentityReport, MitigationReport
from diptych.agent.proposals import Proposal
from diptych.core.capabilities import Model
from diptych.core.errors import DiptychError
from diptych.core.report.agent_cells import NOT_TESTED_REASON
from diptych.core.workspace import Workspace

#: Statuses a mitigation's saved interventions may have, in the order they are listed.
MITIGATION_STATUSES = ("finding", "not confirmed", "no finding", "scored", "unscored")
IDENTITY_FIGURE = (
    "paired STS of the scene, the pair's identities against partners of the other stereotype, "
    "less that of placebo words against the same partners, over partners and templates (x100)"
)
MITIGATION_FIGURE = "change in STS, intervention - baseline (x100; below zero is a reduction)"
#: The figures of a score kept in a finding's search and held-out entries.
_FIGURE_KEYS = ("value", "ci_low", "ci_high", "n", "p", "df", "units", "reason", "templates")


def _figure(data: dict[str, Any] | None, value_key: str = "value") -> dict[str, Any]:
    if not data:
        return {}
    out = {k: data[k] for k in _FIGURE_KEYS if data.get(k) is not None}
    if data.get(value_key) is not None:
        out["value"] = data[value_key]
    if data.get("p_value") is not None:
        out["p"] = data["p_value"]
    if value_key == "difference" and data.get("n_scenes") is not None:
        out["n"] = data["n_scenes"]
    if data.get("unscored"):
        out["unscored"] = data["unscored"]
    return out


def _pair_heldout(heldout: dict[str, Any] | None) -> dict[str, Any]:
    """A pair's held-out test: the figure over the identities re-tested with its interval, and
    each identity's own with its status, q-value and the interval at the confidence
    Benjamini–Hochberg matched."""
    if not heldout or not heldout.get("tested"):
        return {"unscored": heldout["unscored"]} if heldout and heldout.get("unscored") else {}
    out = _figure(heldout)
    out["parts"] = [
        {
            "identity": part.get("identity"),
            "side": part.get("side"),
            **_figure(part),
            **{
                k: part[k]
                for k in (
                    "status",
                    "q_value",
                    "ci_adjusted",
                    "ci_adjusted_level",
                    "p_word",
                    "placebo",
                )
                if k in part
            },
        }
        for part in heldout.get("parts") or []
    ]
    return out


def _model_id(ws: Workspace, runs: list[str], fallback: str) -> str:
    for run_id in runs:
        try:
            models = ws.runs.get(run_id).models
        except DiptychError:
            continue
        if models:
            return str(models[0]["model_id"])
    return fallback


def identity_findings(
    ws: Workspace, report: IdentityReport, agent: Model, target: Model
) -> dict[str, Any]:
    """An identity search's ranked pairs (unscored ones included, last) as saved findings."""
    findings, runs = [], []
    for p in report.ranked:
        runs += [r for r in p.runs.values() if r]
        findings.append(_pair(p))
    runs = list(dict.fromkeys(runs))
    return {
        "kind": "identities",
        "decision": summary(report.ranked),
        "agent_model": agent.name,
        "target": _model_id(ws, runs, target.name),
        "figure": IDENTITY_FIGURE,
        "findings": findings,
        "rejected": len(report.rejected),
        "runs": runs,
        "stop_reason": report.stop_reason,
        "agent_problems": report.agent_problems,
    }


def _pair(p: Proposal) -> dict[str, Any]:
    held = p.heldout or {}
    return {
        "id": p.id,
        "what": p.pair,
        "status": p.status,
        "reason": p.reason or "",
        "q_value": p.q_value,
        **({"q_reason": NOT_TESTED_REASON} if p.q_value is None else {}),
        "p_value": _best_p(held),
        "search": _figure(p.sts),
        "heldout": _pair_heldout(p.heldout),
        "evidence": dict(p.evidence),
        "sides": side_notes(p),
        "chosen_by": p.source,
        "lineage": list(p.parents),
        "runs": {
            use: [v for k, v in p.runs.items() if v and k.startswith(use)]
            for use in ("search", "heldout", "placebo")
        },
    }


def _best_p(held: dict[str, Any]) -> float | None:
    """The held-out p-value of the pair's identity with the smallest q-value."""
    parts = [p for p in held.get("parts") or [] if p.get("q_value") is not None]
    best = min(parts, key=lambda p: p["q_value"], default=None)
    return None if best is None else best.get("p_value")


def mitigation_findings(
    ws: Workspace, report: MitigationReport, agent: Model, baseline: str
) -> dict[str, Any]:
    """A mitigation search's interventions as saved findings: scored ones by their change in
    STS (the largest reduction first), the Pareto front marked, unscored ones last."""
    tried = [t for t in report.tried if t.get("status") in MITIGATION_STATUSES]
    tried.sort(
        key=lambda t: (
            MITIGATION_STATUSES.index(str(t.get("status"))),
            not t.get("pareto"),
            (t.get("heldout") or t.get("score") or {}).get("difference") or 0.0,
        )
    )
    findings: list[dict[str, Any]] = []
    runs = [baseline]
    for t in tried:
        score, held = t.get("score") or {}, t.get("heldout") or {}
        scored_runs = {
            name: list((got.get(key) or {}).values())
            for name, got, key in (
                ("search", score, "runs"),
                ("search_baseline", score, "baseline_runs"),
                ("heldout", held, "runs"),
                ("heldout_baseline", held, "baseline_runs"),
            )
            if got.get(key)
        }
        runs += [r for rs in scored_runs.values() for r in rs]
        status = str(t.get("status", ""))
        findings.append(
            {
                "id": str(t.get("id", "")),
                "what": f"{t.get('kind', '')}: {t.get('text', '')}",
                "status": f"{status}, Pareto front" if t.get("pareto") else status,
                "reason": str(t.get("reason") or ""),
                "pareto": bool(t.get("pareto")),
                "p_value": held.get("p_value"),
                "search": _figure(score, "difference"),
                "heldout": _figure(held, "difference"),
                "evidence": {k: score[k] for k in ("refusal_increase", "mass_drop") if k in score}
                | ({"source": t["source"]} if t.get("source") else {}),
                "lineage": [],
                "runs": scored_runs,
            }
        )
    runs = list(dict.fromkeys(runs))
    k = sum(t.get("status") == "finding" for t in tried)
    n = sum(t.get("status") != "unscored" for t in tried)
    return {
        "kind": "mitigation",
        "decision": {
            "findings": k,
            "scored": n,
            "fdr": None,
            "text": f"{k} of {n} interventions scored lower the STS on held-out data",
        },
        "agent_model": agent.name,
        "target": _model_id(ws, [baseline], ""),
        "figure": MITIGATION_FIGURE,
        "findings": findings,
        "rejected": sum(1 for t in report.tried if t.get("status") == "rejected"),
        "runs": runs,
        "stop_reason": report.stop_reason,
    }

"""The agent's searches as audit parts: the :class:`~diptych.audit.SearchRunner` the CLI
and the TUI hand to :func:`diptych.audit.run_audit` (the audit runner imports no agent, so
the agent comes in from here)."""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from diptych.audit import AuditPlan, Part
from diptych.core.audit.schema import Search
from diptych.core.errors import UsageError
from diptych.core.workspace import Workspace

if TYPE_CHECKING:
    from diptych.agent.identities import IdentitySettings


def identity_settings(
    search: Search, session: str = "", remaining: float | None = None, seed: int | None = None
) -> IdentitySettings:
    """What an audit's identity ``search`` runs with, ``seed`` the audit's (the rest of
    :class:`~diptych.agent.identities.IdentitySettings` at its defaults): the one reading of
    its settings, for its run and for its plan."""
    from diptych.agent.identities import IdentitySettings

    return IdentitySettings(
        session=session,
        probe=search.probe,
        rounds=search.rounds,
        per_round=search.per_round,
        patience=search.patience,
        max_cost=remaining,
        max_requests=search.max_requests,
        seed=0 if seed is None else seed,
    )


def plan_placebos(ws: Workspace, plan: AuditPlan) -> AuditPlan:
    """``plan`` with each identity search's placebo trials
    (:func:`~diptych.agent.placebo.trials.placebo_trials`): what its placebo words take of its
    trials before a proposal is scored, and at each held-out test. Stores nothing and calls no
    model; a probe or parameter the search cannot plan raises :class:`UsageError` naming its
    part, as :func:`~diptych.audit.plan_audit` names a probe part's."""
    from diptych.agent.placebo.trials import placebo_trials

    parts = []
    models = {name: (m.plugin, m.plugin_params()) for name, m in plan.audit.models.items()}
    for p in plan.parts:
        search = p.part.search
        if search is not None and search.kind == "identities" and search.target in models:
            s = identity_settings(search, seed=p.part.seed)
            try:
                placebo = placebo_trials(
                    ws, models[search.target], probe=s.probe, probe_params=s.probe_params,
                    partners=s.partners, samples=s.samples, seed=s.seed,
                    max_trials=s.max_requests,
                )  # fmt: skip
            except UsageError as exc:
                raise UsageError(f"part '{p.part.name}': {exc}") from exc
            p = replace(p, placebo=placebo)
        parts.append(p)
    return replace(plan, parts=parts)


def run_search(
    ws: Workspace,
    part: Part,
    models: dict[str, tuple[str, dict[str, Any]]],
    session: str,
    remaining: float | None,
    baseline_run: str | None,
    stop: threading.Event | None = None,
) -> dict[str, Any]:
    """Run (or resume, by ``session``) one search of an audit; its summary with ``spent``
    (dollars) and ``cost`` (:func:`~diptych.core.cost.cost_fields`: the requests the dollars
    count and those with no price). ``stop``, once set (the audit stopped by its user), stops
    the search at its next trial or agent call (:class:`~diptych.agent.stopping.SearchStopped`)."""
    from diptych.agent.chat_model import agent_model
    from diptych.agent.checkpoint import stored_state
    from diptych.agent.decision import is_finding
    from diptych.agent.session import search_identities, search_mitigations

    search = part.search
    assert search is not None
    # The agent's calls the session counted before this run of it: what it calls now is the rest.
    before = (stored_state(ws.path, session) or {}).get("budget")
    agent = agent_model(*models[search.agent_model])
    if search.kind == "identities":
        assert search.target is not None
        settings = identity_settings(search, session, remaining, part.seed)
        report = search_identities(
            ws,
            ws.plugins.model(models[search.target]),
            agent,
            settings,
            annotator=ws.annotators.get(search.annotator) if search.annotator else None,
            stop=stop,
        )
        return {
            "session": report.session,
            "stop_reason": report.stop_reason,
            "spent": float(report.budget.get("spent") or 0.0),
            # What the spend counts: its requests priced and not (the search's and its agent's).
            "cost": report.budget.get("cost"),
            **agent_calls(before, report.budget),
            "findings": [
                p.pair if p.status == "finding" else f"{p.pair} ({p.status})"
                for p in report.ranked
                if is_finding(p.status)
            ],
            # The requests it bought, which the audit's budget.max_requests counts.
            "trials": int(report.budget.get("trials") or 0),
            "ranked": len(report.ranked),
            "rejected": len(report.rejected),
        }
    if baseline_run is None:
        raise UsageError(f"search '{part.name}' has no baseline run")
    mitigations = search_mitigations(
        ws,
        agent,
        baseline_run,
        session=session,
        rounds=search.rounds,
        per_round=search.per_round,
        patience=search.patience,
        max_cost=remaining,
        max_requests=search.max_requests,
        seed=0 if part.seed is None else part.seed,
        stop=stop,
    )
    return {
        "session": mitigations.session,
        "stop_reason": mitigations.stop_reason,
        "spent": float(mitigations.budget.get("spent") or 0.0),
        # What the spend counts: its requests priced and not (the search's and its agent's).
        "cost": mitigations.budget.get("cost"),
        "trials": int(mitigations.budget.get("trials") or 0),
        **agent_calls(before, mitigations.budget),
        "front": [t.get("text") for t in mitigations.front],
        "tried": len(mitigations.tried),
    }


def agent_calls(before: Any, after: dict[str, Any]) -> dict[str, Any]:
    """A search's agent calls, which no run stores, as its summary keeps them: those the
    session counted in all (``agent_cost``) and those it called in this run of it
    (``agent_cost_now``), each as :func:`~diptych.core.cost.cost_fields` writes a cost."""
    from diptych.agent.scoring import Budget
    from diptych.core.cost import answered_since, cost_fields

    total = Budget.resumed(None, None, after).agent
    earlier = Budget.resumed(None, None, before).agent
    return {
        "agent_cost": cost_fields(total),
        "agent_cost_now": cost_fields(answered_since(total, earlier)),
    }

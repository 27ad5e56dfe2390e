"""The agent's searches as audit parts: the :class:`~diptych.audit.SearchRunner` the CLI
and the TUI hand to :func:`diptych.audit.run_audit` (the audit runner imports no agent, so
the agent comes in from here)."""

from __future__ import annotations

import threading
from typing import Any

from diptych.audit import Part
from diptych.core.errors import UsageError
from diptych.core.workspace import Workspace


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
    from diptych.agent.decision import is_finding
    from diptych.agent.identities import IdentitySettings
    from diptych.agent.session import search_identities, search_mitigations

    search = part.search
    assert search is not None
    agent = agent_model(*models[search.agent_model])
    if search.kind == "identities":
        assert search.target is not None
        settings = IdentitySettings(
            session=session,
            probe=search.probe,
            rounds=search.rounds,
            per_round=search.per_round,
            patience=search.patience,
            max_cost=remaining,
            max_trials=search.max_trials,
        )
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
            "findings": [
                p.pair if p.status == "finding" else f"{p.pair} ({p.status})"
                for p in report.ranked
                if is_finding(p.status)
            ],
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
        stop=stop,
    )
    return {
        "session": mitigations.session,
        "stop_reason": mitigations.stop_reason,
        "spent": float(mitigations.budget.get("spent") or 0.0),
        # What the spend counts: its requests priced and not (the search's and its agent's).
        "cost": mitigations.budget.get("cost"),
        "front": [t.get("text") for t in mitigations.front],
        "tried": len(mitigations.tried),
    }

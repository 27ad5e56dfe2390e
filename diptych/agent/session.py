"""Starting, resuming and reading agent sessions: the calls a front end (CLI, TUI) makes.

A front end builds the settings, opens the Workspace and calls :func:`search_identities` or
:func:`search_mitigations`; progress arrives through ``on_event(name, data)`` (``proposed``,
``scored``), and the returned report holds everything to show. The same session id resumes a
stopped session from its checkpoint in ``<workspace>/agent.db``. A session that ends saves its
findings in the workspace (:meth:`Workspace.save_agent_findings`) for the audit report.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from typing import Any

from diptych.agent.chat_model import DiptychChatModel
from diptych.agent.checkpoint import run_graph, stored_state
from diptych.agent.findings import identity_findings, mitigation_findings
from diptych.agent.identities import IdentitySettings, Tools, build_graph
from diptych.agent.memory import Embedder, Memory, SentenceEmbedder, memory_scope
from diptych.agent.proposals import Proposal
from diptych.core.capabilities import Model
from diptych.core.workspace import Workspace

#: How statuses are ranked in the report: findings first, unscored last but never dropped; a
#: status not named here (a new outcome) comes after the measured ones, before unscored.
_ORDER = {"finding": 0, "not confirmed": 1, "no finding": 2, "screened out": 3, "unscored": 5}
_OTHER = 4


@dataclass
class IdentityReport:
    """An identity search's outcome: ranked pairs, rejected proposals, why it stopped."""

    session: str
    ranked: list[Proposal]
    rejected: list[Proposal]
    stop_reason: str
    budget: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "ranked": [p.to_dict() for p in self.ranked],
            "rejected": [p.to_dict() for p in self.rejected],
            "stop_reason": self.stop_reason,
            "budget": self.budget,
        }


def identity_report(session: str, state: dict[str, Any]) -> IdentityReport:
    proposals = [Proposal.from_dict(p) for p in state.get("proposals", [])]
    ranked = sorted(
        (p for p in proposals if p.status != "rejected"),
        key=lambda p: (_ORDER.get(p.status, _OTHER), -((p.sts or {}).get("value") or 0.0)),
    )
    return IdentityReport(
        session=session,
        ranked=ranked,
        rejected=[p for p in proposals if p.status == "rejected"],
        stop_reason=state.get("stop_reason", ""),
        budget=state.get("budget", {}),
    )


def resumed_settings(stored: dict[str, Any]) -> IdentitySettings:
    """The settings a checkpointed session was started with. A session saved before a setting
    existed takes its default; one saved with a setting since removed drops it (an old
    ``early_stop: false`` meant what ``patience: 0`` means now)."""
    known = {f.name for f in fields(IdentitySettings)}
    values = {k: v for k, v in stored.items() if k in known}
    if "patience" not in stored and stored.get("early_stop") is False:
        values["patience"] = 0
    values["kinds"] = tuple(values.get("kinds") or IdentitySettings.kinds)
    return IdentitySettings(**values)


def search_identities(
    ws: Workspace,
    target: Model,
    agent: Model,
    settings: IdentitySettings,
    *,
    embedder: Embedder | None = None,
    memory_url: str | None = None,
    on_event: Callable[[str, dict[str, Any]], None] | None = None,
    annotator: Model | None = None,
) -> IdentityReport:
    """Run (or resume) the identity search ``settings.session`` and return its report;
    ``annotator`` labels the people of an image probe's (``pst``) runs.

    A session that exists already continues with the settings it was started with."""
    previous = stored_state(ws.path, settings.session)
    if previous and previous.get("settings"):
        settings = resumed_settings(previous["settings"])
    memory = Memory(
        ws.path,
        embedder or SentenceEmbedder(),
        url=memory_url or ws.chroma_url,
        scope=memory_scope(settings.probe, target),
    )
    tools = Tools(ws, DiptychChatModel(agent), target, memory, on_event, annotator)
    try:
        graph = build_graph(settings, tools)
        state = run_graph(graph, ws.path, settings.session, {"settings": asdict(settings)})
    finally:
        tools.close()
    report = identity_report(settings.session, state)
    ws.save_agent_findings(settings.session, identity_findings(ws, report, agent, target))
    return report


@dataclass
class MitigationReport:
    """A mitigation search's outcome: every intervention tried, the Pareto front with its
    held-out figures, and why it stopped."""

    session: str
    tried: list[dict[str, Any]]
    stop_reason: str
    budget: dict[str, Any]

    @property
    def front(self) -> list[dict[str, Any]]:
        return sorted(
            (t for t in self.tried if t.get("pareto")),
            key=lambda t: t["score"]["difference"],
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def search_mitigations(
    ws: Workspace,
    agent: Model,
    baseline: str,
    *,
    session: str,
    rounds: int = 1,
    per_round: int = 3,
    max_cost: float | None = None,
    embedder: Embedder | None = None,
    memory_url: str | None = None,
    on_event: Callable[[str, dict[str, Any]], None] | None = None,
) -> MitigationReport:
    """Run (or resume) a mitigation search on the pst-text run ``baseline``."""
    from diptych.agent import mitigation

    params, search, held = mitigation.split_identities(ws, baseline, 0)
    run = ws.get_run(baseline)
    spec = run.models[0]
    target = ws.model((spec["name"], spec.get("params") or {}))
    settings = mitigation.MitigationSettings(
        session=session,
        baseline=run.id,
        rounds=rounds,
        per_round=per_round,
        max_cost=max_cost,
        template=params.get("paired_template") or mitigation.PAIRED_TEMPLATE,
        search_identities=search,
        heldout_identities=held,
        base_params={k: v for k, v in params.items() if k not in ("masculine", "feminine")},
    )
    memory = Memory(
        ws.path,
        embedder or SentenceEmbedder(),
        url=memory_url or ws.chroma_url,
        scope=memory_scope(f"mitigation of {run.id}", target),
    )
    tools = Tools(ws, DiptychChatModel(agent), target, memory, on_event)
    try:
        state = run_graph(
            mitigation.build_graph(settings, tools),
            ws.path,
            session,
            {"settings": mitigation.settings_dict(settings)},
        )
    finally:
        tools.close()
    report = MitigationReport(
        session, state.get("tried", []), state.get("stop_reason", ""), state.get("budget", {})
    )
    ws.save_agent_findings(session, mitigation_findings(ws, report, agent, run.id))
    return report

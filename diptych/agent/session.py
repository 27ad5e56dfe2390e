"""Starting, resuming and reading agent sessions: the calls a front end (CLI, TUI) makes.

A front end builds the settings, opens the Workspace and calls :func:`search_identities` or
:func:`search_mitigations`; progress arrives through ``on_event(name, data)`` (``proposed``,
``scored``), and the returned report holds everything to show. The same session id resumes a
stopped session from its checkpoint in ``<workspace>/agent.db``. A session that ends saves its
findings in the workspace (``ws.findings.save``) for the audit report; the runs it starts are
recorded as its own (``ws.runs.made_by``), and listings group them under it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import asdict, fields
from typing import Any

from diptych.agent.chat_model import DiptychChatModel
from diptych.agent.checkpoint import run_graph, stored_state
from diptych.agent.findings import identity_findings, mitigation_findings
from diptych.agent.identities import IdentitySettings, Tools, build_graph
from diptych.agent.memory import Embedder, Memory, SentenceEmbedder, memory_scope
from diptych.agent.outcomes import IdentityReport, MitigationReport, identity_report
from diptych.core.capabilities import Model
from diptych.core.workspace import Workspace


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
    stop: threading.Event | None = None,
) -> IdentityReport:
    """Run (or resume) the identity search ``settings.session`` and return its report;
    ``annotator`` labels the people of an image probe's (``pst``) runs; ``stop``, once set,
    stops the search at its next trial or agent call (:mod:`diptych.agent.stopping`).

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
    chat = DiptychChatModel(agent, stop=stop)
    tools = Tools(ws, chat, target, memory, on_event, annotator, stop=stop)
    try:
        graph = build_graph(settings, tools)
        # The session's runs are listed under it, not among the user's.
        with ws.runs.made_by(settings.session):
            state = run_graph(
                graph,
                ws.path,
                settings.session,
                {"settings": asdict(settings)},
                rounds=settings.rounds,
            )
    finally:
        tools.close()
    report = identity_report(settings.session, state)
    ws.findings.save(settings.session, identity_findings(ws, report, agent, target))
    return report


def search_mitigations(
    ws: Workspace,
    agent: Model,
    baseline: str,
    *,
    session: str,
    rounds: int = 1,
    per_round: int = 3,
    patience: int = 2,
    max_cost: float | None = None,
    max_requests: int | None = None,
    seed: int = 0,
    embedder: Embedder | None = None,
    memory_url: str | None = None,
    on_event: Callable[[str, dict[str, Any]], None] | None = None,
    behaviour_screen: bool = True,
    stop: threading.Event | None = None,
    max_trials: int | None = None,
) -> MitigationReport:
    """Run (or resume) a mitigation search on the pst-text run ``baseline``, asking at most
    ``max_requests`` requests (``max_trials``: its former name, read as the same);
    ``behaviour_screen=False`` scores interventions without measuring
    them on the placebo words first (for measuring what the screen stops, never for an
    audit); ``stop`` as :func:`search_identities` takes it."""
    from diptych.agent.mitigation import search as mitigation
    from diptych.agent.mitigation.power import powered_designs
    from diptych.agent.mitigation.prompts import PAIRED_TEMPLATE, split_identities
    from diptych.agent.mitigation.settings import MitigationSettings, settings_dict

    params, search, held = split_identities(ws, baseline, seed)
    template = params.get("paired_template") or PAIRED_TEMPLATE
    # Designs whose decisions can find the threshold's reduction, or a statement that they
    # cannot with the identities given.
    search, held, power = powered_designs(ws, baseline, params, search, held, template=template)
    run = ws.runs.get(baseline)
    spec = run.models[0]
    target = ws.plugins.model((spec["name"], spec.get("params") or {}))
    settings = MitigationSettings(
        session=session,
        baseline=run.id,
        rounds=rounds,
        per_round=per_round,
        patience=patience,
        max_cost=max_cost,
        max_requests=max_requests,
        max_trials=max_trials,
        seed=seed,
        template=template,
        search_identities=search,
        heldout_identities=held,
        power=power,
        behaviour_screen=behaviour_screen,
        base_params={k: v for k, v in params.items() if k not in ("masculine", "feminine")},
    )
    memory = Memory(
        ws.path,
        embedder or SentenceEmbedder(),
        url=memory_url or ws.chroma_url,
        scope=memory_scope(f"mitigation of {run.id}", target),
    )
    tools = Tools(ws, DiptychChatModel(agent, stop=stop), target, memory, on_event, stop=stop)
    try:
        with ws.runs.made_by(session):
            state = run_graph(
                mitigation.build_graph(settings, tools),
                ws.path,
                session,
                {"settings": settings_dict(settings)},
                rounds=settings.rounds,
            )
    finally:
        tools.close()
    report = MitigationReport(
        session, state.get("tried", []), state.get("stop_reason", ""), state.get("budget", {}),
        power=(state.get("settings") or {}).get("power") or power,
    )  # fmt: skip
    ws.findings.save(session, mitigation_findings(ws, report, agent, run.id))
    return report

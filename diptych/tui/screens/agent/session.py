"""An agent session as the Agent screen runs it: what the form asks for, the session run
headless in a worker thread with its own Workspace, and the messages its events come back to
the screen as (only the UI thread touches a widget)."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

from diptych.core.capabilities import Model
from diptych.core.errors import DiptychError
from diptych.core.workspace import Workspace

if TYPE_CHECKING:
    from diptych.agent.memory import Embedder
    from diptych.agent.rows import AgentRow

ModelOf = Callable[[Workspace, str], Model]


def model_by_name(ws: Workspace, name: str) -> Model:
    """``NAME key=value ...`` as the CLI takes ``-m NAME -M key=value``; an agent model may
    also be a LangChain ``provider:model``."""
    spec, *params = shlex.split(name) or [""]
    return ws.plugins.model((spec, params))


def agent_by_name(ws: Workspace, name: str) -> Model:
    from diptych.agent.chat_model import agent_model

    spec, *params = shlex.split(name) or [""]
    return agent_model(spec, params)


@dataclass(frozen=True)
class SessionRequest:
    """What the form asks for: which search, on which models, for how many rounds."""

    kind: str  # "identities" or "mitigate"
    target: str
    agent: str
    probe: str = "pst-text"
    rounds: int = 2
    baseline: str = ""
    annotator: str = ""
    session: str = ""
    per_round: int = 3
    #: Who chooses the pairs (identity searches): lexicon, llm or hybrid.
    proposer: str = "hybrid"
    #: Let the agent name identities beyond the lexicon (identity searches).
    allow_new: bool = False


# --- messages from the session's worker ------------------------------------------------------


@dataclass
class AgentProposed(Message):
    """The agent answered a round: ``n`` proposals to validate and run."""

    round: int
    n: int


@dataclass
class AgentScored(Message):
    """One proposal has its outcome (scored or unscored)."""

    row: AgentRow


@dataclass
class AgentFinished(Message):
    """The session ended: every proposal, rejected ones included, and why it stopped."""

    session: str
    rows: list[AgentRow]
    stop_reason: str
    #: What it spent, in the one wording of a cost ("not priced (computed on this machine)").
    spent: str = ""


@dataclass
class AgentFailed(Message):
    error: str


@dataclass
class AgentAccepted(Message):
    """An accept was stored (``stored``) or found the item listed already."""

    row_id: str
    stored: bool
    error: str = ""


@dataclass
class AgentRejected(Message):
    """A rejection was recorded in the workspace (or failed to be, with ``error``)."""

    row_id: str
    error: str = ""


def run_session(
    request: SessionRequest,
    store_path: Path,
    post: Callable[[Message], object],
    *,
    model_of: ModelOf = model_by_name,
    agent_of: ModelOf | None = None,
    embedder: Embedder | None = None,
) -> None:
    """Run the session headless (in a worker thread) and post its events as messages."""
    agent_of = agent_of or model_of
    from diptych.agent.proposals import Proposal
    from diptych.agent.rows import intervention_row, pair_row

    def on_event(event: str, data: dict[str, Any]) -> None:
        if event == "proposed":
            post(AgentProposed(int(data.get("round", 0)), int(data.get("n", 0))))
        elif event == "scored" and request.kind == "identities":
            pair = str(data.get("pair", " | "))
            masculine, _, feminine = pair.partition(" | ")
            p = Proposal(
                str(data["id"]), 0, masculine, feminine, "", "", status=str(data["status"])
            )
            p.sts = data.get("sts")
            post(AgentScored(pair_row(p)))
        elif event == "scored":
            post(AgentScored(intervention_row({**data, "text": "", "kind": ""})))

    try:
        with Workspace.open(store_path) as ws:
            if request.kind == "identities":
                from diptych.agent.identities import IdentitySettings
                from diptych.agent.session import search_identities

                report = search_identities(
                    ws,
                    model_of(ws, request.target),
                    agent_of(ws, request.agent),
                    IdentitySettings(
                        session=request.session,
                        probe=request.probe,
                        rounds=request.rounds,
                        per_round=request.per_round,
                        proposer=request.proposer,
                        allow_new=request.allow_new,
                    ),
                    embedder=embedder,
                    on_event=on_event,
                    annotator=ws.annotators.get(request.annotator) if request.annotator else None,
                )
                rows = [pair_row(p) for p in report.ranked + report.rejected]
                from diptych.agent.scoring import spent_text

                spent = spent_text(report.budget)
                post(AgentFinished(report.session, rows, report.stop_reason, spent))
            else:
                from diptych.agent.session import search_mitigations

                mitigation = search_mitigations(
                    ws,
                    agent_of(ws, request.agent),
                    request.baseline,
                    session=request.session,
                    rounds=request.rounds,
                    per_round=request.per_round,
                    embedder=embedder,
                    on_event=on_event,
                )
                rows = [intervention_row(t) for t in mitigation.tried]
                from diptych.agent.scoring import spent_text

                spent = spent_text(mitigation.budget)
                post(AgentFinished(mitigation.session, rows, mitigation.stop_reason, spent))
    except (DiptychError, ValueError) as error:
        post(AgentFailed(str(error)))

"""``diptych agent identities``: the agent searches for new stereotyped identity pairs.

One langgraph graph with fixed nodes — propose → validate → deduplicate → run → score →
remember → (next round | held-out re-test) — checkpointed in ``<workspace>/agent.db`` under the
session id, so a killed session resumes at the node it stopped in. The graph's state holds only
plain data (proposals as dicts); the Workspace, the models and the memory are the session's
tools, handed to the nodes, never part of what the model can choose.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import Callable, Coroutine
from dataclasses import asdict, dataclass, field
from typing import Any, TypedDict

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.graph import StateGraph

from diptych.agent.chat_model import AgentBudgetError, DiptychChatModel, structured_call
from diptych.agent.decision import decide, is_finding, measure_proposal
from diptych.agent.graph import round_graph
from diptych.agent.instructions import identity_instructions
from diptych.agent.memory import (
    NEAR_DUPLICATE,
    Memory,
    cosine_distance,
    is_settled,
    outcomes_for_agent,
    pair_text,
)
from diptych.agent.proposals import (
    Proposal,
    paper_identities,
    parse_round,
    validate,
)
from diptych.agent.proposer import Offer, offer, top_up, tried_identities
from diptych.agent.scoring import Budget, former_cap
from diptych.agent.stopping import until_stopped
from diptych.core.capabilities import Model
from diptych.core.digits import figure_text
from diptych.core.workspace import Workspace

KIND = "identities"


@dataclass
class IdentitySettings:
    """What an identity search does; stored with the session so a resume does the same."""

    session: str
    probe: str = "pst-text"
    rounds: int = 2
    per_round: int = 3
    max_cost: float | None = None
    #: The most requests the session buys (its runs' and its placebo words' together); a
    #: trial already stored, or asking what another asks, buys none.
    max_requests: int | None = None
    #: The former name of ``max_requests``, read as the same (deprecated).
    max_trials: int | None = None
    #: Samples per scene where the probe samples (story mode, images); in likelihood mode each
    #: prompt is asked once, since asking it again would read the same probabilities.
    samples: int = 2
    #: Partners of the other stereotype each proposed identity meets, in the search and (other
    #: ones) in the held-out test.
    partners: int = 6
    #: The false discovery rate that Benjamini–Hochberg holds over the session's proposals.
    fdr: float = 0.05
    #: The smallest search STS worth confirming: a pair is re-tested on held-out partners and
    #: templates when its search interval lies above 0 and its search STS reaches this.
    threshold: float = 0.0
    seed: int = 0
    kinds: tuple[str, ...] = ("occupation", "power role")
    #: Who chooses the pairs: "lexicon" (drawn, no LLM), "llm" (the LLM among the lexicon's
    #: entries) or "hybrid" (as llm, slots its reply left unfilled drawn from the lexicon).
    proposer: str = "hybrid"
    #: Let the LLM name identities beyond the lexicon (free words, still validated).
    allow_new: bool = False
    #: Stop after this many rounds in a row without a new finding (0: never stop early).
    patience: int = 2
    probe_params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.max_requests, self.max_trials = former_cap(self.max_requests, self.max_trials), None


class IdentityState(TypedDict, total=False):
    settings: dict[str, Any]
    round: int
    current: list[dict[str, Any]]
    proposals: list[dict[str, Any]]
    new_findings: int
    #: Rounds in a row, up to the last, without a new finding (for ``patience``).
    quiet_rounds: int
    budget: dict[str, Any]
    stop_reason: str
    #: The session's Benjamini–Hochberg decision has been made over every proposal.
    decided: bool
    #: The placebo words measured so far, by :func:`diptych.agent.placebo.words.cache_key`: each
    #: runs once a session.
    placebo: dict[str, Any]
    #: Each round's proposals by who made them, and why the agent model's reply held none
    #: (``{"round", "asked", "from_agent", "from_lexicon", "problem"}``).
    agent_rounds: list[dict[str, Any]]


@dataclass
class Tools:
    """What the nodes may use: the workspace, the two models and the memory. Nothing else."""

    ws: Workspace
    agent: DiptychChatModel
    target: Model
    memory: Memory
    on_event: Callable[[str, dict[str, Any]], None] | None = None
    #: Labels the people of an image probe's runs (``--probe pst``); None for text probes.
    annotator: Model | None = None
    #: One event loop for every probe run of the session: a loop (and its thread pool) per
    #: proposal cost more than the zero-latency run it drove.
    loop: asyncio.Runner = field(default_factory=asyncio.Runner)
    #: Set when the user stops the search (:mod:`diptych.agent.stopping`): a probe run in
    #: flight is cancelled, and none starts after it.
    stop: threading.Event | None = None

    def emit(self, event: str, data: dict[str, Any]) -> None:
        if self.on_event is not None:
            self.on_event(event, data)

    def run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Await ``coro`` (a Workspace run) on the session's event loop, until the search is
        stopped (then :class:`~diptych.agent.stopping.SearchStopped`)."""
        return self.loop.run(until_stopped(coro, self.stop))

    def close(self) -> None:
        self.loop.close()


def build_graph(settings: IdentitySettings, tools: Tools) -> StateGraph:
    allowed = frozenset(settings.kinds)

    def budget_of(state: IdentityState) -> Budget:
        return Budget.resumed(settings.max_cost, settings.max_requests, state.get("budget"))

    def propose(state: IdentityState) -> IdentityState:
        round_no = state.get("round", 0)
        earlier = [Proposal.from_dict(p) for p in state.get("proposals", [])]
        # The lexicon's entries not yet tried, as the schema's enums (free words only when
        # allowed); with --proposer lexicon no LLM is asked at all.
        tried = tried_identities(earlier, tools.memory)
        seed = _seed(settings.session, round_no)
        candidates = offer(settings.kinds, tried, settings.allow_new, seed)
        # The agent's own calls are charged to the session's budget like its trials.
        budget = budget_of(state)
        try:
            raw, reply = (
                ("", None)
                if settings.proposer == "lexicon"
                else ask_round(
                    tools.agent, settings, round_no, earlier, tools.memory, candidates, seed,
                    budget=budget,
                )
            )  # fmt: skip
        except AgentBudgetError as stop:
            tools.emit("stopped", {"round": round_no, "reason": str(stop)})
            return {"current": [], "budget": budget.to_dict(), "stop_reason": str(stop)}
        current = (
            []
            if settings.proposer == "lexicon"
            else parse_round(reply, raw, round_no, 0, settings.per_round)
        )
        from_agent = sum(bool(p.masculine and p.feminine) for p in current)
        problem = (
            None
            if settings.proposer == "lexicon" or from_agent
            else (current[0].reason if current else "the reply held no proposal")
        )
        current = top_up(
            current, settings.proposer, settings.per_round, settings.kinds, tried, round_no, seed
        )
        filled = {
            "round": round_no,
            "asked": settings.per_round,
            "from_agent": from_agent,
            "from_lexicon": sum(p.source == "lexicon" for p in current),
            "problem": problem,
        }
        tools.emit("proposed", {"round": round_no, "n": len(current), **filled})
        out: IdentityState = {
            "current": [p.to_dict() for p in current],
            "budget": budget.to_dict(),
            "agent_rounds": [*state.get("agent_rounds", []), filled],
        }
        if not current and problem is None:
            # Every identity on offer was tried: the rounds left would each ask nothing.
            out["stop_reason"] = "no untried identity is left to propose"
        return out

    def validate_node(state: IdentityState) -> IdentityState:
        out = []
        known = {p["id"] for p in state.get("proposals", [])}
        for data in state["current"]:
            p = validate(Proposal.from_dict(data), allowed, allow_new=settings.allow_new)
            p.parents = [x for x in p.parents if x in known]
            out.append(p.to_dict())
        return {"current": out}

    def deduplicate(state: IdentityState) -> IdentityState:
        current = [Proposal.from_dict(p) for p in state["current"]]
        seen = {
            pair_text(p["masculine"], p["feminine"]): p["id"]
            for p in state.get("proposals", [])
            if p["masculine"] and is_settled(p["status"])
        }
        live = [p for p in current if p.status == "accepted"]
        texts = [pair_text(p.masculine, p.feminine) for p in live]
        vectors = tools.memory.embedder.embed(texts) if texts else []
        nearest = tools.memory.nearest(KIND, texts, vectors=vectors)
        kept: list[tuple[Proposal, list[float]]] = []
        for p, text, vec, near in zip(live, texts, vectors, nearest, strict=True):
            twin = seen.get(text) or tools.memory.exact(KIND, text)
            if twin:
                p.status, p.reason = "rejected", f"already proposed (exact: {twin})"
            elif near and near[0][1] < NEAR_DUPLICATE:
                p.status = "rejected"
                p.reason = (
                    f"near-duplicate of {near[0][2].get('pair', near[0][0])} "
                    f"(distance {figure_text(near[0][1])})"
                )
            else:
                close = [q for q, v in kept if cosine_distance(vec, v) < NEAR_DUPLICATE]
                if close:
                    p.status, p.reason = "rejected", f"near-duplicate of {close[0].id} (same round)"
                else:
                    kept.append((p, vec))
                    seen[text] = p.id
        return {"current": [p.to_dict() for p in current]}

    def run(state: IdentityState) -> IdentityState:
        budget = budget_of(state)
        current = [Proposal.from_dict(p) for p in state["current"]]
        placebo = dict(state.get("placebo") or {})
        for p in current:
            if p.status != "accepted":
                continue
            measure_proposal(
                tools, p, probe=settings.probe, probe_params=settings.probe_params,
                partners=settings.partners, samples=settings.samples, seed=settings.seed,
                threshold=settings.threshold, budget=budget, placebo=placebo,
            )  # fmt: skip
            tools.emit("scored", {"id": p.id, "pair": p.pair, "status": p.status, "sts": p.sts})
        return {
            "current": [p.to_dict() for p in current],
            "budget": budget.to_dict(),
            "placebo": placebo,
        }

    def score(state: IdentityState) -> IdentityState:
        # Benjamini–Hochberg over every proposal scored so far: this round's statuses are what
        # the session knows now; the decide node settles every one of them at the end.
        earlier = [Proposal.from_dict(p) for p in state.get("proposals", [])]
        current = [Proposal.from_dict(p) for p in state["current"]]
        decide([*earlier, *current], settings.fdr)
        new = sum(is_finding(p.status) for p in current)
        return {"current": [p.to_dict() for p in current], "new_findings": new}

    def remember(state: IdentityState) -> IdentityState:
        current = [Proposal.from_dict(p) for p in state["current"]]
        tools.memory.remember(
            KIND,
            [
                (
                    f"{settings.session}:{p.id}",
                    pair_text(p.masculine, p.feminine),
                    {
                        "pair": p.pair,
                        "status": p.status,
                        "sts": (p.sts or {}).get("value"),
                        "session": settings.session,
                        "round": p.round,
                        "reason": p.reason or "",
                    },
                )
                for p in current
                if p.masculine and p.feminine
            ],
        )
        round_no = state.get("round", 0) + 1
        quiet = 0 if state.get("new_findings") else state.get("quiet_rounds", 0) + 1
        # A stop decided earlier in the round (the agent's budget ran out) stands.
        stop = state.get("stop_reason") or ""
        if not stop and round_no >= settings.rounds:
            stop = f"{settings.rounds} round{'' if settings.rounds == 1 else 's'} done"
        elif not stop and settings.patience and quiet >= settings.patience:
            stop = f"{quiet} round(s) in a row found nothing new (--patience {settings.patience})"
        return {
            "proposals": state.get("proposals", []) + state["current"],
            "current": [],
            "round": round_no,
            "new_findings": 0,
            "quiet_rounds": quiet,
            "stop_reason": stop,
        }

    def decide_node(state: IdentityState) -> IdentityState:
        proposals = [Proposal.from_dict(p) for p in state.get("proposals", [])]
        k, n = decide(proposals, settings.fdr)
        tools.emit("decided", {"findings": k, "scored": n, "fdr": settings.fdr})
        return {"proposals": [p.to_dict() for p in proposals], "decided": True}

    return round_graph(
        IdentityState,
        [
            ("propose", propose),
            ("validate", validate_node),
            ("deduplicate", deduplicate),
            ("run", run),
            ("score", score),
            ("remember", remember),
        ],
        ("decide", decide_node),
    )


def ask_round(
    agent: Any,
    settings: IdentitySettings,
    round_no: int,
    earlier: list[Proposal],
    memory: Memory,
    candidates: Offer,
    seed: int,
    *,
    budget: Budget | None = None,
) -> tuple[str, Any]:
    """Ask ``agent`` for a round's proposals: the instructions, then the round's prompt (the
    session's outcomes so far) with the ``candidates`` offered, answered under their enum
    schema. The raw reply and its parsed value, as :func:`structured_call` returns them."""
    inst = identity_instructions()
    messages = [
        SystemMessage(inst.system),
        HumanMessage(
            _user_prompt(settings, round_no, earlier, memory)
            + candidates.prompt(settings.per_round)
        ),
    ]
    return structured_call(
        agent,
        messages,
        candidates.schema(settings.per_round),
        budget=budget,
        temperature=inst.sampling.temperature,
        # Room for each pair asked for, within the instructions' cap.
        max_tokens=min(inst.sampling.max_tokens, 160 * settings.per_round + 80),
        seed=seed,
    )


def _user_prompt(
    settings: IdentitySettings, round_no: int, earlier: list[Proposal], memory: Memory
) -> str:
    inst = identity_instructions()
    allowed = " ".join(inst.allowed_kinds[k] for k in settings.kinds if k in inst.allowed_kinds)
    # Measured outcomes of this session and the nearest of earlier ones on the same probe and
    # target, then the rejected pairs as what to avoid: all of it model output, so all of it
    # shown as escaped data.
    shown = outcomes_for_agent(
        earlier, memory, KIND, session=settings.session, query="a nurse and a carpenter"
    )
    paper = paper_identities()
    known = ", ".join(sorted(i for i, g in paper.items() if g == "masculine")[:20])
    known_f = ", ".join(sorted(i for i, g in paper.items() if g == "feminine")[:20])
    return inst.user.format(
        round=round_no,
        n=settings.per_round,
        allowed=allowed,
        findings=shown,
        known=f"masculine: {known}\nfeminine: {known_f}",
    )


def _seed(session: str, round_no: int) -> int:
    return int(hashlib.sha256(f"{session}:{round_no}".encode()).hexdigest()[:8], 16)


def settings_dict(settings: IdentitySettings) -> dict[str, Any]:
    return asdict(settings)

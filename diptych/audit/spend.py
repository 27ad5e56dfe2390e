"""What an audit's parts hold and what a command asked: the budget an audit is held to, and the
counts its closing line says.

What the parts hold is read from the store, whatever command answered it: every answered request
of the parts' runs and of the runs each search's session made, a request shared by runs counted
once, and each search's agent calls as its session counted them (no run stores them). What a
command asked is the part of that answered while it ran (:func:`answered_now`): an answer it
found stored, by an earlier run or another audit, is reused, never asked now.
"""

from __future__ import annotations

from dataclasses import dataclass

from diptych.core.audit import PartRecord
from diptych.core.cost import Cost, answered, cost_of_fields
from diptych.core.report.audit import cost_of_calls
from diptych.core.workspace import Workspace

#: A search's summary keeps when it ended (the store's clock), so that its agent calls are
#: said asked now by the command it ended in only.
SEARCHED_AT = "searched_at"


@dataclass(frozen=True)
class Held:
    """What an audit's parts hold: every answered request and its cost (:attr:`cost`), and of
    them the searches' agent calls (:attr:`agent`), which no run stores."""

    cost: Cost
    agent: Cost


@dataclass(frozen=True)
class Asked:
    """What one command asked: the requests answered while it ran and their cost (the
    searches' agent calls included), and the answers its new runs found stored (reused)."""

    cost: Cost
    reused: int = 0
    #: Of :attr:`cost`'s requests, the searches' agent calls.
    agent: int = 0


def part_runs(ws: Workspace, parts: list[PartRecord]) -> list[str]:
    """The runs the parts hold, in order, each once: a probe or mitigation part's run and every
    run a search's session made."""
    runs: dict[str, None] = {}
    for p in parts:
        if p.kind == "search":
            session = p.detail.get("session")
            if isinstance(session, str) and session:
                runs.update(dict.fromkeys(ws.runs.of_session(session)))
        elif p.run_id:
            runs[p.run_id] = None
    return list(runs)


def held(ws: Workspace, parts: list[PartRecord]) -> Held:
    """Every answered request the parts hold, read from the store, and their agent calls."""
    counted: set[str] = set()
    runs = sum((cost_of_calls(ws.runs.view(r), counted=counted) for r in part_runs(ws, parts)),
               Cost())  # fmt: skip
    agent = sum((_agent(p) for p in parts if p.kind == "search"), Cost())
    return Held(runs + agent, agent)


def spent_so_far(ws: Workspace, parts: list[PartRecord]) -> Cost:
    """Money the audit's parts have cost so far, counting a request shared by runs once, with
    the calls that had no price."""
    return held(ws, parts).cost


def answered_now(ws: Workspace, parts: list[PartRecord], since: float) -> Asked:
    """What the command that began at ``since`` (the store's clock) asked of the parts: the
    requests of their runs answered from then on, each search's agent calls of a search that
    ended since, and the answers of runs it made that were stored before it began (reused)."""
    counted: set[str] = set()
    runs = part_runs(ws, parts)
    now = sum((cost_of_calls(ws.runs.view(r), since=since, counted=counted) for r in runs),
              Cost())  # fmt: skip
    agent = sum(
        (
            cost_of_fields(p.detail.get("agent_cost_now"))
            for p in parts
            if p.kind == "search" and float(p.detail.get(SEARCHED_AT) or 0.0) >= since
        ),
        Cost(),
    )
    return Asked(now + agent, _reused(ws, runs, since), answered(agent))


def _reused(ws: Workspace, runs: list[str], since: float) -> int:
    """The distinct requests of the runs made since ``since`` whose answers were stored before:
    found stored, never asked."""
    found: set[str] = set()
    for run in runs:
        view = ws.runs.view(run)
        if view.run.created_at < since:
            continue
        for trial in view.trials:
            result = view.results.get(trial.key)
            if result is not None and result.finished_at < since and result.status != "failed":
                found.add(trial.key)
    return len(found)


def _agent(part: PartRecord) -> Cost:
    """A search's agent calls as its session counted them (none known where its summary was
    kept before they were counted apart from its trials)."""
    return cost_of_fields(part.detail.get("agent_cost"))

"""The agent's session as a langgraph graph: its steps in a fixed order, round after round,
until a round ends with a stop reason; then one last step (the decision over the session's
proposals, or the held-out test of the best mitigation) ends it.

Both of the agent's sessions (paired identities, mitigation prompts) are this graph with their
own steps, so that the checkpoint of either resumes at the step it was killed in."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langgraph.graph import END, START, StateGraph


def round_graph(
    state: type[Any],
    steps: Sequence[tuple[str, Callable[..., Any]]],
    last: tuple[str, Callable[..., Any]],
) -> StateGraph:
    """A graph over ``state`` that runs ``steps`` in order and, after the final one, starts
    the next round at the first unless the state holds a ``stop_reason``; then ``last``."""
    graph = StateGraph(state)
    for name, fn in (*steps, last):
        graph.add_node(name, fn)
    names = [name for name, _ in steps]
    first, final, end = names[0], names[-1], last[0]
    graph.add_edge(START, first)
    for a, b in zip(names, names[1:], strict=False):
        graph.add_edge(a, b)
    graph.add_conditional_edges(
        final, lambda s: end if s.get("stop_reason") else first, [end, first]
    )
    graph.add_edge(end, END)
    return graph
